//! The initial objects: `demo` (a small living cluster), `empty` (system namespaces and the CRD)
//! and `scale:N` (demo plus N realistic pods spread over ten namespaces). Objects are created
//! through the same stamping as API creates, so they carry uid, timestamps and managedFields.

use rand::Rng;
use serde_json::{json, Value};

use crate::cli::Dataset;
use crate::store::lifecycle::stamp_new;
use crate::store::registry::{Registry, WIDGETS_CRD};
use crate::store::Txn;

const SYSTEM_NAMESPACES: &[&str] = &["default", "kube-system", "kube-public", "kube-node-lease"];

/// Adds an object created by `manager` to the store, stamped as a create would.
pub fn add(txn: &mut Txn<'_>, registry: &Registry, key: &str, mut obj: Value, manager: &str) -> Option<Value> {
    let rt = registry.by_storage_key(key)?;
    // Stored as a real server would have stored it.
    crate::rules::defaults::apply(&rt, &mut obj);
    stamp_new(&rt, &mut obj, manager);
    Some((*txn.put(key, obj)).clone())
}

/// Loads `dataset`; with `metrics`, also what installing metrics-server adds (its APIService and
/// the ClusterRole that aggregates metrics into `view`, and with a dataset its Deployment, pod
/// and Service in kube-system).
pub fn load(txn: &mut Txn<'_>, registry: &Registry, dataset: Dataset, metrics: bool) {
    for ns in SYSTEM_NAMESPACES {
        add(txn, registry, "/namespaces", namespace(ns), "kube-apiserver");
    }
    if let Ok(mut crd) = serde_json::from_str::<Value>(WIDGETS_CRD) {
        if crate::store::lifecycle::prepare_crd(&mut crd).is_ok() {
            add(txn, registry, "apiextensions.k8s.io/customresourcedefinitions", crd, "kubectl-create");
        }
    }
    let mut rbac = crate::controllers::policy::bootstrap();
    match dataset {
        Dataset::Empty => {}
        Dataset::Demo => demo(txn, registry),
        Dataset::Scale(n) => {
            demo(txn, registry);
            scale(txn, registry, n);
        }
    }
    if dataset != Dataset::Empty {
        rbac.extend(crate::controllers::policy::demo());
    }
    if metrics {
        rbac.extend(crate::controllers::metrics::seeds(&crate::store::object::now_string()));
        if dataset != Dataset::Empty {
            // The Service the APIService names, and the Deployment behind it, as metrics-server's
            // release manifest (components.yaml, v0.8.0) installs them: port 443 to the pod's 10250.
            let image = "registry.k8s.io/metrics-server/metrics-server:v0.8.0";
            deployment_with_pods(txn, registry, "kube-system", "metrics-server", image, 1, 10250);
            let selector = json!({"app": "metrics-server"});
            let svc = service("kube-system", "metrics-server", "10.96.14.243", selector, 443, 10250);
            add(txn, registry, "/services", svc, "kubectl-client-side-apply");
        }
    }
    for (key, obj, manager) in rbac {
        add(txn, registry, key, obj, manager);
    }
    crate::controllers::policy::aggregate(txn);
    txn.forget_history();
}

pub fn namespace(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
        "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
}

