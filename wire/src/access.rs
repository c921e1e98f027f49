//! Who the API server says the user is, and what it says the user may do: the self reviews of
//! `authentication.k8s.io` and `authorization.k8s.io` as requests and answers.
//!
//! A review is a `POST` that creates nothing: the server answers it from its authenticator or
//! authorizer and stores no object. So it is a read in effect, and [`is_review`] is what lets the
//! write gate send it in read-only mode ([`Request::changes_state`]).
//!
//! Invariant: no I/O; answers are read from decoded documents.

use crate::build::RequestBuilder;
use crate::codec::value::{Value, ValueKind};
use crate::request::{Body, Method, Request};

/// `POST /apis/authentication.k8s.io/v1/selfsubjectreviews`: who am I.
pub const SELF_SUBJECT_REVIEW_PATH: &str = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
/// `POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews`: what may I do in a namespace.
pub const SELF_SUBJECT_RULES_REVIEW_PATH: &str = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: may I do this one thing.
pub const SELF_SUBJECT_ACCESS_REVIEW_PATH: &str = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

/// Whether `path` is the collection of a review type: `tokenreviews` and `selfsubjectreviews` of
/// `authentication.k8s.io`, every type of `authorization.k8s.io` (subject, local and self access
/// reviews, rules reviews), in any version. The server answers a create of these and keeps
/// nothing, so sending one changes no state.
pub fn is_review(path: &str) -> bool {
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    match segments.as_slice() {
        ["", "apis", "authentication.k8s.io", _, "tokenreviews" | "selfsubjectreviews"] => true,
        ["", "apis", "authorization.k8s.io", _, resource] => resource.ends_with("reviews"),
        ["", "apis", "authorization.k8s.io", _, "namespaces", _, "localsubjectaccessreviews"] => true,
        _ => false,
    }
}

/// The user a SelfSubjectReview reports (`status.userInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    pub username: String,
    pub uid: Option<String>,
    pub groups: Vec<String>,
}

/// Why an answer is not the review that was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    #[error("expected kind {expected}, found {found}")]
    Kind { expected: &'static str, found: String },
    #[error("{path} is missing or not {expected}")]
    Shape { path: &'static str, expected: ValueKind },
}

impl RequestBuilder {
    /// **create** a SelfSubjectReview: the server answers with the user it authenticated.
    pub fn self_subject_review() -> RequestBuilder {
        review(
            SELF_SUBJECT_REVIEW_PATH,
            serde_json::json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}),
        )
    }

    /// **create** a SelfSubjectRulesReview of `namespace`: the rules the user has there.
    pub fn self_subject_rules_review(namespace: &str) -> RequestBuilder {
        review(
            SELF_SUBJECT_RULES_REVIEW_PATH,
            serde_json::json!({
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectRulesReview",
                "spec": {"namespace": namespace},
            }),
        )
    }

    /// **create** a SelfSubjectAccessReview of one action (what `kubectl auth can-i` sends).
    pub fn self_subject_access_review(attributes: &ResourceAttributes) -> RequestBuilder {
        let mut resource = serde_json::json!({
            "verb": attributes.verb,
            "group": attributes.group,
            "resource": attributes.resource,
        });
        for (key, value) in
            [("subresource", &attributes.subresource), ("namespace", &attributes.namespace), ("name", &attributes.name)]
        {
            if let Some(value) = value {
                resource[key] = serde_json::Value::String(value.clone());
            }
        }
        review(
            SELF_SUBJECT_ACCESS_REVIEW_PATH,
            serde_json::json!({
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SelfSubjectAccessReview",
                "spec": {"resourceAttributes": resource},
            }),
        )
    }
}

impl Request {
    /// Whether sending this request may change state on the server: a write method, except the
    /// create of a review, which the server answers without storing anything.
    pub fn changes_state(&self) -> bool {
        self.method.is_write() && !(self.method == Method::Post && is_review(&self.path))
    }
}

fn review(path: &str, body: serde_json::Value) -> RequestBuilder {
    let body = Body::json(&Value::from_serde_json(&body));
    RequestBuilder::new(Method::Post, path.to_owned(), Vec::new())
        .header("Accept", "application/json")
        .with_body(&body.content_type, body.bytes)
}

/// The attributes of one action on a resource, as a SelfSubjectAccessReview asks about them.
/// `namespace: None` is the cluster scope. `model::access` decides them as a `Question`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ResourceAttributes {
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub subresource: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

