//! Deleting one object, as a small state machine: the answer to the DELETE (a dry run accepted,
//! the object gone, or still there with a `deletionTimestamp` while its finalizers run), then each
//! read of the object while it is being finalized (the finalizers left, gone at the 404, or made
//! again). And counting what a deletecollection would delete, from a metadata-only list. Pure:
//! the client's `use_delete` sends and reads; the view renders [`DeleteProgress`].

use kube_wire::codec::value::Value;

use crate::i18n::{Localized, Msg, Text};
use crate::write::finalizing;

/// Where a deleted object stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeleteProgress {
    /// A dry run the server accepted (`status`): nothing was deleted.
    DryRunAccepted { status: u16 },
    /// Deletion started: the object has a `deletionTimestamp` (`since`) and these finalizers
    /// still to run. The object is read again until it is gone.
    Finalizing { since: String, remaining: Vec<String> },
    /// The object is gone.
    Gone,
    /// While it was followed, an object of its name appeared without a deletion in progress:
    /// made again after the delete.
    MadeAgain,
}

/// What one read of the object being finalized found.
#[derive(Debug, Clone, PartialEq)]
pub enum FollowRead<'a> {
    Found(&'a Value),
    NotFound,
    /// Another failure: read again on the next turn.
    Failed,
}

impl DeleteProgress {
    /// The progress after a 2xx answer to the DELETE (`returned`: the object it carried, if any;
    /// a Status carries none).
    pub fn answered(dry_run: bool, status: u16, returned: Option<&Value>) -> DeleteProgress {
        if dry_run {
            return DeleteProgress::DryRunAccepted { status };
        }
        match returned.and_then(finalizing) {
            Some((since, remaining)) => DeleteProgress::Finalizing { since, remaining },
            None => DeleteProgress::Gone,
        }
    }

    /// The progress after a read of the object while it is followed; unchanged when it is not
    /// being followed.
    pub fn read(&self, read: FollowRead<'_>) -> DeleteProgress {
        if !self.following() {
            return self.clone();
        }
        match read {
            FollowRead::Found(object) => match finalizing(object) {
                Some((since, remaining)) => DeleteProgress::Finalizing { since, remaining },
                None => DeleteProgress::MadeAgain,
            },
            FollowRead::NotFound => DeleteProgress::Gone,
            FollowRead::Failed => self.clone(),
        }
    }

    /// Whether the object is read again (while its finalizers run).
    pub fn following(&self) -> bool {
        matches!(self, DeleteProgress::Finalizing { .. })
    }

    /// Whether the object changed or went: the screen reads it (or its list) again.
    pub fn changed(&self) -> bool {
        !matches!(self, DeleteProgress::DryRunAccepted { .. })
    }
}

impl Localized for DeleteProgress {
    fn text(&self) -> Text {
        match self {
            DeleteProgress::DryRunAccepted { status } => Text::new(Msg::DryRunWouldDelete).with("status", status),
            DeleteProgress::Finalizing { since, remaining } => {
                Text::new(Msg::BeingFinalized).with("since", since).with("remaining", remaining.join(", "))
            }
            DeleteProgress::Gone => Text::new(Msg::DeletedGone),
            DeleteProgress::MadeAgain => Text::new(Msg::DeletedMadeAgain),
        }
    }
}

/// How many objects a list holds: what a deletecollection with the same selectors would delete.
/// `None` when `list` is not a list (no `items` array).
pub fn count_of(list: &Value) -> Option<usize> {
    list.get("items").and_then(Value::as_array).map(<[Value]>::len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(json: serde_json::Value) -> Value {
        Value::from_serde_json(&json)
    }

    /// A ConfigMap as a kube-apiserver returns it from a DELETE held by a finalizer.
    fn held(finalizers: &[&str]) -> Value {
        value(serde_json::json!({"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": "held", "namespace": "demo", "deletionTimestamp": "2026-11-28T16:00:00Z",
                "deletionGracePeriodSeconds": 0, "finalizers": finalizers}}))
    }

    #[test]
    fn a_delete_held_by_finalizers_is_followed_until_the_object_is_gone() {
        // The transcript of the write spec's finalizer case: DELETE answered with the object
        // (two finalizers), a read with one left, a failed read, then the 404.
        let mut progress =
            DeleteProgress::answered(false, 200, Some(&held(&["example.com/hold", "example.com/other"])));
        let mut transcript = vec![progress.clone()];
        let one_left = held(&["example.com/hold"]);
        for read in [FollowRead::Found(&one_left), FollowRead::Failed, FollowRead::NotFound] {
            progress = progress.read(read);
            transcript.push(progress.clone());
        }
        let finalizing = |remaining: &[&str]| DeleteProgress::Finalizing {
            since: "2026-11-28T16:00:00Z".into(),
            remaining: remaining.iter().map(|f| f.to_string()).collect(),
        };
        assert_eq!(
            transcript,
            vec![
                finalizing(&["example.com/hold", "example.com/other"]),
                finalizing(&["example.com/hold"]),
                finalizing(&["example.com/hold"]),
                DeleteProgress::Gone,
            ]
        );
        assert!(transcript[..3].iter().all(DeleteProgress::following));
        assert!(!DeleteProgress::Gone.following());
        // Gone stays gone whatever a late read says.
        assert_eq!(DeleteProgress::Gone.read(FollowRead::Found(&one_left)), DeleteProgress::Gone);
    }

    #[test]
    fn answers_without_finalizers_dry_runs_and_objects_made_again() {
        // A Status (no object) or the object without a deletionTimestamp: gone at once.
        assert_eq!(DeleteProgress::answered(false, 200, None), DeleteProgress::Gone);
        let plain = value(serde_json::json!({"kind": "ConfigMap", "metadata": {"name": "x"}}));
        assert_eq!(DeleteProgress::answered(false, 200, Some(&plain)), DeleteProgress::Gone);
        // A dry run deletes nothing, whatever it returns, and changes nothing on the screen.
        let dry = DeleteProgress::answered(true, 200, Some(&held(&["a"])));
        assert_eq!(dry, DeleteProgress::DryRunAccepted { status: 200 });
        assert!(!dry.changed() && !dry.following());
        // Followed, then found without a deletion in progress: made again; no longer followed.
        let made_again = DeleteProgress::answered(false, 200, Some(&held(&["a"]))).read(FollowRead::Found(&plain));
        assert_eq!(made_again, DeleteProgress::MadeAgain);
        assert!(!made_again.following() && made_again.changed());
        assert_eq!(made_again.text().msg, Msg::DeletedMadeAgain);
    }

    #[test]
    fn a_collection_is_counted_by_its_items() {
        let list = value(serde_json::json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "9"}, "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}]}));
        assert_eq!(count_of(&list), Some(2));
        assert_eq!(count_of(&value(serde_json::json!({"kind": "List", "items": []}))), Some(0));
        assert_eq!(count_of(&value(serde_json::json!({"kind": "Status"}))), None);
    }
}