fn demo(txn: &mut Txn<'_>, registry: &Registry) {
    for ns in ["demo", "shop"] {
        add(txn, registry, "/namespaces", namespace(ns), "kubectl-create");
    }
    for ns in SYSTEM_NAMESPACES.iter().chain(&["demo", "shop"]) {
        add(
            txn,
            registry,
            "/serviceaccounts",
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": ns}}),
            "kube-controller-manager",
        );
        add(
            txn,
            registry,
            "/configmaps",
            json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kube-root-ca.crt", "namespace": ns, "annotations": {"kubernetes.io/description": "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."}},
            "data": {"ca.crt": "-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIBADAKBggqhkjOPQQDAjAjMSEwHwYDVQQDDBhrM3Mtc2Vy\n-----END CERTIFICATE-----\n"}}),
            "kube-root-ca-cert-publisher",
        );
    }
    for (i, name) in ["node-1", "node-2", "node-3"].iter().enumerate() {
        add(txn, registry, "/nodes", node(name, i), "kubelet");
        add(
            txn,
            registry,
            "coordination.k8s.io/leases",
            json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": "kube-node-lease"},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": crate::store::object::micro_timestamp(crate::store::object::now())}}),
            "kubelet",
        );
    }
    add(
        txn,
        registry,
        "coordination.k8s.io/leases",
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
        "spec": {"holderIdentity": "node-1_3b1f", "leaseDurationSeconds": 15, "leaseTransitions": 0, "renewTime": crate::store::object::micro_timestamp(crate::store::object::now())}}),
        "kube-scheduler",
    );
    add(
        txn,
        registry,
        "/services",
        service("default", "kubernetes", "10.96.0.1", json!(null), 443, 6443),
        "kube-apiserver",
    );
    // Each Service its own cluster IP (kube-dns at kubeadm's 10.96.0.10).
    for (ns, name, image, replicas, port, ip) in [
        ("demo", "web", "nginx:1.27", 3, 80, "10.96.3.80"),
        ("demo", "api", "ghcr.io/example/api:2.4.1", 2, 8080, "10.96.3.180"),
        ("shop", "cart", "ghcr.io/example/cart:1.9.0", 2, 8080, "10.96.4.80"),
        ("kube-system", "coredns", "registry.k8s.io/coredns/coredns:v1.12.0", 2, 53, "10.96.0.10"),
    ] {
        deployment_with_pods(txn, registry, ns, name, image, replicas, port);
        let svc_name = if name == "coredns" { "kube-dns" } else { name };
        add(txn, registry, "/services", service(ns, svc_name, ip, json!({"app": name}), port, port), "kubectl-expose");
    }
    add(
        txn,
        registry,
        "/configmaps",
        json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "web-config", "namespace": "demo", "labels": {"app": "web"}},
        "data": {"nginx.conf": "server { listen 80; location / { root /usr/share/nginx/html; } }\n", "LOG_LEVEL": "info"}}),
        "kubectl-create",
    );
    add(
        txn,
        registry,
        "/secrets",
        json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "db-credentials", "namespace": "shop"}, "type": "Opaque",
        "data": {"username": "Y2FydA==", "password": "czNjcjN0LXBhc3N3b3Jk"}}),
        "kubectl-create",
    );
    add(
        txn,
        registry,
        "/secrets",
        json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "web-tls", "namespace": "demo"}, "type": "kubernetes.io/tls",
        "data": {"tls.crt": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==", "tls.key": "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCg=="}}),
        "kubectl-create",
    );
    for (ns, name, size, replicas, color, labels) in [
        ("default", "w-01", "small", 1, "red", json!({"app": "demo"})),
        ("default", "w-02", "medium", 2, "blue", json!({"app": "demo", "tier": "back"})),
        ("default", "w-03", "large", 3, "red", json!({"app": "demo", "tier": "front"})),
        ("demo", "w-04", "small", 1, "green", json!({"app": "demo", "tier": "front"})),
        ("demo", "w-05", "medium", 5, "blue", json!({"app": "demo", "tier": "back"})),
    ] {
        add(
            txn,
            registry,
            "example.com/widgets",
            json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": name, "namespace": ns, "labels": labels},
            "spec": {"size": size, "replicas": replicas, "color": color}}),
            "kubectl-client-side-apply",
        );
    }
    crate::controllers::workloads::load(txn, registry);
}

fn node(name: &str, index: usize) -> Value {
    let mut labels =
        json!({"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"});
    if index == 0 {
        labels["node-role.kubernetes.io/control-plane"] = json!("");
    }
    json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
    "spec": {"podCIDR": format!("10.244.{index}.0/24"), "providerID": format!("kind://docker/kind/{name}")},
    "status": {
        "addresses": [{"type": "InternalIP", "address": format!("172.18.0.{}", index + 2)}, {"type": "Hostname", "address": name}],
        "allocatable": {"cpu": "8", "memory": "16318548Ki", "pods": "110", "ephemeral-storage": "102626232Ki"},
        "capacity": {"cpu": "8", "memory": "16318548Ki", "pods": "110", "ephemeral-storage": "102626232Ki"},
        "conditions": [
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory", "message": "kubelet has sufficient memory available", "lastHeartbeatTime": crate::store::object::now_string(), "lastTransitionTime": crate::store::object::now_string()},
            {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure", "message": "kubelet has no disk pressure", "lastHeartbeatTime": crate::store::object::now_string(), "lastTransitionTime": crate::store::object::now_string()},
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status", "lastHeartbeatTime": crate::store::object::now_string(), "lastTransitionTime": crate::store::object::now_string()}
        ],
        "nodeInfo": {"architecture": "amd64", "bootID": crate::store::object::new_uid(), "containerRuntimeVersion": "containerd://2.1.1",
            "kernelVersion": "6.8.0-1015-gcp", "kubeProxyVersion": "", "kubeletVersion": "v1.36.3",
            "machineID": "b2bd6a3c2d3a4bfb9d3b2e4c4b0f6d7e", "operatingSystem": "linux", "osImage": "Debian GNU/Linux 12 (bookworm)",
            "systemUUID": crate::store::object::new_uid()}
    }})
}

