//! ControllerRevisions as `pkg/controller/history` and the StatefulSet and DaemonSet controllers
//! write them: `data` is the strategic merge patch that puts the owner's pod template back
//! (`{"spec":{"template":{"$patch":"replace",…}}}`, keys sorted as Go's `json.Marshal` of a
//! map writes them: what `getPatch` of both controllers returns and what `kubectl rollout undo`
//! sends back), `revision` numbers them, and the name is `<owner>-<hash>`: for a StatefulSet
//! the FNV-1 hash of the data and the collision count (`HashControllerRevision`), for a
//! DaemonSet the FNV-1a hash of its template (`controller.ComputeHash`, the
//! `controller-revision-hash` its pods carry), both safe-encoded (`rand.SafeEncodeString`).
//!
//! kube-sim hashes the JSON it stores, not Go's in-memory dump of the template, so the names
//! have the real form but not the real values.

use serde_json::{json, Value};

use crate::controllers::control::{controller_ref, fnv1_32, fnv1a_32, int, safe_encode, Actions, REVISIONS};
use crate::store::object;

/// The label with a StatefulSet revision's hash (`history.ControllerRevisionHashLabel`).
pub const HASH_LABEL: &str = "controller.kubernetes.io/hash";
/// The pod label naming its revision (`apps.ControllerRevisionHashLabelKey`): the revision's
/// name for a StatefulSet, its hash for a DaemonSet.
pub const POD_REVISION_LABEL: &str = "controller-revision-hash";

/// `getPatch`: the revision data of an owner's current pod template.
pub fn template_patch(owner: &Value) -> Value {
    let mut template = owner["spec"]["template"].clone();
    if !template.is_object() {
        template = json!({});
    }
    template["$patch"] = json!("replace");
    json!({"spec": {"template": template}})
}

/// The pod template a revision's data restores.
pub fn template_of(revision: &Value) -> Value {
    let mut template = revision["data"]["spec"]["template"].clone();
    if let Some(m) = template.as_object_mut() {
        m.remove("$patch");
    }
    template
}

/// `ControllerRevisionName`: the owner's name (at most 223 bytes) and the hash.
pub fn revision_name(owner: &Value, hash: &str) -> String {
    let prefix: String = object::name(owner).chars().take(223).collect();
    format!("{prefix}-{hash}")
}

/// `HashControllerRevision` of a StatefulSet revision's data with the collision count.
pub fn data_hash(data: &Value, collision_count: i64) -> String {
    let mut bytes = serde_json::to_vec(data).unwrap_or_default();
    bytes.extend(collision_count.to_string().bytes());
    safe_encode(fnv1_32(&bytes))
}

/// `controller.ComputeHash` of a pod template (the collision count only once there was one).
pub fn template_hash(template: &Value, collision_count: Option<i64>) -> String {
    let mut bytes = serde_json::to_vec(template).unwrap_or_default();
    if let Some(c) = collision_count {
        bytes.extend((c as u32).to_le_bytes());
    }
    safe_encode(fnv1a_32(&bytes))
}

/// A new ControllerRevision of `owner` (`history.NewControllerRevision`).
pub fn new_revision(owner: &Value, name: &str, labels: Value, data: Value, number: i64) -> Value {
    let mut meta = json!({"name": name, "namespace": object::namespace(owner), "labels": labels,
        "ownerReferences": [controller_ref(owner)]});
    if let Some(a) = owner["metadata"]["annotations"].as_object().filter(|a| !a.is_empty()) {
        meta["annotations"] = json!(a);
    }
    json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": meta, "data": data, "revision": number})
}

pub fn number(revision: &Value) -> i64 {
    int(&revision["revision"], 0)
}

/// `history.SortControllerRevisions`: by number, then age, then name.
pub fn sort(revisions: &mut [Value]) {
    revisions.sort_by(|a, b| {
        let key = |r: &Value| {
            (
                number(r),
                r["metadata"]["creationTimestamp"].as_str().unwrap_or_default().to_string(),
                object::name(r).to_string(),
            )
        };
        key(a).cmp(&key(b))
    });
}

