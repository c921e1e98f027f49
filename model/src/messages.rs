//! The `postMessage` interface between the explorer and the page that embeds it, as values.
//!
//! Inbound (host → explorer), objects with a `type`:
//! - `kube-api-explorer:navigate` `{ group?, version?, resource, namespace?, name? }`: open a
//!   collection or an object; without `version` the group's preferred version that serves the
//!   resource is used (the core group when `group` is absent too);
//! - `kube-api-explorer:set-theme` `{ theme?, accent? }`;
//! - `kube-api-explorer:set-read-only` `{ readOnly }`.
//!
//! Outbound (explorer → host): `kube-api-explorer:ready` once the explorer listens, and
//! `kube-api-explorer:selected` `{ group, version, resource, namespace, name, uid }` when the
//! user opens an object.
//!
//! Messages are obeyed only from the origin the host configured ([`gate`]); the others are
//! counted in [`MessageStats`] so that a host developer can see why nothing happens.

use crate::host::{key_problem, value_problem, CssColor, Origin, Route, Theme};
use crate::i18n::{Msg, Text};
use crate::view_state::{ResourceKey, ViewState};
use kube_wire::codec::value::Value;
use kube_wire::discovery::Discovery;

/// The prefix of every message type of the explorer.
pub const PREFIX: &str = "kube-api-explorer:";

/// A message the host may send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    Navigate(Route),
    SetTheme { theme: Option<Theme>, accent: Option<CssColor> },
    SetReadOnly(bool),
}

/// What became of one received message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    Message(Inbound),
    /// Not an explorer message (another script's traffic on the same window): left alone.
    NotForExplorer,
    /// An explorer message that could not be read, with why.
    Invalid(Text),
}

impl Inbound {
    /// Reads a message's data (already turned into JSON).
    pub fn parse(data: &serde_json::Value) -> Received {
        let Some(kind) = data.get("type").and_then(serde_json::Value::as_str) else {
            return Received::NotForExplorer;
        };
        let Some(kind) = kind.strip_prefix(PREFIX) else { return Received::NotForExplorer };
        let of_message = |problem: Text| key_problem(&format!("{PREFIX}{kind}"), problem);
        let text = |key: &str| -> Result<Option<String>, Text> {
            match data.get(key) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(of_message(Text::new(Msg::MessageShouldBeString).with("key", key))),
            }
        };
        let result = match kind {
            "navigate" => Route::from_json(data).map_err(of_message).and_then(|route| match route.resource {
                Some(_) => Ok(Inbound::Navigate(route)),
                None => Err(of_message(Text::new(Msg::MessageResourceRequired).with("key", "resource"))),
            }),
            "set-theme" => (|| -> Result<Inbound, Text> {
                let theme = text("theme")?
                    .map(|t| Theme::parse(&t).map_err(|e| of_message(value_problem("theme", &t, e))))
                    .transpose()?;
                let accent = text("accent")?
                    .map(|a| CssColor::parse(&a).map_err(|e| of_message(value_problem("accent", &a, e))))
                    .transpose()?;
                Ok(Inbound::SetTheme { theme, accent })
            })(),
            "set-read-only" => match data.get("readOnly") {
                Some(serde_json::Value::Bool(b)) => Ok(Inbound::SetReadOnly(*b)),
                _ => Err(of_message(Text::new(Msg::MessageShouldBeFlag).with("key", "readOnly"))),
            },
            _ => Err(of_message(
                Text::new(Msg::MessageUnknown).with("messages", "navigate, set-theme").with("last", "set-read-only"),
            )),
        };
        match result {
            Ok(message) => Received::Message(message),
            Err(why) => Received::Invalid(why),
        }
    }
}

/// Whether a message from `event_origin` may be obeyed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    Accept,
    /// The host configured no origin: the explorer listens to nobody.
    NoHostOrigin,
    /// Another origin than the configured one.
    WrongOrigin,
}

/// Decides whether a message from `event_origin` may be obeyed, given the configured origin.
pub fn gate(configured: Option<&Origin>, event_origin: &str) -> Gate {
    match configured {
        None => Gate::NoHostOrigin,
        Some(origin) if origin.matches(event_origin) => Gate::Accept,
        Some(_) => Gate::WrongOrigin,
    }
}

/// Counts of what the explorer did with messages, shown to whoever debugs a host page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageStats {
    pub accepted: u32,
    /// From an origin other than the configured one (or with none configured).
    pub ignored: u32,
    pub invalid: u32,
    /// The last ignored or invalid message, with why.
    pub last_problem: Option<Text>,
}