fn service(ns: &str, name: &str, ip: &str, selector: Value, port: i64, target: i64) -> Value {
    let mut spec = json!({"type": "ClusterIP", "clusterIP": ip, "clusterIPs": [ip], "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster", "sessionAffinity": "None",
        "ports": [{"name": if port == 443 { "https" } else { "http" }, "port": port, "protocol": "TCP", "targetPort": target}]});
    if !selector.is_null() {
        spec["selector"] = selector;
    }
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": spec, "status": {"loadBalancer": {}}})
}

/// A name suffix in the alphabet Kubernetes uses, derived from `seed` so that the demo cluster
/// has the same names on every start (tests and screenshots can rely on them).
pub fn stable_suffix(seed: &str, len: usize) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (0..len)
        .map(|_| {
            h ^= h >> 33;
            h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
            ALPHABET[(h % ALPHABET.len() as u64) as usize] as char
        })
        .collect()
}

fn deployment_with_pods(
    txn: &mut Txn<'_>,
    registry: &Registry,
    ns: &str,
    name: &str,
    image: &str,
    replicas: i64,
    port: i64,
) {
    let hash = stable_suffix(&format!("{ns}/{name}"), 10);
    let template = json!({"metadata": {"labels": {"app": name, "pod-template-hash": hash}},
        "spec": {"containers": [{"name": name, "image": image, "ports": [{"containerPort": port, "protocol": "TCP"}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}, "imagePullPolicy": "IfNotPresent",
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler"}});
    let mut template = template;
    configure(&mut template["spec"], ns, name);
    let hash_name = format!("{name}-{hash}");
    let now = crate::store::object::now_string();
    let status = json!({"observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas,
    "conditions": [
        {"type": "Available", "status": "True", "lastUpdateTime": now, "lastTransitionTime": now,
            "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability."},
        {"type": "Progressing", "status": "True", "lastUpdateTime": now, "lastTransitionTime": now,
            "reason": "NewReplicaSetAvailable", "message": format!("ReplicaSet \"{hash_name}\" has successfully progressed.")}
    ]});
    let Some(dep) = add(
        txn,
        registry,
        "apps/deployments",
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}, "annotations": {"deployment.kubernetes.io/revision": "1"}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600, "template": {"metadata": {"labels": {"app": name}}, "spec": template["spec"].clone()}},
        "status": status.clone()}),
        "kubectl-create",
    ) else {
        return;
    };
    let rs_name = hash_name;
    let Some(rs) = add(
        txn,
        registry,
        "apps/replicasets",
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": rs_name, "namespace": ns, "labels": {"app": name, "pod-template-hash": hash},
            "annotations": {"deployment.kubernetes.io/desired-replicas": replicas.to_string(), "deployment.kubernetes.io/revision": "1"},
            "ownerReferences": [owner_ref("apps/v1", "Deployment", &dep)]},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name, "pod-template-hash": hash}}, "template": template},
        "status": {"replicas": replicas, "fullyLabeledReplicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas, "observedGeneration": 1}}),
        "kube-controller-manager",
    ) else {
        return;
    };
    let mut first = None;
    for i in 0..replicas {
        let pod = pod_from_template(
            &rs,
            &format!("{rs_name}-{}", stable_suffix(&format!("{rs_name}/{i}"), 5)),
            ns,
            &format!("node-{}", (i % 3) + 1),
            true,
        );
        let stored = add(txn, registry, "/pods", pod, "kube-controller-manager");
        first = first.or(stored);
    }
    // The events tell the story of the first pod.
    let Some(pod) = first else { return };
    let pod_name = pod["metadata"]["name"].as_str().unwrap_or_default().to_string();
    for (reason, message, component) in [
        ("Scheduled", format!("Successfully assigned {ns}/{pod_name} to node-1"), "default-scheduler"),
        ("Pulled", format!("Container image \"{image}\" already present on machine"), "kubelet"),
        ("Created", format!("Created container {name}"), "kubelet"),
        ("Started", format!("Started container {name}"), "kubelet"),
    ] {
        add(txn, registry, "/events", event(&pod, reason, &message, component), component);
    }
}

