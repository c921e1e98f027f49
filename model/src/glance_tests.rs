use super::*;

fn json(value: serde_json::Value) -> Value {
    Value::from_serde_json(&value)
}

fn lines(glance: &Glance) -> Vec<(String, Vec<String>)> {
    glance.facts.iter().map(|f| (f.label.english().to_owned(), f.lines.clone())).collect()
}

fn one(label: &str, value: &str) -> (String, Vec<String>) {
    (label.to_owned(), vec![value.to_owned()])
}

/// A pod as kube-sim serves it (from `kubectl get pod -o json`, managedFields and volumes left out),
/// with a second container that crashed once.
fn pod() -> Value {
    json(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "api-5g9cblvg68-jb5bp", "namespace": "demo",
            "ownerReferences": [{"apiVersion": "apps/v1", "controller": true, "kind": "ReplicaSet", "name": "api-5g9cblvg68", "uid": "2a01"}]},
        "spec": {"containers": [
            {"image": "ghcr.io/example/api:2.4.1", "name": "api", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}},
            {"image": "busybox:1.36", "name": "sidecar"}],
            "nodeName": "node-1", "serviceAccountName": "default"},
        "status": {"containerStatuses": [
            {"name": "api", "ready": true, "restartCount": 0, "state": {"running": {"startedAt": "2026-11-28T20:05:23Z"}}},
            {"name": "sidecar", "ready": false, "restartCount": 3,
             "state": {"waiting": {"reason": "CrashLoopBackOff"}},
             "lastState": {"terminated": {"reason": "Error", "exitCode": 2, "finishedAt": "2026-11-28T20:06:00Z"}}}],
            "hostIP": "172.18.0.2", "phase": "Running", "podIP": "10.244.0.53", "qosClass": "Burstable",
            "startTime": "2026-11-28T20:05:23Z"}}))
}

#[test]
fn a_pods_facts_are_describe_pods_lines() {
    let glance = glance("", "Pod", &pod()).unwrap();
    assert_eq!(
        lines(&glance),
        [
            one("Service Account", "default"),
            one("Node", "node-1/172.18.0.2"),
            one("Start Time", "2026-11-28T20:05:23Z"),
            one("Status", "Running"),
            one("IP", "10.244.0.53"),
            one("Controlled By", "ReplicaSet/api-5g9cblvg68"),
            one("QoS Class", "Burstable"),
        ]
    );
    let api = &glance.containers[0];
    assert_eq!(api.name, "api");
    let facts: Vec<(&str, Vec<String>)> = api.facts.iter().map(|f| (f.label.english(), f.lines.clone())).collect();
    assert_eq!(
        facts,
        [
            ("Image", vec!["ghcr.io/example/api:2.4.1".to_owned()]),
            ("State", vec!["Running".to_owned(), "Started: 2026-11-28T20:05:23Z".to_owned()]),
            ("Ready", vec!["True".to_owned()]),
            ("Restart Count", vec!["0".to_owned()]),
        ]
    );
    let sidecar = &glance.containers[1];
    let facts: Vec<(&str, Vec<String>)> = sidecar.facts.iter().map(|f| (f.label.english(), f.lines.clone())).collect();
    assert_eq!(facts[1], ("State", vec!["Waiting".to_owned(), "Reason: CrashLoopBackOff".to_owned()]));
    assert_eq!(
        facts[2],
        (
            "Last State",
            vec![
                "Terminated".into(),
                "Reason: Error".into(),
                "Exit Code: 2".into(),
                "Finished: 2026-11-28T20:06:00Z".into()
            ]
        )
    );
    assert_eq!(facts[3..], [("Ready", vec!["False".to_owned()]), ("Restart Count", vec!["3".to_owned()])]);
}

#[test]
fn an_unscheduled_or_deleted_pod_and_the_qos_kubectl_computes_without_a_status() {
    let mut document = pod().to_serde_json();
    document["spec"].as_object_mut().unwrap().remove("nodeName");
    document["metadata"]["deletionTimestamp"] = "2026-11-28T20:07:00Z".into();
    document["status"].as_object_mut().unwrap().remove("qosClass");
    let glance = glance("", "Pod", &json(document.clone())).unwrap();
    let facts = lines(&glance);
    assert_eq!(facts[1], one("Node", "<none>"));
    assert_eq!(facts[3], one("Status", "Terminating (since 2026-11-28T20:07:00Z)"));
    // api requests without limits: Burstable.
    assert_eq!(facts.last().unwrap(), &one("QoS Class", "Burstable"));
    let containers = |specs: serde_json::Value| {
        let mut d = document.clone();
        d["spec"]["containers"] = specs;
        lines(&super::glance("", "Pod", &json(d)).unwrap()).last().unwrap().1[0].clone()
    };
    assert_eq!(containers(serde_json::json!([{"name": "a"}, {"name": "b", "resources": {}}])), "BestEffort");
    let limited = serde_json::json!({"limits": {"cpu": "1", "memory": "1Gi"}});
    assert_eq!(containers(serde_json::json!([{"name": "a", "resources": limited}])), "Guaranteed");
    let equal = serde_json::json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}});
    assert_eq!(containers(serde_json::json!([{"name": "a", "resources": equal}])), "Guaranteed");
    let less =
        serde_json::json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}});
    assert_eq!(containers(serde_json::json!([{"name": "a", "resources": less}])), "Burstable");
    assert_eq!(containers(serde_json::json!([{"name": "a", "resources": equal}, {"name": "b"}])), "Burstable");
}

