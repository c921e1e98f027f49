//! Transcripts of the EndpointSlice controller: a Service, its pods and its slices in, the
//! actions out.

use super::*;

fn service(target_port: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web", "namespace": "demo", "uid": "svc-uid", "labels": {"app": "web", SERVICE_NAME: "spoofed"}},
        "spec": {"selector": {"app": "web"}, "clusterIP": "10.96.3.80", "ipFamilies": ["IPv4"],
            "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": target_port}]}})
}

fn pod(name: &str, ip: &str, ready: bool) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "demo", "uid": format!("uid-{name}"), "labels": {"app": "web"}},
        "spec": {"nodeName": "node-1", "containers": [{"name": "nginx", "ports": [{"name": "www", "containerPort": 8080, "protocol": "TCP"}]}]},
        "status": {"phase": "Running", "podIP": ip, "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]}})
}

fn no_zone(_: &str) -> Option<String> {
    None
}

/// The slice a creation asks for, named as the API server would name it.
fn created(actions: &Actions, index: usize, name: &str) -> Value {
    let mut slice = actions.creates[index].1.clone();
    slice["metadata"]["name"] = json!(name);
    slice
}

#[test]
fn a_service_gets_one_slice_of_the_pods_it_selects_with_their_conditions() {
    let mut deleting = pod("web-c", "10.244.0.3", true);
    deleting["metadata"]["deletionTimestamp"] = json!("2026-03-01T10:00:00Z");
    let mut done = pod("web-d", "10.244.0.4", false);
    done["status"]["phase"] = json!("Succeeded");
    let pending = pod("web-e", "", false);
    let pods = [pod("web-b", "10.244.0.2", false), pod("web-a", "10.244.0.1", true), deleting, done, pending];
    let actions =
        plan(Some(&service(json!(8080))), &pods, &[], &|node| (node == "node-1").then(|| "zone-a".to_string()));
    assert_eq!(actions.transcript(), ["create EndpointSlice web-"]);
    let slice = &actions.creates[0].1;
    assert_eq!(slice["addressType"], "IPv4");
    assert_eq!(
        slice["metadata"]["labels"],
        json!({"app": "web", SERVICE_NAME: "web", "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io"})
    );
    assert_eq!(slice["metadata"]["ownerReferences"][0]["uid"], "svc-uid");
    assert_eq!(slice["metadata"]["ownerReferences"][0]["controller"], true);
    assert_eq!(slice["ports"], json!([{"name": "http", "port": 8080, "protocol": "TCP"}]));
    let endpoint = |name: &str, ip: &str, ready: bool, serving: bool, terminating: bool| {
        json!({"addresses": [ip], "conditions": {"ready": ready, "serving": serving, "terminating": terminating},
            "targetRef": {"kind": "Pod", "namespace": "demo", "name": name, "uid": format!("uid-{name}")},
            "nodeName": "node-1", "zone": "zone-a"})
    };
    assert_eq!(
        slice["endpoints"],
        json!([
            endpoint("web-a", "10.244.0.1", true, true, false),
            endpoint("web-b", "10.244.0.2", false, false, false),
            endpoint("web-c", "10.244.0.3", false, true, true),
        ]),
        "name order; the terminal pod and the pod without an IP are left out"
    );
}

#[test]
fn a_round_over_its_own_slice_writes_nothing_and_a_readiness_change_updates_it() {
    let svc = service(json!(8080));
    let pods = [pod("web-a", "10.244.0.1", true), pod("web-b", "10.244.0.2", false)];
    let first = plan(Some(&svc), &pods, &[], &no_zone);
    let slice = created(&first, 0, "web-x7k2p");
    assert!(plan(Some(&svc), &pods, std::slice::from_ref(&slice), &no_zone).is_empty());
    let ready = [pod("web-a", "10.244.0.1", true), pod("web-b", "10.244.0.2", true)];
    let next = plan(Some(&svc), &ready, std::slice::from_ref(&slice), &no_zone);
    assert_eq!(next.transcript(), ["update EndpointSlice web-x7k2p"]);
    assert_eq!(next.updates[0].1["endpoints"][1]["conditions"]["ready"], true);
}

#[test]
fn endpoints_are_cut_into_slices_of_a_hundred_and_surplus_slices_go() {
    let svc = service(json!(80));
    let pods: Vec<Value> =
        (0..250).map(|i| pod(&format!("web-{i:03}"), &format!("10.244.{}.{}", i / 200, i % 200), true)).collect();
    let first = plan(Some(&svc), &pods, &[], &no_zone);
    assert_eq!(first.creates.len(), 3);
    let sizes: Vec<usize> = first.creates.iter().map(|(_, s)| s["endpoints"].as_array().map_or(0, Vec::len)).collect();
    assert_eq!(sizes, [100, 100, 50]);
    let slices: Vec<Value> = (0..3).map(|i| created(&first, i, &format!("web-{i}"))).collect();
    let fewer = plan(Some(&svc), &pods[..120], &slices, &no_zone);
    assert_eq!(fewer.transcript(), ["update EndpointSlice web-1", "delete discovery.k8s.io/endpointslices web-2"]);
    assert_eq!(fewer.updates[0].1["endpoints"].as_array().map(Vec::len), Some(20));
}

#[test]
fn a_named_target_port_is_resolved_per_pod_and_pods_without_it_have_no_ports() {
    let svc = service(json!("www"));
    let mut other = pod("web-b", "10.244.0.2", true);
    other["spec"]["containers"][0]["ports"] = json!([{"name": "metrics", "containerPort": 9090}]);
    let actions = plan(Some(&svc), &[pod("web-a", "10.244.0.1", true), other], &[], &no_zone);
    let mut ports: Vec<Value> = actions.creates.iter().map(|(_, s)| s["ports"].clone()).collect();
    ports.sort_by_key(Value::to_string);
    assert_eq!(ports, [json!([]), json!([{"name": "http", "port": 8080, "protocol": "TCP"}])]);
}

#[test]
fn no_pods_is_one_placeholder_and_a_gone_service_loses_its_slices() {
    let svc = service(json!(80));
    let placeholder = plan(Some(&svc), &[], &[], &no_zone);
    assert_eq!(placeholder.transcript(), ["create EndpointSlice web-"]);
    assert_eq!(
        (&placeholder.creates[0].1["endpoints"], &placeholder.creates[0].1["ports"]),
        (&Value::Null, &Value::Null)
    );
    let slice = created(&placeholder, 0, "web-p1");
    assert_eq!(
        plan(None, &[], std::slice::from_ref(&slice), &no_zone).transcript(),
        ["delete discovery.k8s.io/endpointslices web-p1"]
    );
    let mut no_selector = svc.clone();
    no_selector["spec"]["selector"] = json!({});
    assert!(plan(Some(&no_selector), &[pod("web-a", "10.244.0.1", true)], &[], &no_zone).is_empty());
}

#[test]
fn only_a_change_of_what_a_slice_is_made_of_concerns_a_service() {
    let before = pod("web-a", "10.244.0.1", true);
    let mut annotated = before.clone();
    annotated["metadata"]["annotations"] = json!({"kube-sim/churn": "1"});
    assert!(!endpoint_fields_changed(&annotated, Some(&before)));
    let mut moved = before.clone();
    moved["status"]["podIP"] = json!("10.244.0.9");
    assert!(endpoint_fields_changed(&moved, Some(&before)));
    assert!(endpoint_fields_changed(&pod("web-a", "10.244.0.1", false), Some(&before)));
    assert!(endpoint_fields_changed(&before, None));
}