impl MessageStats {
    /// Records one message from `origin` and returns what to do with it, if anything.
    pub fn receive(&mut self, configured: Option<&Origin>, origin: &str, data: &serde_json::Value) -> Option<Inbound> {
        match gate(configured, origin) {
            Gate::Accept => {}
            Gate::NoHostOrigin => {
                if matches!(Inbound::parse(data), Received::NotForExplorer) {
                    return None;
                }
                self.ignored += 1;
                self.last_problem = Some(Text::new(Msg::MessageIgnoredNoOrigin).with("origin", origin));
                return None;
            }
            Gate::WrongOrigin => {
                if matches!(Inbound::parse(data), Received::NotForExplorer) {
                    return None;
                }
                self.ignored += 1;
                self.last_problem = Some(
                    Text::new(Msg::MessageIgnoredWrongOrigin)
                        .with("origin", origin)
                        .with("host_origin", configured.map(Origin::as_str).unwrap_or_default()),
                );
                return None;
            }
        }
        match Inbound::parse(data) {
            Received::Message(message) => {
                self.accepted += 1;
                Some(message)
            }
            Received::NotForExplorer => None,
            Received::Invalid(why) => {
                self.invalid += 1;
                self.last_problem = Some(why);
                None
            }
        }
    }

    /// One line for the status bar.
    pub fn summary(&self) -> Text {
        let counts = Text::new(Msg::MessageCounts)
            .with("accepted", self.accepted)
            .with("ignored", self.ignored)
            .with("invalid", self.invalid);
        match &self.last_problem {
            Some(problem) => {
                Text::new(Msg::MessageCountsLast).with_text("counts", counts).with_text("problem", problem)
            }
            None => counts,
        }
    }
}

/// Finds the resource type a route names: the given group and version, or the group's first
/// (preferred) version that serves the resource.
pub fn resolve(discovery: &Discovery, route: &Route) -> Result<ResourceKey, Text> {
    let plural =
        route.resource.as_deref().ok_or_else(|| Text::new(Msg::MessageResourceRequired).with("key", "resource"))?;
    let group = route.group.as_deref().unwrap_or("");
    let group_name = if group.is_empty() { "core" } else { group };
    let api_group = discovery
        .groups
        .iter()
        .find(|g| g.name == group)
        .ok_or_else(|| Text::new(Msg::RouteNoGroup).with("group", group_name))?;
    let version = api_group
        .versions
        .iter()
        .filter(|v| route.version.as_deref().is_none_or(|wanted| v.version == wanted))
        .find(|v| v.resources.iter().any(|r| r.plural == plural))
        .ok_or_else(|| match &route.version {
            Some(version) => Text::new(Msg::RouteNoResourceInVersion)
                .with("resource", plural)
                .with("group_version", format!("{group_name} {version}")),
            None => Text::new(Msg::RouteNoResourceInGroup).with("resource", plural).with("group", group_name),
        })?;
    Ok(ResourceKey { group: group.to_owned(), version: version.version.clone(), plural: plural.to_owned() })
}

/// The view a navigation opens: the resource, namespace and object, with the other view settings
/// of `current` kept (representation, page size) and its selectors cleared.
pub fn navigated(current: &ViewState, key: ResourceKey, route: &Route) -> ViewState {
    ViewState {
        resource: Some(key),
        namespace: route.namespace.clone(),
        name: route.name.clone(),
        label_selector: String::new(),
        field_selector: String::new(),
        ignored: Vec::new(),
        watch: None,
        ..current.clone()
    }
}

/// The view a mount config's route opens, when discovery is not needed (group, version and
/// resource all given), or `None` when it must be resolved later.
pub fn initial_view(route: &Route) -> Option<ViewState> {
    let (version, plural) = (route.version.clone()?, route.resource.clone()?);
    let key = ResourceKey { group: route.group.clone().unwrap_or_default(), version, plural };
    Some(navigated(&ViewState::new(), key, route))
}

/// The object the user opened, as the `selected` message tells the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    pub group: String,
    pub version: String,
    pub resource: String,
    pub namespace: Option<String>,
    pub name: String,
    pub uid: Option<String>,
}