#[test]
fn a_deployments_replicas_and_strategy_read_as_describe_prints_them() {
    let deployment = json(serde_json::json!({"kind": "Deployment",
        "spec": {"replicas": 3, "selector": {"matchLabels": {"tier": "web", "app": "shop"},
                 "matchExpressions": [{"key": "track", "operator": "In", "values": ["stable", "canary"]},
                                      {"key": "legacy", "operator": "DoesNotExist"}]},
                 "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "50%"}}},
        "status": {"replicas": 4, "updatedReplicas": 2, "availableReplicas": 3, "unavailableReplicas": 1}}));
    assert_eq!(
        lines(&glance("apps", "Deployment", &deployment).unwrap()),
        [
            one("Selector", "app=shop,tier=web,track in (stable,canary),!legacy"),
            one("Replicas", "3 desired | 2 updated | 4 total | 3 available | 1 unavailable"),
            one("StrategyType", "RollingUpdate"),
            one("MinReadySeconds", "0"),
            one("RollingUpdateStrategy", "1 max unavailable, 50% max surge"),
        ]
    );
    let recreate = json(serde_json::json!({"spec": {"strategy": {"type": "Recreate"}}}));
    let facts = lines(&glance("apps", "Deployment", &recreate).unwrap());
    assert_eq!(facts[0], one("Selector", "<none>"));
    assert_eq!(facts[1], one("Replicas", "1 desired | 0 updated | 0 total | 0 available | 0 unavailable"));
    assert_eq!(facts.len(), 4, "no rolling update line for Recreate");
}

#[test]
fn a_services_ports_and_a_nodes_resources() {
    let service = json(serde_json::json!({"spec": {"selector": {"app": "api"}, "type": "NodePort",
        "clusterIP": "10.96.3.80", "clusterIPs": ["10.96.3.80"],
        "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP", "nodePort": 30080},
                  {"port": 53, "targetPort": "dns", "protocol": "UDP"}],
        "sessionAffinity": "None"}}));
    assert_eq!(
        lines(&glance("", "Service", &service).unwrap()),
        [
            one("Selector", "app=api"),
            one("Type", "NodePort"),
            one("IP", "10.96.3.80"),
            one("IPs", "10.96.3.80"),
            one("Port", "http  80/TCP"),
            one("TargetPort", "8080/TCP"),
            one("NodePort", "http  30080/TCP"),
            one("Port", "<unset>  53/UDP"),
            one("TargetPort", "dns/UDP"),
            one("Session Affinity", "None"),
        ]
    );
    let node = json(serde_json::json!({"spec": {"podCIDR": "10.244.0.0/24"},
        "status": {"addresses": [{"type": "InternalIP", "address": "172.18.0.2"}, {"type": "Hostname", "address": "node-1"}],
            "capacity": {"pods": "110", "cpu": "8", "memory": "16318548Ki"},
            "allocatable": {"cpu": "7800m", "memory": "16Gi", "pods": "110"},
            "nodeInfo": {"osImage": "Debian GNU/Linux 12 (bookworm)", "containerRuntimeVersion": "containerd://2.1.1", "kubeletVersion": "v1.36.3"}}}));
    let facts = lines(&glance("", "Node", &node).unwrap());
    assert_eq!(facts[0], one("Unschedulable", "false"));
    assert_eq!(facts[1].1, ["InternalIP: 172.18.0.2", "Hostname: node-1"]);
    assert_eq!(facts[2].1, ["cpu: 8", "memory: 16318548Ki", "pods: 110"], "sorted as describe prints them");
    assert_eq!(facts[3].1, ["cpu: 7800m", "memory: 16Gi", "pods: 110"]);
    assert_eq!(facts[6], one("Kubelet Version", "v1.36.3"));
    assert_eq!(facts[7], one("PodCIDR", "10.244.0.0/24"));
    assert_eq!(glance("", "ConfigMap", &node), None);
}

#[test]
fn a_jobs_pods_by_state_as_describe_job_prints_them() {
    let job = json(serde_json::json!({"kind": "Job",
        "metadata": {"ownerReferences": [{"kind": "CronJob", "name": "report", "controller": true}]},
        "spec": {"parallelism": 1, "completions": 1, "completionMode": "NonIndexed", "suspend": false, "backoffLimit": 6},
        "status": {"startTime": "2026-11-28T20:43:10Z", "active": 1, "ready": 0}}));
    assert_eq!(
        lines(&glance("batch", "Job", &job).unwrap()),
        [
            one("Controlled By", "CronJob/report"),
            one("Parallelism", "1"),
            one("Completions", "1"),
            one("Completion Mode", "NonIndexed"),
            one("Suspend", "false"),
            one("Backoff Limit", "6"),
            one("Start Time", "2026-11-28T20:43:10Z"),
            one("Pods Statuses", "1 Active (0 Ready) / 0 Succeeded / 0 Failed"),
        ]
    );
    let done = json(serde_json::json!({"spec": {},
        "status": {"startTime": "2026-11-28T20:43:10Z", "completionTime": "2026-11-28T20:43:15Z", "succeeded": 1, "ready": 0}}));
    let facts = lines(&glance("batch", "Job", &done).unwrap());
    assert_eq!(facts[1], one("Completions", "<unset>"));
    assert_eq!(facts[6], one("Completed At", "2026-11-28T20:43:15Z"));
    assert_eq!(facts[7], one("Pods Statuses", "0 Active (0 Ready) / 1 Succeeded / 0 Failed"));
}
