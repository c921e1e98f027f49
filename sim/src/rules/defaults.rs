//! Defaults kube-apiserver fills into built-in objects on every write (the `SetDefaults_*`
//! functions of k8s.io/kubernetes/pkg/apis/{apps,core}/v1), for the kinds kube-sim runs:
//! Deployments and ReplicaSets (replicas, strategy, history and progress deadline), StatefulSets,
//! DaemonSets, Jobs and CronJobs (strategies, limits, policies), and the pod
//! spec of Pods and of every pod template (restart and DNS policy, scheduler, grace period,
//! security context, and each container's termination message, pull policy and port protocol).
//! A field the client gave is never changed.

use serde_json::{json, Map, Value};

use crate::store::registry::ResourceType;

/// Fills the defaults of `obj`, a `rt` object, as kube-apiserver does before storing it.
pub fn apply(rt: &ResourceType, obj: &mut Value) {
    match (rt.group.as_str(), rt.kind.as_str()) {
        ("apps", "Deployment") => {
            deployment(obj);
            template(obj);
        }
        ("apps", "ReplicaSet") => {
            default(&mut obj["spec"], "replicas", json!(1));
            template(obj);
        }
        ("apps", "StatefulSet") => {
            stateful_set(obj);
            template(obj);
        }
        ("apps", "DaemonSet") => {
            daemon_set(obj);
            template(obj);
        }
        ("batch", "Job") => {
            job(obj);
            template(obj);
        }
        ("", "PodTemplate") | ("", "ReplicationController") => template(obj),
        ("batch", "CronJob") => {
            cron_job(obj);
            if let Some(job) = obj.pointer_mut("/spec/jobTemplate") {
                template(job);
            }
        }
        ("", "Service") => crate::rules::service::defaults(obj),
        ("", "Pod") => {
            if let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) {
                pod_spec(spec);
                default(spec, "enableServiceLinks", json!(true));
            }
        }
        _ => {}
    }
}

/// Sets `key` of an object to `value` if it is absent (or null).
fn default(obj: &mut Value, key: &str, value: Value) {
    if let Some(m) = obj.as_object_mut() {
        if m.get(key).is_none_or(Value::is_null) {
            m.insert(key.to_string(), value);
        }
    }
}

/// `SetDefaults_Deployment`.
fn deployment(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else { return };
    default(spec, "replicas", json!(1));
    default(spec, "strategy", json!({}));
    let strategy = &mut spec["strategy"];
    default(strategy, "type", json!("RollingUpdate"));
    if strategy["type"] == "RollingUpdate" {
        default(strategy, "rollingUpdate", json!({}));
        default(&mut strategy["rollingUpdate"], "maxUnavailable", json!("25%"));
        default(&mut strategy["rollingUpdate"], "maxSurge", json!("25%"));
    }
    default(spec, "revisionHistoryLimit", json!(10));
    default(spec, "progressDeadlineSeconds", json!(600));
}

/// `SetDefaults_StatefulSet` (apps/v1): ordered pod management, a RollingUpdate from partition
/// 0, one replica, ten revisions kept, PVCs retained.
fn stateful_set(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else { return };
    default(spec, "podManagementPolicy", json!("OrderedReady"));
    default(spec, "updateStrategy", json!({}));
    let strategy = &mut spec["updateStrategy"];
    default(strategy, "type", json!("RollingUpdate"));
    if strategy["type"] == "RollingUpdate" {
        default(strategy, "rollingUpdate", json!({}));
        default(&mut strategy["rollingUpdate"], "partition", json!(0));
    }
    default(spec, "replicas", json!(1));
    default(spec, "revisionHistoryLimit", json!(10));
    default(spec, "persistentVolumeClaimRetentionPolicy", json!({}));
    let retention = &mut spec["persistentVolumeClaimRetentionPolicy"];
    default(retention, "whenDeleted", json!("Retain"));
    default(retention, "whenScaled", json!("Retain"));
}

/// `SetDefaults_DaemonSet`: a RollingUpdate of one unavailable pod and no surge, ten revisions.
fn daemon_set(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else { return };
    default(spec, "updateStrategy", json!({}));
    let strategy = &mut spec["updateStrategy"];
    default(strategy, "type", json!("RollingUpdate"));
    if strategy["type"] == "RollingUpdate" {
        default(strategy, "rollingUpdate", json!({}));
        default(&mut strategy["rollingUpdate"], "maxUnavailable", json!(1));
        default(&mut strategy["rollingUpdate"], "maxSurge", json!(0));
    }
    default(spec, "revisionHistoryLimit", json!(10));
}

/// `SetDefaults_Job`: one completion at a time when neither is given, six retries, NonIndexed,
/// not suspended, replacing terminating or failed pods.
fn job(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else { return };
    if spec["completions"].is_null() && spec["parallelism"].is_null() {
        spec["completions"] = json!(1);
    }
    default(spec, "parallelism", json!(1));
    default(spec, "backoffLimit", json!(6));
    default(spec, "completionMode", json!("NonIndexed"));
    default(spec, "suspend", json!(false));
    let policy = if spec["podFailurePolicy"].is_null() { "TerminatingOrFailed" } else { "Failed" };
    default(spec, "podReplacementPolicy", json!(policy));
    default(spec, "manualSelector", json!(false));
}