/// The revision a controller runs its template at: the newest equal one (made the newest again,
/// as after `kubectl rollout undo`, if it is not), or `candidate`, created. `revisions` are
/// sorted.
pub fn update_revision(revisions: &[Value], candidate: Value, actions: &mut Actions) -> Value {
    let next = revisions.last().map(number).unwrap_or(0) + 1;
    let equal = revisions.iter().rev().find(|r| r["data"] == candidate["data"]);
    match equal {
        Some(eq) if revisions.last().is_some_and(|last| object::name(last) == object::name(eq)) => eq.clone(),
        Some(eq) => {
            let mut bumped = eq.clone();
            bumped["revision"] = json!(next);
            actions.updates.push((REVISIONS, bumped.clone()));
            bumped
        }
        None => {
            let mut created = candidate;
            created["revision"] = json!(next);
            actions.creates.push((REVISIONS, created.clone()));
            created
        }
    }
}

/// `truncateHistory`: deletes the oldest revisions that no pod and neither the current nor the
/// update revision uses, beyond `limit`.
pub fn truncate(revisions: &[Value], live: &[String], limit: i64, actions: &mut Actions) {
    let old: Vec<&Value> = revisions.iter().filter(|r| !live.iter().any(|l| l == object::name(r))).collect();
    let excess = old.len() as i64 - limit.max(0);
    for r in old.into_iter().take(excess.max(0) as usize) {
        actions.delete(REVISIONS, r, Some(0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> Value {
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "web", "namespace": "demo", "uid": "u1", "annotations": {"kubernetes.io/change-cause": "v2"}},
            "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}}})
    }

    #[test]
    fn the_data_replaces_the_template_and_serializes_with_sorted_keys_as_get_patch_does() {
        let data = template_patch(&set());
        assert_eq!(
            serde_json::to_string(&data).expect("json"),
            r#"{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.27","name":"c"}]}}}}"#
        );
        assert_eq!(template_of(&json!({"data": data})), set()["spec"]["template"]);
        let name = revision_name(&set(), &data_hash(&data, 0));
        assert!(name.starts_with("web-") && name.len() > 8, "{name}");
        assert!(name[4..].chars().all(|c| "456789bcdf".contains(c)), "{name}");
    }

    #[test]
    fn an_equal_older_revision_is_renumbered_instead_of_copied() {
        let owner = set();
        let mk = |image: &str, n: i64| {
            let mut s = owner.clone();
            s["spec"]["template"]["spec"]["containers"][0]["image"] = json!(image);
            new_revision(&s, &format!("web-{n}"), json!({}), template_patch(&s), n)
        };
        let revisions = vec![mk("nginx:1.27", 1), mk("nginx:1.28", 2)];
        let mut actions = Actions::default();
        let back = update_revision(&revisions, mk("nginx:1.27", 0), &mut actions);
        assert_eq!((object::name(&back), number(&back)), ("web-1", 3));
        assert_eq!(actions.transcript(), ["update ControllerRevision web-1"]);
        let mut actions = Actions::default();
        let same = update_revision(&revisions, mk("nginx:1.28", 0), &mut actions);
        assert_eq!((object::name(&same), actions.is_empty()), ("web-2", true));
        let mut actions = Actions::default();
        let new = update_revision(&revisions, mk("nginx:1.29", 0), &mut actions);
        assert_eq!(number(&new), 3);
        assert_eq!(new["metadata"]["annotations"]["kubernetes.io/change-cause"], "v2");
        assert_eq!(actions.transcript(), ["create ControllerRevision web-0"]);
    }

    #[test]
    fn history_keeps_the_live_revisions_and_the_newest_others() {
        let revisions: Vec<Value> =
            (1..=5).map(|n| json!({"metadata": {"name": format!("r{n}")}, "revision": n})).collect();
        let mut actions = Actions::default();
        truncate(&revisions, &["r1".into(), "r5".into()], 2, &mut actions);
        assert_eq!(actions.transcript(), ["delete ControllerRevision r2"]);
    }
}