impl Selected {
    /// The selection of `object`, an object of `key` as the server returned it.
    pub fn of(key: &ResourceKey, object: &Value, fallback_name: &str) -> Selected {
        let meta = |field: &str| object.at(&["metadata", field]).and_then(Value::as_str).map(str::to_owned);
        Selected {
            group: key.group.clone(),
            version: key.version.clone(),
            resource: key.plural.clone(),
            namespace: meta("namespace"),
            name: meta("name").unwrap_or_else(|| fallback_name.to_owned()),
            uid: meta("uid"),
        }
    }

    /// The message posted to the host.
    pub fn to_message(&self) -> serde_json::Value {
        serde_json::json!({
            "type": format!("{PREFIX}selected"),
            "group": self.group,
            "version": self.version,
            "resource": self.resource,
            "namespace": self.namespace,
            "name": self.name,
            "uid": self.uid,
        })
    }
}

/// The message that says the explorer listens.
pub fn ready_message() -> serde_json::Value {
    serde_json::json!({ "type": format!("{PREFIX}ready") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_wire::discovery::Scope;
    use kube_wire::testdata::{discovery_of, resource_type};
    use serde_json::json;

    fn discovery() -> Discovery {
        discovery_of(vec![
            resource_type("", "v1", "pods", Scope::Namespaced),
            resource_type("apps", "v1", "deployments", Scope::Namespaced),
            resource_type("apps", "v1beta1", "deployments", Scope::Namespaced),
            resource_type("apps", "v1beta1", "oldthings", Scope::Namespaced),
        ])
    }

    fn route(value: serde_json::Value) -> Route {
        Route::from_json(&value).unwrap()
    }

    #[test]
    fn navigate_messages_are_read_and_others_told_apart() {
        let message =
            json!({"type": "kube-api-explorer:navigate", "resource": "pods", "namespace": "demo", "name": "web"});
        let Received::Message(Inbound::Navigate(route)) = Inbound::parse(&message) else { panic!("not navigate") };
        assert_eq!(route.resource.as_deref(), Some("pods"));
        assert_eq!(route.name.as_deref(), Some("web"));
        assert_eq!(Inbound::parse(&json!({"type": "webpackOk"})), Received::NotForExplorer);
        assert_eq!(Inbound::parse(&json!("hello")), Received::NotForExplorer);
        let Received::Invalid(why) = Inbound::parse(&json!({"type": "kube-api-explorer:navigate", "name": "x"})) else {
            panic!("accepted")
        };
        assert!(why.to_string().contains("needs a resource"), "{why}");
        let Received::Invalid(why) = Inbound::parse(&json!({"type": "kube-api-explorer:explode"})) else { panic!() };
        assert_eq!(
            why.to_string(),
            "kube-api-explorer:explode: not a message of the explorer (expected navigate, set-theme or set-read-only)"
        );
        assert!(matches!(
            Inbound::parse(&json!({"type": "kube-api-explorer:navigate", "resource": "pods", "name": 3})),
            Received::Invalid(_)
        ));
    }

    #[test]
    fn theme_and_read_only_messages_are_validated() {
        assert_eq!(
            Inbound::parse(&json!({"type": "kube-api-explorer:set-theme", "theme": "dark", "accent": "#0a0"})),
            Received::Message(Inbound::SetTheme {
                theme: Some(Theme::Dark),
                accent: Some(CssColor::parse("#0a0").unwrap())
            })
        );
        assert!(matches!(
            Inbound::parse(&json!({"type": "kube-api-explorer:set-theme", "accent": "red;}body{x:y"})),
            Received::Invalid(why) if why.to_string().starts_with("kube-api-explorer:set-theme: accent \"red;}body{x:y\": expected a CSS colour")
        ));
        assert_eq!(
            Inbound::parse(&json!({"type": "kube-api-explorer:set-read-only", "readOnly": true})),
            Received::Message(Inbound::SetReadOnly(true))
        );
        assert!(matches!(
            Inbound::parse(&json!({"type": "kube-api-explorer:set-read-only", "readOnly": "no"})),
            Received::Invalid(_)
        ));
    }

    #[test]
    fn only_the_configured_origin_is_obeyed_and_the_rest_is_counted() {
        let host = Origin::parse("http://127.0.0.1:9000").unwrap();
        let navigate = json!({"type": "kube-api-explorer:navigate", "resource": "pods"});
        assert_eq!(gate(Some(&host), "http://127.0.0.1:9000"), Gate::Accept);
        assert_eq!(gate(Some(&host), "http://127.0.0.1:9001"), Gate::WrongOrigin);
        assert_eq!(gate(None, "http://127.0.0.1:9000"), Gate::NoHostOrigin);

        let mut stats = MessageStats::default();
        assert!(stats.receive(Some(&host), "http://127.0.0.1:9000", &navigate).is_some());
        assert!(stats.receive(Some(&host), "http://evil.example", &navigate).is_none());
        assert!(stats.receive(Some(&host), "http://evil.example", &json!({"other": 1})).is_none());
        assert!(stats.receive(Some(&host), "http://127.0.0.1:9000", &json!({"type": "kube-api-explorer:x"})).is_none());
        assert!(stats.receive(None, "http://127.0.0.1:9000", &navigate).is_none());
        assert_eq!((stats.accepted, stats.ignored, stats.invalid), (1, 2, 1));
        assert_eq!(
            stats.summary().to_string(),
            "1 accepted, 2 ignored, 1 invalid — last: ignored a message from http://127.0.0.1:9000: no host-origin is configured"
        );
    }

    #[test]
    fn routes_resolve_to_the_preferred_version_that_serves_them() {
        let d = discovery();
        let key = |g: &str, v: &str, p: &str| ResourceKey { group: g.into(), version: v.into(), plural: p.into() };
        assert_eq!(resolve(&d, &route(json!({"resource": "pods"}))), Ok(key("", "v1", "pods")));
        assert_eq!(
            resolve(&d, &route(json!({"group": "apps", "resource": "deployments"}))),
            Ok(key("apps", "v1", "deployments"))
        );
        assert_eq!(
            resolve(&d, &route(json!({"group": "apps", "resource": "oldthings"}))),
            Ok(key("apps", "v1beta1", "oldthings"))
        );
        assert_eq!(
            resolve(&d, &route(json!({"group": "apps", "version": "v1beta1", "resource": "deployments"}))),
            Ok(key("apps", "v1beta1", "deployments"))
        );
        let resolve = |d: &Discovery, r: &Route| resolve(d, r).map_err(|e| e.to_string());
        assert_eq!(
            resolve(&d, &route(json!({"group": "batch", "resource": "jobs"}))),
            Err("discovery lists no API group batch".to_owned())
        );
        assert_eq!(
            resolve(&d, &route(json!({"resource": "secrets"}))),
            Err("discovery lists no secrets in the core group".to_owned())
        );
        assert_eq!(
            resolve(&d, &route(json!({"group": "apps", "version": "v2", "resource": "deployments"}))),
            Err("discovery lists no deployments in apps v2".to_owned())
        );
    }

    #[test]
    fn navigation_keeps_the_representation_and_clears_selectors() {
        let mut current =
            ViewState::from_search("?group=&version=v1&resource=pods&as=yaml&labelSelector=a%3Db&watch=1");
        current.ignored.push("x".into());
        let key = ResourceKey { group: "apps".into(), version: "v1".into(), plural: "deployments".into() };
        let next = navigated(
            &current,
            key.clone(),
            &route(json!({"resource": "deployments", "namespace": "demo", "name": "web"})),
        );
        assert_eq!(next.to_search(), "?group=apps&version=v1&resource=deployments&namespace=demo&name=web&as=yaml");
        assert_eq!(initial_view(&route(json!({"resource": "pods"}))), None);
        let initial = initial_view(&route(json!({"version": "v1", "resource": "pods", "namespace": "demo"}))).unwrap();
        assert_eq!(initial.to_search(), "?group=&version=v1&resource=pods&namespace=demo");
    }

    #[test]
    fn a_selection_names_the_object_as_the_server_returned_it() {
        let object = kube_wire::codec::json::decode_json(
            br#"{"metadata":{"name":"web-1","namespace":"demo","uid":"8b6c1f2e-0000-4000-8000-000000000001"}}"#,
        )
        .unwrap();
        let key = ResourceKey { group: String::new(), version: "v1".into(), plural: "pods".into() };
        let selected = Selected::of(&key, &object, "ignored");
        assert_eq!(
            selected.to_message(),
            json!({"type": "kube-api-explorer:selected", "group": "", "version": "v1", "resource": "pods",
                   "namespace": "demo", "name": "web-1", "uid": "8b6c1f2e-0000-4000-8000-000000000001"})
        );
        let bare = Selected::of(&key, &kube_wire::codec::value::Value::Null, "fallback");
        assert_eq!((bare.name.as_str(), bare.namespace, bare.uid), ("fallback", None, None));
        assert_eq!(ready_message(), json!({"type": "kube-api-explorer:ready"}));
    }
}