/// Reads a SelfSubjectReview answer.
pub fn user_info(document: &Value) -> Result<UserInfo, ReviewError> {
    expect_kind(document, "SelfSubjectReview")?;
    let info = document
        .at(&["status", "userInfo"])
        .ok_or(ReviewError::Shape { path: "status.userInfo", expected: ValueKind::Object })?;
    let username = info.get("username").and_then(Value::as_str).unwrap_or_default().to_owned();
    let uid = info.get("uid").and_then(Value::as_str).map(str::to_owned);
    let groups = strings(info.get("groups"));
    Ok(UserInfo { username, uid, groups })
}

/// One rule of a SelfSubjectRulesReview (`status.resourceRules[]`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResourceRule {
    pub verbs: Vec<String>,
    pub api_groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
}

/// One rule of a SelfSubjectRulesReview about non-resource URLs (`status.nonResourceRules[]`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NonResourceRule {
    pub verbs: Vec<String>,
    pub urls: Vec<String>,
}

/// What a SelfSubjectRulesReview says about one namespace.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RulesReview {
    pub resource_rules: Vec<ResourceRule>,
    pub non_resource_rules: Vec<NonResourceRule>,
    /// The server could not list every rule (an authorizer that cannot enumerate, a failed
    /// lookup): a missing rule then does not mean "not allowed".
    pub incomplete: bool,
    pub evaluation_error: Option<String>,
}

/// Reads a SelfSubjectRulesReview answer.
pub fn rules_review(document: &Value) -> Result<RulesReview, ReviewError> {
    expect_kind(document, "SelfSubjectRulesReview")?;
    let status = document.get("status").ok_or(ReviewError::Shape { path: "status", expected: ValueKind::Object })?;
    let resource_rules = status
        .get("resourceRules")
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .map(|rule| ResourceRule {
            verbs: strings(rule.get("verbs")),
            api_groups: strings(rule.get("apiGroups")),
            resources: strings(rule.get("resources")),
            resource_names: strings(rule.get("resourceNames")),
        })
        .collect();
    let non_resource_rules = status
        .get("nonResourceRules")
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .map(|rule| NonResourceRule { verbs: strings(rule.get("verbs")), urls: strings(rule.get("nonResourceURLs")) })
        .collect();
    Ok(RulesReview {
        resource_rules,
        non_resource_rules,
        incomplete: status.get("incomplete").and_then(Value::as_bool).unwrap_or(false),
        evaluation_error: status.get("evaluationError").and_then(Value::as_str).map(str::to_owned),
    })
}

/// Reads a SelfSubjectAccessReview answer: `(allowed, reason)`.
pub fn access_review(document: &Value) -> Result<(bool, Option<String>), ReviewError> {
    expect_kind(document, "SelfSubjectAccessReview")?;
    let status = document.get("status").ok_or(ReviewError::Shape { path: "status", expected: ValueKind::Object })?;
    let allowed = status
        .get("allowed")
        .and_then(Value::as_bool)
        .ok_or(ReviewError::Shape { path: "status.allowed", expected: ValueKind::Boolean })?;
    let reason = status.get("reason").and_then(Value::as_str).filter(|r| !r.is_empty()).map(str::to_owned);
    Ok((allowed, reason))
}

