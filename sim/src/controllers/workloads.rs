//! The demo's other workloads, so that a newcomer sees them run: a StatefulSet `shop/db` behind
//! its headless Service, the `kube-system/kube-proxy` DaemonSet (one pod a node, what `kubectl
//! drain --ignore-daemonsets` skips), a PodDisruptionBudget `demo/web` (two of web's three pods
//! must stay up: a drain may take one) and a CronJob `shop/report` that runs every minute. Only
//! the objects are loaded: the controllers make their pods, revisions and Jobs once the server
//! runs, as they would after `kubectl apply`.

use serde_json::{json, Value};

use crate::store::registry::Registry;
use crate::store::Txn;

pub fn load(txn: &mut Txn<'_>, registry: &Registry) {
    let add = |txn: &mut Txn<'_>, key: &str, mut obj: Value| {
        let Some(rt) = registry.by_storage_key(key) else { return };
        crate::rules::defaults::apply(&rt, &mut obj);
        crate::store::lifecycle::stamp_new(&rt, &mut obj, "kubectl-client-side-apply");
        txn.put(key, obj);
    };
    add(
        txn,
        "/services",
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db", "namespace": "shop", "labels": {"app": "db"}},
            "spec": {"clusterIP": "None", "clusterIPs": ["None"], "type": "ClusterIP", "selector": {"app": "db"},
                "ports": [{"name": "postgres", "port": 5432, "protocol": "TCP", "targetPort": 5432}]}}),
    );
    add(
        txn,
        "apps/statefulsets",
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "shop", "labels": {"app": "db"}},
            "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "postgres",
                    "image": "postgres:16.4", "ports": [{"name": "postgres", "containerPort": 5432}],
                    "env": [{"name": "POSTGRES_DB", "value": "shop"}],
                    "resources": {"requests": {"cpu": "250m", "memory": "256Mi"}}}]}}}}),
    );
    add(
        txn,
        "apps/daemonsets",
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "kube-proxy", "namespace": "kube-system", "labels": {"k8s-app": "kube-proxy"}},
            "spec": {"selector": {"matchLabels": {"k8s-app": "kube-proxy"}},
                "template": {"metadata": {"labels": {"k8s-app": "kube-proxy"}}, "spec": {"hostNetwork": true,
                    "priorityClassName": "system-node-critical", "serviceAccountName": "kube-proxy",
                    "containers": [{"name": "kube-proxy", "image": "registry.k8s.io/kube-proxy:v1.36.3",
                        "command": ["/usr/local/bin/kube-proxy", "--config=/var/lib/kube-proxy/config.conf", "--hostname-override=$(NODE_NAME)"],
                        "env": [{"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}],
                        "securityContext": {"privileged": true}}]}}}}),
    );
    add(
        txn,
        "policy/poddisruptionbudgets",
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "demo"},
            "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}}),
    );
    add(
        txn,
        "batch/cronjobs",
        json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "report", "namespace": "shop"},
            "spec": {"schedule": "*/1 * * * *", "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never",
                "containers": [{"name": "report", "image": "busybox:1.37", "command": ["sh", "-c", "date; echo report written"]}]}}}}}}),
    );
}