/// `SetDefaults_CronJob`: concurrency Allow, not suspended, three succeeded and one failed Job
/// kept.
fn cron_job(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else { return };
    default(spec, "concurrencyPolicy", json!("Allow"));
    default(spec, "suspend", json!(false));
    default(spec, "successfulJobsHistoryLimit", json!(3));
    default(spec, "failedJobsHistoryLimit", json!(1));
}

/// The pod template under `spec.template`.
fn template(obj: &mut Value) {
    if let Some(spec) = obj.pointer_mut("/spec/template/spec").filter(|s| s.is_object()) {
        pod_spec(spec);
    }
}

/// `SetDefaults_PodSpec` and, for each container, `SetDefaults_Container` and
/// `SetDefaults_ContainerPort`.
fn pod_spec(spec: &mut Value) {
    default(spec, "dnsPolicy", json!("ClusterFirst"));
    default(spec, "restartPolicy", json!("Always"));
    default(spec, "terminationGracePeriodSeconds", json!(30));
    default(spec, "securityContext", json!({}));
    default(spec, "schedulerName", json!("default-scheduler"));
    for list in ["initContainers", "containers"] {
        // `get_mut`: indexing would add the missing list as null.
        for c in spec.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
            container(c);
        }
    }
}

fn container(c: &mut Value) {
    default(c, "terminationMessagePath", json!("/dev/termination-log"));
    default(c, "terminationMessagePolicy", json!("File"));
    let pull = match c["image"].as_str() {
        Some(image) if pulls_always(image) => "Always",
        _ => "IfNotPresent",
    };
    default(c, "imagePullPolicy", json!(pull));
    default(c, "resources", Value::Object(Map::new()));
    for p in c.get_mut("ports").and_then(Value::as_array_mut).into_iter().flatten() {
        default(p, "protocol", json!("TCP"));
    }
}

/// An image without a tag, or tagged `latest` (and not pinned by digest), is pulled every time.
fn pulls_always(image: &str) -> bool {
    if image.contains('@') {
        return false;
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.split_once(':') {
        None => true,
        Some((_, tag)) => tag == "latest",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::registry::Registry;

    #[test]
    fn a_deployment_from_kubectl_create_gets_the_server_defaults_and_keeps_what_it_gave() {
        let registry = Registry::load().expect("registry loads");
        let rt = registry.find("apps", "v1", "deployments").expect("deployments");
        let mut dep = json!({"spec": {"replicas": 0, "selector": {"matchLabels": {"app": "x"}},
            "template": {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [
                {"name": "a", "image": "nginx", "ports": [{"containerPort": 80}]},
                {"name": "b", "image": "registry:5000/b:1.2", "imagePullPolicy": "Never"}]}}}});
        apply(&rt, &mut dep);
        let spec = &dep["spec"];
        assert_eq!(spec["replicas"], 0, "a given zero stays");
        assert_eq!(
            spec["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        );
        assert_eq!(
            (spec["revisionHistoryLimit"].clone(), spec["progressDeadlineSeconds"].clone()),
            (json!(10), json!(600))
        );
        let pod = &spec["template"]["spec"];
        assert_eq!(pod["restartPolicy"], "Always");
        assert_eq!(pod["dnsPolicy"], "ClusterFirst");
        assert_eq!(pod["schedulerName"], "default-scheduler");
        assert_eq!(pod["terminationGracePeriodSeconds"], 30);
        assert_eq!(pod["containers"][0]["imagePullPolicy"], "Always", "no tag means latest");
        assert_eq!(pod["containers"][0]["ports"][0]["protocol"], "TCP");
        assert_eq!(pod["containers"][0]["terminationMessagePolicy"], "File");
        assert_eq!(pod["containers"][1]["imagePullPolicy"], "Never");
        assert!(pod.get("enableServiceLinks").is_none(), "only pods get enableServiceLinks");
    }

    #[test]
    fn a_recreate_deployment_gets_no_rolling_update_parameters() {
        let registry = Registry::load().expect("registry loads");
        let rt = registry.find("apps", "v1", "deployments").expect("deployments");
        let mut dep = json!({"spec": {"strategy": {"type": "Recreate"}}});
        apply(&rt, &mut dep);
        assert_eq!(dep["spec"]["strategy"], json!({"type": "Recreate"}));
        assert_eq!(dep["spec"]["replicas"], 1);
    }

    #[test]
    fn images_pulled_every_time() {
        for (image, always) in [
            ("nginx", true),
            ("nginx:latest", true),
            ("nginx:1.27", false),
            ("host:5000/app", true),
            ("a@sha256:ab", false),
        ] {
            assert_eq!(pulls_always(image), always, "{image}");
        }
    }
}