fn expect_kind(document: &Value, expected: &'static str) -> Result<(), ReviewError> {
    match document.get("kind").and_then(Value::as_str) {
        Some(kind) if kind == expected => Ok(()),
        other => Err(ReviewError::Kind { expected, found: other.unwrap_or("nothing").to_owned() }),
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value.and_then(Value::as_array).unwrap_or_default().iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Value {
        Value::from_serde_json(&serde_json::from_str(text).expect("json"))
    }

    #[test]
    fn reviews_are_posts_that_do_not_change_state() {
        for request in [
            RequestBuilder::self_subject_review(),
            RequestBuilder::self_subject_rules_review("demo"),
            RequestBuilder::self_subject_access_review(&ResourceAttributes {
                verb: "delete".into(),
                resource: "pods".into(),
                namespace: Some("demo".into()),
                ..ResourceAttributes::default()
            }),
        ]
        .map(RequestBuilder::build)
        {
            assert_eq!(request.method, Method::Post);
            assert!(!request.changes_state(), "{}", request.path);
        }
    }

    #[test]
    fn creating_an_ordinary_object_changes_state() {
        let mut create = RequestBuilder::self_subject_review().build();
        create.path = "/api/v1/namespaces/demo/configmaps".into();
        assert!(create.changes_state());
        let mut delete = RequestBuilder::self_subject_review().build();
        delete.method = Method::Delete;
        assert!(delete.changes_state(), "only a POST of a review is a read");
        assert!(!RequestBuilder::get("/api/v1/pods").build().changes_state());
    }

    #[track_caller]
    fn check_review(path: &str, expect: bool) {
        assert_eq!(is_review(path), expect, "{path}");
    }

    #[test]
    fn review_paths_are_recognised_exactly() {
        check_review("/apis/authentication.k8s.io/v1/selfsubjectreviews", true);
        check_review("/apis/authentication.k8s.io/v1beta1/tokenreviews", true);
        check_review("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", true);
        check_review("/apis/authorization.k8s.io/v1/subjectaccessreviews", true);
        check_review("/apis/authorization.k8s.io/v1/namespaces/demo/localsubjectaccessreviews", true);
        check_review("/apis/authentication.k8s.io/v1/selfsubjectreviews/x", false);
        check_review("/apis/example.com/v1/selfsubjectreviews", false);
        check_review("/api/v1/namespaces/demo/selfsubjectrulesreviews", false);
        check_review("/apis/authorization.k8s.io/v1/namespaces/demo/configmaps", false);
    }

    #[test]
    fn the_rules_review_body_names_the_namespace() {
        let request = RequestBuilder::self_subject_rules_review("demo").build();
        assert_eq!(request.path, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews");
        assert_eq!(
            String::from_utf8(request.body.clone().expect("body")).expect("utf-8"),
            r#"{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"demo"}}"#
                .to_owned()
                + "\n"
        );
        assert_eq!(request.header_value("content-type"), Some("application/json"));
    }

    #[test]
    fn an_access_review_sends_only_the_attributes_given() {
        let request = RequestBuilder::self_subject_access_review(&ResourceAttributes {
            verb: "get".into(),
            resource: "pods".into(),
            subresource: Some("log".into()),
            namespace: Some("demo".into()),
            ..ResourceAttributes::default()
        })
        .build();
        let body = String::from_utf8(request.body.expect("body")).expect("utf-8");
        assert!(body.contains(r#""resourceAttributes":{"group":"","namespace":"demo","resource":"pods","subresource":"log","verb":"get"}"#), "{body}");
    }

    #[test]
    fn a_self_subject_review_gives_the_user_and_groups() {
        let document = json(
            r#"{"kind":"SelfSubjectReview","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},
            "status":{"userInfo":{"username":"dev","uid":"1001","groups":["system:authenticated"]}}}"#,
        );
        assert_eq!(
            user_info(&document),
            Ok(UserInfo {
                username: "dev".into(),
                uid: Some("1001".into()),
                groups: vec!["system:authenticated".into()]
            })
        );
        assert_eq!(
            user_info(&json(r#"{"kind":"Status"}"#)),
            Err(ReviewError::Kind { expected: "SelfSubjectReview", found: "Status".into() })
        );
    }

    #[test]
    fn a_rules_review_gives_its_rules_and_whether_they_are_complete() {
        let document = json(
            r#"{"kind":"SelfSubjectRulesReview","status":{"resourceRules":[
              {"verbs":["get","list"],"apiGroups":[""],"resources":["pods","pods/log"]},
              {"verbs":["get"],"apiGroups":[""],"resources":["configmaps"],"resourceNames":["app"]}],
             "nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["/healthz","/version"]}],"incomplete":true,"evaluationError":"x not found"}}"#,
        );
        let review = rules_review(&document).expect("review");
        assert_eq!(review.resource_rules.len(), 2);
        assert_eq!(review.resource_rules[0].resources, ["pods", "pods/log"]);
        assert_eq!(review.resource_rules[1].resource_names, ["app"]);
        assert_eq!(
            review.non_resource_rules,
            [NonResourceRule { verbs: vec!["get".into()], urls: vec!["/healthz".into(), "/version".into()] }]
        );
        assert!(review.incomplete);
        assert_eq!(review.evaluation_error.as_deref(), Some("x not found"));
    }

    #[test]
    fn an_access_review_answers_allowed_and_why() {
        let document = json(
            r#"{"kind":"SelfSubjectAccessReview","status":{"allowed":true,"reason":"RBAC: allowed by RoleBinding"}}"#,
        );
        assert_eq!(access_review(&document), Ok((true, Some("RBAC: allowed by RoleBinding".into()))));
        assert_eq!(
            access_review(&json(r#"{"kind":"SelfSubjectAccessReview","status":{}}"#)),
            Err(ReviewError::Shape { path: "status.allowed", expected: ValueKind::Boolean })
        );
    }
}
