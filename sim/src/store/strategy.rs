//! What kube-apiserver's registry strategies add to an object beyond its defaults, for the
//! kinds kube-sim's controllers run: a Job's generated selector and pod labels
//! (`pkg/registry/batch/job/strategy.go`, `generateSelector`), and a DaemonSet's template
//! generation, which apps/v1 keeps in the `deprecated.daemonset.template.generation`
//! annotation (`pkg/registry/apps/daemonset/strategy.go`, bumped when the template changes).
//! A new StatefulSet's status is the empty one its strategy sets, which the JSON of apps/v1
//! writes as `replicas: 0, availableReplicas: 0` (pkg/registry/apps/statefulset/strategy.go,
//! `PrepareForCreate`; the two fields have no `omitempty`). A new pod gets the NoExecute
//! tolerations of the DefaultTolerationSeconds admission plugin
//! (plugin/pkg/admission/defaulttolerationseconds/admission.go). An update of a Service keeps
//! the addresses it was given (`rules::service::keep_allocated`).

use serde_json::{json, Value};

use crate::store::object::{self, meta_mut};
use crate::store::registry::ResourceType;

pub const TEMPLATE_GENERATION: &str = "deprecated.daemonset.template.generation";

/// A new object of `rt`, once it has its uid.
pub fn prepare_create(rt: &ResourceType, obj: &mut Value) {
    match (rt.group.as_str(), rt.kind.as_str()) {
        ("batch", "Job") => job_selector(obj),
        ("apps", "DaemonSet") => {
            let annotations = meta_mut(obj).entry("annotations").or_insert_with(|| json!({}));
            if let Some(a) = annotations.as_object_mut() {
                a.insert(TEMPLATE_GENERATION.into(), json!("1"));
            }
        }
        ("apps", "StatefulSet") => obj["status"] = json!({"replicas": 0, "availableReplicas": 0}),
        ("", "Pod") => default_toleration_seconds(obj),
        _ => {}
    }
}

/// The taints DefaultTolerationSeconds tolerates for 300 s unless the pod tolerates them
/// already (a toleration of the key with effect NoExecute or any effect).
fn default_toleration_seconds(pod: &mut Value) {
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else { return };
    let list = spec.entry("tolerations").or_insert_with(|| json!([]));
    if !list.is_array() {
        *list = json!([]);
    }
    let Some(list) = list.as_array_mut() else { return };
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        let tolerated = list.iter().any(|t| {
            let effect_matches = t["effect"].as_str().is_none_or(|e| e.is_empty() || e == "NoExecute");
            let key_matches =
                t["key"] == key || (t["key"].as_str().is_none_or(str::is_empty) && t["operator"] == "Exists");
            effect_matches && key_matches
        });
        if !tolerated {
            list.push(json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
        }
    }
}

/// A new version of an object of `rt` replacing `old`.
pub fn prepare_update(rt: &ResourceType, old: &Value, new: &mut Value) {
    if (rt.group.as_str(), rt.kind.as_str()) == ("", "Service") {
        crate::rules::service::keep_allocated(old, new);
    }
    if (rt.group.as_str(), rt.kind.as_str()) != ("apps", "DaemonSet") {
        return;
    }
    let current: i64 =
        old["metadata"]["annotations"][TEMPLATE_GENERATION].as_str().and_then(|g| g.parse().ok()).unwrap_or(1);
    let next = if old["spec"]["template"] != new["spec"]["template"] { current + 1 } else { current };
    let annotations = meta_mut(new).entry("annotations").or_insert_with(|| json!({}));
    if !annotations.is_object() {
        *annotations = json!({});
    }
    if let Some(a) = annotations.as_object_mut() {
        a.insert(TEMPLATE_GENERATION.into(), json!(next.to_string()));
    }
}

/// `generateSelector`: unless `spec.manualSelector`, the pods get the Job's uid and name as
/// labels (the `batch.kubernetes.io/` ones and the legacy ones) and the selector is the uid
/// label; a Job without labels takes its template's (`SetDefaults_Job`, run again when the
/// stored object is read, so the generated labels show).
fn job_selector(job: &mut Value) {
    if job["spec"]["manualSelector"] == true || !job["spec"].is_object() {
        return;
    }
    let uid = object::uid(job).to_string();
    let name = object::name(job).to_string();
    let labels = [
        ("batch.kubernetes.io/controller-uid", uid.clone()),
        ("batch.kubernetes.io/job-name", name.clone()),
        ("controller-uid", uid.clone()),
        ("job-name", name),
    ];
    for (k, v) in &labels {
        object::set_at(job, &["spec", "template", "metadata", "labels", k], json!(v));
    }
    if job["spec"]["selector"].is_null() {
        job["spec"]["selector"] = json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}});
    }
    let has_labels = object::labels(job).is_some_and(|l| !l.is_empty());
    if !has_labels {
        let template_labels = job["spec"]["template"]["metadata"]["labels"].clone();
        meta_mut(job).insert("labels".into(), template_labels);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::registry::Registry;

    #[test]
    fn a_job_gets_its_selector_and_pod_labels_from_its_uid_and_name() {
        let registry = Registry::load().expect("registry");
        let jobs = registry.find("batch", "v1", "jobs").expect("jobs");
        let mut job = json!({"metadata": {"name": "pi", "uid": "u-1"}, "spec": {"template": {"spec": {}}}});
        prepare_create(&jobs, &mut job);
        assert_eq!(job["spec"]["selector"], json!({"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}}));
        let labels = &job["spec"]["template"]["metadata"]["labels"];
        assert_eq!(labels["batch.kubernetes.io/job-name"], "pi");
        assert_eq!(labels["controller-uid"], "u-1");
        assert_eq!(job["metadata"]["labels"], *labels, "a Job without labels takes its pods'");
        let mut manual = json!({"metadata": {"name": "m", "uid": "u-2"}, "spec": {"manualSelector": true}});
        prepare_create(&jobs, &mut manual);
        assert!(manual["spec"]["selector"].is_null());
    }

    #[test]
    fn a_daemon_sets_template_generation_moves_with_its_template() {
        let registry = Registry::load().expect("registry");
        let ds = registry.find("apps", "v1", "daemonsets").expect("daemonsets");
        let mut old =
            json!({"metadata": {"name": "a"}, "spec": {"template": {"spec": {"containers": [{"image": "a:1"}]}}}});
        prepare_create(&ds, &mut old);
        assert_eq!(old["metadata"]["annotations"][TEMPLATE_GENERATION], "1");
        let mut same = old.clone();
        same["spec"]["minReadySeconds"] = json!(5);
        prepare_update(&ds, &old, &mut same);
        assert_eq!(same["metadata"]["annotations"][TEMPLATE_GENERATION], "1");
        let mut changed = old.clone();
        changed["spec"]["template"]["spec"]["containers"][0]["image"] = json!("a:2");
        prepare_update(&ds, &old, &mut changed);
        assert_eq!(changed["metadata"]["annotations"][TEMPLATE_GENERATION], "2");
    }
}