/// What some demo workloads read from their namespace, so that a shell in them has an
/// environment and files to show: `web` takes its log level and its nginx configuration from the
/// ConfigMap `web-config`, `cart` its database user and credentials from the Secret
/// `db-credentials`, with a limit.
fn configure(spec: &mut Value, ns: &str, name: &str) {
    let (env, volume, mount, limits) = match (ns, name) {
        ("demo", "web") => (
            json!([{"name": "LOG_LEVEL", "valueFrom": {"configMapKeyRef": {"name": "web-config", "key": "LOG_LEVEL"}}},
                {"name": "NGINX_PORT", "value": "80"}]),
            json!({"name": "config", "configMap": {"name": "web-config", "defaultMode": 420,
                "items": [{"key": "nginx.conf", "path": "default.conf"}]}}),
            json!({"name": "config", "mountPath": "/etc/nginx/conf.d", "readOnly": true}),
            None,
        ),
        ("shop", "cart") => (
            json!([{"name": "DB_HOST", "value": "postgres.shop.svc"},
                {"name": "DB_USER", "valueFrom": {"secretKeyRef": {"name": "db-credentials", "key": "username"}}},
                {"name": "DB_URL", "value": "postgres://$(DB_USER)@$(DB_HOST):5432/cart"}]),
            json!({"name": "db-credentials", "secret": {"secretName": "db-credentials", "defaultMode": 420}}),
            json!({"name": "db-credentials", "mountPath": "/etc/db", "readOnly": true}),
            Some(json!({"cpu": "500m", "memory": "256Mi"})),
        ),
        _ => return,
    };
    spec["volumes"] = json!([volume]);
    if let Some(c) = spec["containers"].get_mut(0) {
        c["env"] = env;
        c["volumeMounts"] = json!([mount]);
        if let Some(limits) = limits {
            c["resources"]["limits"] = limits;
        }
    }
}

pub fn owner_ref(api_version: &str, kind: &str, owner: &Value) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true})
}

/// A Normal Event `reason` about `about` (its uid and resourceVersion too, as the recorders
/// write them: `kubectl describe` selects Events by uid) from `component` on node-1.
pub fn event(about: &Value, reason: &str, message: &str, component: &str) -> Value {
    let now = crate::store::object::now_string();
    let meta = &about["metadata"];
    let (ns, object) = (meta["namespace"].as_str().unwrap_or_default(), meta["name"].as_str().unwrap_or_default());
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{object}.{}", stable_suffix(&format!("{ns}/{object}/{reason}"), 16)), "namespace": ns},
        "involvedObject": {"apiVersion": about["apiVersion"], "kind": about["kind"], "name": object, "namespace": ns,
            "uid": meta["uid"], "resourceVersion": meta["resourceVersion"]},
        "reason": reason, "message": message, "type": "Normal", "count": 1,
        "firstTimestamp": now, "lastTimestamp": now, "source": {"component": component, "host": "node-1"},
        "reportingComponent": component, "reportingInstance": "node-1"})
}

