//! Scale, as `kubectl scale` does it: the object's `scale` subresource (autoscaling/v1 Scale) read
//! for its facts, `spec.replicas` changed with a merge patch to the subresource (kubectl's
//! `pkg/scale` sends `{"spec":{"replicas":N}}` as `application/merge-patch+json` to `.../scale`),
//! with dry run, and what came of it in the reader's words. Pure: the client's `use_scale` sends.

use kube_wire::codec::value::Value;
use kube_wire::request::{ObjectRef, Request, RequestError};

use crate::i18n::{Localized, Msg, Text};
use crate::requests;
use crate::write::{parse_replicas, SendOptions};

/// The `scale` subresource of `object`.
pub fn scale_of(object: &ObjectRef) -> Result<ObjectRef, RequestError> {
    object.clone().subresource("scale")
}

/// What a Scale says: its wanted and observed replicas and its pods' selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleFacts {
    pub spec_replicas: Option<i64>,
    pub status_replicas: Option<i64>,
    /// `status.selector`, as the server serializes the target's label selector.
    pub selector: Option<String>,
}

impl ScaleFacts {
    /// The facts of the Scale object `scale` (missing fields are `None`).
    pub fn of(scale: &Value) -> ScaleFacts {
        let number = |path: [&str; 2]| scale.at(&path).and_then(Value::as_i64);
        ScaleFacts {
            spec_replicas: number(["spec", "replicas"]),
            status_replicas: number(["status", "replicas"]),
            selector: scale
                .at(&["status", "selector"])
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        }
    }
}

/// One scale to send: the replicas asked for, and whether as a dry run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleOrder {
    pub replicas: i64,
    pub dry_run: bool,
}

impl ScaleOrder {
    /// The order the form's text `replicas` asks for, or why it cannot be sent.
    pub fn from_form(replicas: &str, dry_run: bool) -> Result<ScaleOrder, Text> {
        parse_replicas(replicas).map(|replicas| ScaleOrder { replicas, dry_run })
    }

    /// The request: the merge patch of `scale` (the subresource) with the write options.
    pub fn request(&self, scale: &ObjectRef, options: &SendOptions) -> Result<Request, RequestError> {
        let options = SendOptions { dry_run: self.dry_run, ..options.clone() };
        requests::scale(scale, self.replicas, &options.write_params())
    }
}

/// What a successful scale answer says, in the reader's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScaleOutcome {
    /// A dry run the server accepted, with the replicas it would set.
    WouldSet { status: u16, replicas: i64 },
    /// A dry run whose answer carried no replicas.
    DryRunNothingChanged { status: u16 },
    /// Scaled: the replicas the server now has.
    ScaledTo { status: u16, replicas: i64 },
    /// Scaled, the answer carrying no replicas.
    Scaled { status: u16 },
}

impl ScaleOutcome {
    /// The outcome of a 2xx answer `status` with the Scale `returned` to `order`.
    pub fn of(order: &ScaleOrder, status: u16, returned: Option<&Value>) -> ScaleOutcome {
        let replicas = returned.and_then(|scale| ScaleFacts::of(scale).spec_replicas);
        match (order.dry_run, replicas) {
            (true, Some(replicas)) => ScaleOutcome::WouldSet { status, replicas },
            (true, None) => ScaleOutcome::DryRunNothingChanged { status },
            (false, Some(replicas)) => ScaleOutcome::ScaledTo { status, replicas },
            (false, None) => ScaleOutcome::Scaled { status },
        }
    }
}

impl Localized for ScaleOutcome {
    fn text(&self) -> Text {
        match *self {
            ScaleOutcome::WouldSet { status, replicas } => {
                Text::new(Msg::DryRunWouldSet).with("status", status).with("replicas", replicas)
            }
            ScaleOutcome::DryRunNothingChanged { status } => {
                Text::new(Msg::DryRunNothingChanged).with("status", status)
            }
            ScaleOutcome::ScaledTo { status, replicas } => {
                Text::new(Msg::ScaledTo).with("replicas", replicas).with("status", status)
            }
            ScaleOutcome::Scaled { status } => Text::new(Msg::Scaled).with("status", status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::discovery::Scope;
    use kube_wire::request::Collection;
    use kube_wire::testdata::resource_type;

    fn web() -> ObjectRef {
        let deployments = resource_type("apps", "v1", "deployments", Scope::Namespaced);
        Collection::new(&deployments, Some("demo")).expect("valid").object("web").expect("valid")
    }

    fn scale(json: serde_json::Value) -> Value {
        Value::from_serde_json(&json)
    }

    #[test]
    fn a_scale_is_the_merge_patch_kubectl_sends_to_the_subresource() {
        let order = ScaleOrder::from_form(" 3 ", false).expect("a number");
        let request = order.request(&scale_of(&web()).expect("scale"), &SendOptions::default()).expect("request");
        assert_eq!(request.method().as_str(), "PATCH");
        assert!(request.path_and_query().starts_with("/apis/apps/v1/namespaces/demo/deployments/web/scale?"));
        assert_eq!(request.header_value("content-type"), Some("application/merge-patch+json"));
        assert_eq!(request.body(), Some(br#"{"spec":{"replicas":3}}"#.as_slice()));
        assert!(!request.path_and_query().contains("dryRun"));
        let dry = ScaleOrder::from_form("0", true).expect("zero is a number");
        let request = dry.request(&scale_of(&web()).expect("scale"), &SendOptions::default()).expect("request");
        assert!(request.path_and_query().contains("dryRun=All"), "{}", request.path_and_query());
        assert_eq!(request.body(), Some(br#"{"spec":{"replicas":0}}"#.as_slice()));
    }

    #[test]
    fn a_form_that_is_not_a_whole_number_is_not_sent() {
        for text in ["", "-1", "2.5", "three"] {
            let error = ScaleOrder::from_form(text, false).expect_err(text);
            assert_eq!(error.msg, Msg::WriteReplicasNotANumber, "{text:?}");
        }
    }

    #[test]
    fn facts_and_outcomes_read_the_scale_returned() {
        // As a kube-apiserver returns autoscaling/v1 Scale.
        let returned = scale(serde_json::json!({"kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {"name": "web", "namespace": "demo"},
            "spec": {"replicas": 3}, "status": {"replicas": 2, "selector": "app=web"}}));
        assert_eq!(
            ScaleFacts::of(&returned),
            ScaleFacts { spec_replicas: Some(3), status_replicas: Some(2), selector: Some("app=web".into()) }
        );
        let empty = scale(serde_json::json!({"kind": "Scale", "status": {"selector": ""}}));
        assert_eq!(ScaleFacts::of(&empty), ScaleFacts { spec_replicas: None, status_replicas: None, selector: None });
        let (real, dry) = (ScaleOrder { replicas: 3, dry_run: false }, ScaleOrder { replicas: 3, dry_run: true });
        assert_eq!(ScaleOutcome::of(&dry, 200, Some(&returned)), ScaleOutcome::WouldSet { status: 200, replicas: 3 });
        assert_eq!(ScaleOutcome::of(&dry, 200, None), ScaleOutcome::DryRunNothingChanged { status: 200 });
        assert_eq!(ScaleOutcome::of(&real, 200, Some(&returned)), ScaleOutcome::ScaledTo { status: 200, replicas: 3 });
        assert_eq!(ScaleOutcome::of(&real, 201, Some(&empty)), ScaleOutcome::Scaled { status: 201 });
        assert_eq!(ScaleOutcome::ScaledTo { status: 200, replicas: 3 }.text().msg, Msg::ScaledTo);
    }
}
