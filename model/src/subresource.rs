//! What choosing one of an object's subresources does, decided before anything is sent: a pod's
//! `log` opens the log view, its `exec` and `attach` a terminal (the server allows them with
//! `create`), any other is read once (a `GET` of compact JSON) and its answer shown as a document,
//! or as what the server said instead.

use kube_wire::body::Decoded;
use kube_wire::codec::value::Value;
use kube_wire::discovery::{ResourceType, Subresource};
use kube_wire::params::LogOptions;
use kube_wire::request::{Request, RequestError};
use kube_wire::view::status::Status;

use crate::page::{Page, PageBody};
use crate::target::{subresource_request, PageShape};
use crate::terminal::opens_terminal;

/// What choosing a subresource opens.
#[derive(Debug, Clone, PartialEq)]
pub enum Opens {
    /// The pod's log view (it reads the log itself, with its own options).
    Log,
    /// A terminal on the subresource named (`exec` or `attach`).
    Terminal(String),
    /// Read once with this request.
    Read(Request),
}

/// The verb the server checks for `subresource`: `create` for a terminal, else `get`.
pub fn verb(resource: &ResourceType, subresource: &str) -> &'static str {
    if opens_terminal(resource, subresource) {
        "create"
    } else {
        "get"
    }
}

/// Whether discovery lists the verb a person needs for `subresource`.
pub fn usable(resource: &ResourceType, subresource: &Subresource) -> bool {
    let verb = verb(resource, &subresource.name);
    subresource.verbs.iter().any(|v| v == verb)
}

/// What choosing `subresource` of object `name` opens, or why its request cannot be made.
pub fn opens(
    resource: &ResourceType,
    namespace: Option<&str>,
    name: &str,
    subresource: &str,
) -> Result<Opens, RequestError> {
    if subresource == "log" {
        return Ok(Opens::Log);
    }
    if opens_terminal(resource, subresource) {
        return Ok(Opens::Terminal(subresource.to_owned()));
    }
    subresource_request(resource, namespace, name, subresource, &LogOptions::default()).map(Opens::Read)
}

/// What a read's answer shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A successful answer's document.
    Document(Value),
    /// The Status the server answered with (an error code's).
    Status(Box<Status>),
    /// Anything else: the HTTP status line says it.
    Other,
}

/// What a read's decoded answer shows; `success`: whether its code was 2xx.
pub fn answer(decoded: &Decoded, success: bool) -> Answer {
    match Page::from_decoded(decoded, PageShape::Document, 0).body {
        PageBody::Document(document) if success => Answer::Document(document),
        PageBody::Status(status) => Answer::Status(status),
        _ => Answer::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::discovery::Scope;
    use kube_wire::testdata::resource_type;

    fn pods() -> ResourceType {
        resource_type("", "v1", "pods", Scope::Namespaced)
    }

    fn deployments() -> ResourceType {
        resource_type("apps", "v1", "deployments", Scope::Namespaced)
    }

    #[test]
    fn a_pods_log_and_terminals_open_views_and_the_rest_is_read_once_as_json() {
        assert_eq!(opens(&pods(), Some("demo"), "web-1", "log"), Ok(Opens::Log));
        assert_eq!(opens(&pods(), Some("demo"), "web-1", "exec"), Ok(Opens::Terminal("exec".into())));
        assert_eq!(opens(&pods(), Some("demo"), "web-1", "attach"), Ok(Opens::Terminal("attach".into())));
        let Ok(Opens::Read(request)) = opens(&deployments(), Some("demo"), "web", "scale") else { panic!() };
        assert_eq!(request.path(), "/apis/apps/v1/namespaces/demo/deployments/web/scale");
        assert_eq!(request.method().as_str(), "GET");
        // `exec` of another group's type is no terminal: it is read.
        let widgets = resource_type("example.com", "v1", "widgets", Scope::Namespaced);
        assert!(matches!(opens(&widgets, Some("demo"), "w", "exec"), Ok(Opens::Read(_))));
        assert!(opens(&pods(), Some("demo"), "", "status").is_err(), "no object name: no request");
    }

    #[test]
    fn a_terminal_needs_create_and_a_read_needs_get() {
        let sub = |name: &str, verbs: &[&str]| Subresource {
            name: name.into(),
            kind: "PodExecOptions".into(),
            verbs: verbs.iter().map(|v| v.to_string()).collect(),
        };
        assert!(usable(&pods(), &sub("exec", &["create", "get"])));
        assert!(!usable(&pods(), &sub("exec", &["get"])));
        assert!(usable(&pods(), &sub("status", &["get", "patch"])));
        assert!(!usable(&pods(), &sub("eviction", &["create"])));
    }

    #[test]
    fn only_a_successful_document_is_shown_as_one() {
        let body = |text: &str| Decoded::Document(kube_wire::codec::json::decode_json(text.as_bytes()).expect("JSON"));
        let scale = body(r#"{"kind":"Scale","apiVersion":"autoscaling/v1","spec":{"replicas":3}}"#);
        assert!(
            matches!(answer(&scale, true), Answer::Document(d) if d.get("kind").and_then(Value::as_str) == Some("Scale"))
        );
        assert_eq!(answer(&scale, false), Answer::Other, "an error code's body that is no Status");
        let status = body(r#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"message":"no"}"#);
        assert!(matches!(answer(&status, false), Answer::Status(s) if s.code == 404 && s.message == "no"));
    }
}