/// A pod of a ReplicaSet; `running` decides whether it starts Running and Ready or Pending (on
/// `node`, or unscheduled when `node` is empty).
pub fn pod_from_template(rs: &Value, name: &str, ns: &str, node: &str, running: bool) -> Value {
    let mut pod = lean_pod(rs, name, ns, node, running);
    let spec = &mut pod["spec"];
    spec["tolerations"] = json!([
        {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
        {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}
    ]);
    // The service account volume that admission adds, after the template's own.
    let mut volumes = spec["volumes"].as_array().cloned().unwrap_or_default();
    volumes.push(json!({"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}}));
    spec["volumes"] = Value::Array(volumes);
    if let Some(cs) = spec["containers"].as_array_mut() {
        for c in cs.iter_mut().filter(|c| c.is_object()) {
            let mut mounts = c["volumeMounts"].as_array().cloned().unwrap_or_default();
            mounts.push(json!({"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}));
            c["volumeMounts"] = Value::Array(mounts);
        }
    }
    pod
}

/// A pod without the service-account volume and default tolerations (~2 KB of JSON), for scale:N.
fn lean_pod(rs: &Value, name: &str, ns: &str, node: &str, running: bool) -> Value {
    let template = &rs["spec"]["template"];
    // The template comes from a stored ReplicaSet that a client may have reshaped.
    let mut spec = match &template["spec"] {
        Value::Object(m) => Value::Object(m.clone()),
        _ => json!({}),
    };
    if !node.is_empty() {
        spec["nodeName"] = json!(node);
    }
    spec["serviceAccountName"] = json!("default");
    spec["enableServiceLinks"] = json!(true);
    spec["priority"] = json!(0);
    spec["preemptionPolicy"] = json!("PreemptLowerPriority");
    let mut pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": template["metadata"]["labels"].clone(),
            "ownerReferences": [owner_ref("apps/v1", "ReplicaSet", rs)]},
        "spec": spec, "status": {}});
    pod["status"] = match (running, node.is_empty()) {
        (true, _) => running_status(&pod, node),
        (false, false) => pending_status(),
        (false, true) => json!({"phase": "Pending", "qosClass": "Burstable"}),
    };
    pod
}

pub fn pending_status() -> Value {
    let now = crate::store::object::now_string();
    json!({"phase": "Pending", "qosClass": "Burstable", "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": now}]})
}

/// Running status; ready containers unless `ready` is false (see [`running_status_with`]).
pub fn running_status(pod: &Value, node: &str) -> Value {
    running_status_with(pod, node, true)
}

pub fn running_status_with(pod: &Value, node: &str, ready: bool) -> Value {
    let now = crate::store::object::now_string();
    let mut rng = rand::rng();
    let node_index: u8 = node.trim_start_matches("node-").parse().unwrap_or(1);
    let ip = format!("10.244.{}.{}", node_index.saturating_sub(1), rng.random_range(2..250));
    let ready_str = if ready { "True" } else { "False" };
    let statuses: Vec<Value> = pod["spec"]["containers"].as_array().into_iter().flatten().map(|c| json!({
        "name": c["name"], "image": c["image"], "imageID": format!("{}@sha256:{}", c["image"].as_str().unwrap_or_default(), "4c0fdaa8b6341bfdeca5f18f7837462c80cff90527ee35ef185571e1c327beac"),
        "containerID": format!("containerd://{}", crate::store::object::new_uid().replace('-', "")),
        "ready": ready, "started": true, "restartCount": 0, "state": {"running": {"startedAt": now}}})).collect();
    json!({"phase": "Running", "hostIP": format!("172.18.0.{}", node_index + 1), "hostIPs": [{"ip": format!("172.18.0.{}", node_index + 1)}],
        "podIP": ip, "podIPs": [{"ip": ip}], "qosClass": "Burstable", "startTime": now,
        "conditions": [
            {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": now},
            {"type": "Initialized", "status": "True", "lastTransitionTime": now},
            {"type": "Ready", "status": ready_str, "lastTransitionTime": now},
            {"type": "ContainersReady", "status": ready_str, "lastTransitionTime": now},
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": now}],
        "containerStatuses": statuses})
}

fn scale(txn: &mut Txn<'_>, registry: &Registry, n: usize) {
    let namespaces: Vec<String> = (0..10).map(|i| format!("load-{i}")).collect();
    for ns in &namespaces {
        add(txn, registry, "/namespaces", namespace(ns), "kubectl-create");
    }
    let rs_template: Vec<Value> = namespaces
        .iter()
        .map(|ns| json!({"metadata": {"name": format!("load-{ns}"), "namespace": ns, "uid": crate::store::object::new_uid()},
            "spec": {"template": {"metadata": {"labels": {"app": "load", "tier": "batch"}},
                "spec": {"containers": [{"name": "worker", "image": "ghcr.io/example/worker:3.2.0",
                    "args": ["--queue=jobs", "--concurrency=4"], "env": [{"name": "QUEUE_URL", "value": "amqp://queue.shop.svc:5672"}],
                    "ports": [{"containerPort": 9090, "name": "metrics", "protocol": "TCP"}],
                    "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "250m", "memory": "128Mi"}},
                    "imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
                    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler"}}}}))
        .collect();
    for i in 0..n {
        let ns = &namespaces[i % namespaces.len()];
        let rs = &rs_template[i % namespaces.len()];
        let node = format!("node-{}", (i % 3) + 1);
        let pod = lean_pod(rs, &format!("load-{i:06}"), ns, &node, i % 17 != 0);
        add(txn, registry, "/pods", pod, "kube-controller-manager");
    }
}
