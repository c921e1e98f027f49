//! An object at a glance: the facts `kubectl describe` prints for the common kinds (pods,
//! Deployments, Services, Nodes), read from the object the screen shows, with kubectl's own
//! labels and its formatting, so that they can be checked against the real `kubectl describe`
//! of the same object (`tests/e2e/specs/glance.spec.js`). The source is kubectl's
//! `staging/src/k8s.io/kubectl/pkg/describe/describe.go` (`describePod`, `describeContainerState`,
//! `DeploymentDescriber`, `describeService`, `describeNode`); what it reads from other objects
//! (a Service's endpoints, a Deployment's ReplicaSets, a node's pods, Events) is shown by the
//! screen's other panels, not here.
//!
//! Jobs too (`describeJob`): a Job's screen shows its pods' counts as they change, since the
//! screen draws the facts from the newest version its watch has seen.
//!
//! Invariants: pure; a fact whose field is absent is what kubectl prints for it (`<none>`,
//! `<unset>`) or left out where kubectl leaves it out; numbers and quantities as the server
//! wrote them.

use kube_wire::codec::value::Value;

use crate::i18n::Msg;

/// One fact: kubectl's label (as a catalogue message) and its value, one line or several.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub label: Msg,
    pub lines: Vec<String>,
}

/// A pod's container, as `describePod` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Container {
    pub name: String,
    pub facts: Vec<Fact>,
}

/// What the screen shows at a glance.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Glance {
    pub facts: Vec<Fact>,
    pub containers: Vec<Container>,
}

fn text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Int(i) => Some(i.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Float(f) => Some(f.to_string()),
        _ => None,
    }
}

fn at(document: &Value, path: &[&str]) -> Option<String> {
    text(document.at(path)).filter(|s| !s.is_empty())
}

fn fact(label: Msg, value: impl Into<String>) -> Fact {
    Fact { label, lines: vec![value.into()] }
}

fn or_none(value: Option<String>) -> String {
    value.unwrap_or_else(|| "<none>".into())
}

/// The facts of `document`, a `kind` of the core or apps group, or `None` for another kind.
pub fn glance(group: &str, kind: &str, document: &Value) -> Option<Glance> {
    match (group, kind) {
        ("", "Pod") => Some(pod(document)),
        ("apps", "Deployment") => Some(Glance { facts: deployment(document), containers: Vec::new() }),
        ("", "Service") => Some(Glance { facts: service(document), containers: Vec::new() }),
        ("", "Node") => Some(Glance { facts: node(document), containers: Vec::new() }),
        ("batch", "Job") => Some(Glance { facts: job(document), containers: Vec::new() }),
        _ => None,
    }
}

/// `metav1.FormatLabelSelector` of a LabelSelector, or of a Service's plain selector map:
/// `key=value` by key order, then `key in (a,b)` and the other expressions.
pub fn selector(value: Option<&Value>) -> String {
    let Some(value) = value else { return "<none>".into() };
    let labels = value.get("matchLabels").or(if value.get("matchExpressions").is_some() { None } else { Some(value) });
    let mut parts: Vec<String> = labels
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| format!("{k}={}", text(Some(v)).unwrap_or_default())).collect())
        .unwrap_or_default();
    parts.sort();
    for expression in value.get("matchExpressions").and_then(Value::as_array).unwrap_or_default() {
        let key = at(expression, &["key"]).unwrap_or_default();
        let values: Vec<String> = expression
            .get("values")
            .and_then(Value::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| text(Some(v)))
            .collect();
        parts.push(match at(expression, &["operator"]).as_deref() {
            Some("In") => format!("{key} in ({})", values.join(",")),
            Some("NotIn") => format!("{key} notin ({})", values.join(",")),
            Some("Exists") => key,
            Some("DoesNotExist") => format!("!{key}"),
            other => format!("{key} {} ({})", other.unwrap_or("?"), values.join(",")),
        });
    }
    if parts.is_empty() {
        "<none>".into()
    } else {
        parts.join(",")
    }
}

fn pod(document: &Value) -> Glance {
    let mut facts = vec![fact(Msg::GlanceServiceAccount, or_none(at(document, &["spec", "serviceAccountName"])))];
    let node = match at(document, &["spec", "nodeName"]) {
        Some(node) => format!("{node}/{}", at(document, &["status", "hostIP"]).unwrap_or_default()),
        None => "<none>".into(),
    };
    facts.push(fact(Msg::GlanceNode, node));
    if let Some(started) = at(document, &["status", "startTime"]) {
        facts.push(fact(Msg::GlanceStartTime, started));
    }
    let status = match at(document, &["metadata", "deletionTimestamp"]) {
        Some(since) => format!("Terminating (since {since})"),
        None => at(document, &["status", "phase"]).unwrap_or_default(),
    };
    facts.push(fact(Msg::GlanceStatus, status));
    if let Some(reason) = at(document, &["status", "reason"]) {
        facts.push(fact(Msg::GlanceReason, reason));
    }
    facts.push(fact(Msg::GlanceIp, at(document, &["status", "podIP"]).unwrap_or_default()));
    facts.extend(controlled_by(document));
    let containers: Vec<Value> =
        document.at(&["spec", "containers"]).and_then(Value::as_array).unwrap_or_default().to_vec();
    facts.push(fact(Msg::GlanceQos, at(document, &["status", "qosClass"]).unwrap_or_else(|| qos(&containers).into())));
    let statuses = document.at(&["status", "containerStatuses"]).and_then(Value::as_array).unwrap_or_default();
    let containers = containers
        .iter()
        .map(|container| {
            let name = at(container, &["name"]).unwrap_or_default();
            let status = statuses.iter().find(|s| at(s, &["name"]).as_deref() == Some(name.as_str()));
            let mut facts = vec![fact(Msg::GlanceImage, at(container, &["image"]).unwrap_or_default())];
            if let Some(status) = status {
                facts.push(Fact { label: Msg::GlanceState, lines: state(status.get("state")) });
                if status.at(&["lastState"]).and_then(Value::as_object).is_some_and(|m| !m.is_empty()) {
                    facts.push(Fact { label: Msg::GlanceLastState, lines: state(status.get("lastState")) });
                }
                let ready = status.get("ready").and_then(Value::as_bool).unwrap_or(false);
                facts.push(fact(Msg::GlanceReady, if ready { "True" } else { "False" }));
                facts.push(fact(Msg::GlanceRestarts, at(status, &["restartCount"]).unwrap_or_else(|| "0".into())));
            }
            Container { name, facts }
        })
        .collect();
    Glance { facts, containers }
}

/// "Controlled By: Kind/name", when an owner reference is the object's controller.
fn controlled_by(document: &Value) -> Option<Fact> {
    let owners = document.at(&["metadata", "ownerReferences"]).and_then(Value::as_array)?;
    let owner = owners.iter().find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))?;
    let (kind, name) = (at(owner, &["kind"]).unwrap_or_default(), at(owner, &["name"]).unwrap_or_default());
    Some(fact(Msg::GlanceControlledBy, format!("{kind}/{name}")))
}

/// `describeContainerState`: the state's word, then its reason, exit code and times.
fn state(state: Option<&Value>) -> Vec<String> {
    let Some(state) = state else { return vec!["Waiting".into()] };
    if let Some(running) = state.get("running") {
        let mut lines = vec!["Running".to_owned()];
        lines.extend(at(running, &["startedAt"]).map(|t| format!("Started: {t}")));
        return lines;
    }
    if let Some(waiting) = state.get("waiting") {
        let mut lines = vec!["Waiting".to_owned()];
        lines.extend(at(waiting, &["reason"]).map(|r| format!("Reason: {r}")));
        return lines;
    }
    if let Some(terminated) = state.get("terminated") {
        let mut lines = vec!["Terminated".to_owned()];
        lines.extend(at(terminated, &["reason"]).map(|r| format!("Reason: {r}")));
        lines.push(format!("Exit Code: {}", at(terminated, &["exitCode"]).unwrap_or_else(|| "0".into())));
        lines.extend(at(terminated, &["startedAt"]).map(|t| format!("Started: {t}")));
        lines.extend(at(terminated, &["finishedAt"]).map(|t| format!("Finished: {t}")));
        return lines;
    }
    vec!["Waiting".into()]
}

/// `qos.GetPodQOS` for a pod whose status does not say: BestEffort without any request or
/// limit; Guaranteed when every container limits CPU and memory and requests what it limits;
/// Burstable otherwise.
fn qos(containers: &[Value]) -> &'static str {
    let set = |c: &Value, kind: &str, resource: &str| at(c, &["resources", kind, resource]);
    let any = containers.iter().any(|c| {
        ["requests", "limits"]
            .iter()
            .any(|k| c.at(&["resources", k]).and_then(Value::as_object).is_some_and(|m| !m.is_empty()))
    });
    if !any {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        ["cpu", "memory"].iter().all(|r| {
            let limit = set(c, "limits", r);
            limit.is_some() && set(c, "requests", r).is_none_or(|request| Some(request) == limit)
        })
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

fn deployment(document: &Value) -> Vec<Fact> {
    let count = |path: &[&str]| at(document, path).unwrap_or_else(|| "0".into());
    let replicas = format!(
        "{} desired | {} updated | {} total | {} available | {} unavailable",
        at(document, &["spec", "replicas"]).unwrap_or_else(|| "1".into()),
        count(&["status", "updatedReplicas"]),
        count(&["status", "replicas"]),
        count(&["status", "availableReplicas"]),
        count(&["status", "unavailableReplicas"]),
    );
    let strategy = at(document, &["spec", "strategy", "type"]).unwrap_or_else(|| "RollingUpdate".into());
    let mut facts = vec![
        fact(Msg::GlanceSelector, selector(document.at(&["spec", "selector"]))),
        fact(Msg::GlanceReplicas, replicas),
        fact(Msg::GlanceStrategy, strategy.clone()),
        fact(Msg::GlanceMinReady, count(&["spec", "minReadySeconds"])),
    ];
    if strategy == "RollingUpdate" {
        let rolling =
            |key: &str| at(document, &["spec", "strategy", "rollingUpdate", key]).unwrap_or_else(|| "25%".into());
        facts.push(fact(
            Msg::GlanceRollingUpdate,
            format!("{} max unavailable, {} max surge", rolling("maxUnavailable"), rolling("maxSurge")),
        ));
    }
    facts
}

fn service(document: &Value) -> Vec<Fact> {
    let mut facts = vec![
        fact(Msg::GlanceSelector, selector(document.at(&["spec", "selector"]))),
        fact(Msg::GlanceType, at(document, &["spec", "type"]).unwrap_or_else(|| "ClusterIP".into())),
    ];
    if let Some(ip) = at(document, &["spec", "clusterIP"]) {
        facts.push(fact(Msg::GlanceIp, ip));
    }
    let ips: Vec<String> = document
        .at(&["spec", "clusterIPs"])
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| text(Some(v)))
        .collect();
    if !ips.is_empty() {
        facts.push(fact(Msg::GlanceIps, ips.join(",")));
    }
    for port in document.at(&["spec", "ports"]).and_then(Value::as_array).unwrap_or_default() {
        let protocol = at(port, &["protocol"]).unwrap_or_else(|| "TCP".into());
        let name = at(port, &["name"]).unwrap_or_else(|| "<unset>".into());
        facts.push(fact(Msg::GlancePort, format!("{name}  {}/{protocol}", at(port, &["port"]).unwrap_or_default())));
        let target = at(port, &["targetPort"]).or_else(|| at(port, &["port"])).unwrap_or_default();
        facts.push(fact(Msg::GlanceTargetPort, format!("{target}/{protocol}")));
        if let Some(node_port) = at(port, &["nodePort"]) {
            facts.push(fact(Msg::GlanceNodePort, format!("{name}  {node_port}/{protocol}")));
        }
    }
    facts.push(fact(
        Msg::GlanceSessionAffinity,
        at(document, &["spec", "sessionAffinity"]).unwrap_or_else(|| "None".into()),
    ));
    facts
}

/// `name: value` lines of a map (a node's capacity, allocatable), by name.
fn quantities(value: Option<&Value>) -> Vec<String> {
    let mut lines: Vec<String> = value
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| format!("{k}: {}", text(Some(v)).unwrap_or_default())).collect())
        .unwrap_or_default();
    lines.sort();
    lines
}

fn node(document: &Value) -> Vec<Fact> {
    let unschedulable = document.at(&["spec", "unschedulable"]).and_then(Value::as_bool).unwrap_or(false);
    let addresses = document
        .at(&["status", "addresses"])
        .and_then(Value::as_array)
        .unwrap_or_default()
        .iter()
        .map(|a| format!("{}: {}", at(a, &["type"]).unwrap_or_default(), at(a, &["address"]).unwrap_or_default()))
        .collect();
    let mut facts = vec![
        fact(Msg::GlanceUnschedulable, unschedulable.to_string()),
        Fact { label: Msg::GlanceAddresses, lines: addresses },
        Fact { label: Msg::GlanceCapacity, lines: quantities(document.at(&["status", "capacity"])) },
        Fact { label: Msg::GlanceAllocatable, lines: quantities(document.at(&["status", "allocatable"])) },
    ];
    let info = |key: &str| at(document, &["status", "nodeInfo", key]).unwrap_or_default();
    facts.push(fact(Msg::GlanceOsImage, info("osImage")));
    facts.push(fact(Msg::GlanceRuntime, info("containerRuntimeVersion")));
    facts.push(fact(Msg::GlanceKubelet, info("kubeletVersion")));
    if let Some(cidr) = at(document, &["spec", "podCIDR"]) {
        facts.push(fact(Msg::GlancePodCidr, cidr));
    }
    facts
}

/// `describeJob`: its controller, parallelism, completions, mode, suspension, backoff limit, when
/// it started and completed, and its pods by state.
fn job(document: &Value) -> Vec<Fact> {
    let spec = |key: &str| at(document, &["spec", key]);
    let status = |key: &str| at(document, &["status", key]).unwrap_or_else(|| "0".into());
    let mut facts = Vec::new();
    facts.extend(controlled_by(document));
    facts.push(fact(Msg::GlanceParallelism, spec("parallelism").unwrap_or_else(|| "1".into())));
    facts.push(fact(Msg::GlanceCompletions, spec("completions").unwrap_or_else(|| "<unset>".into())));
    facts.push(fact(Msg::GlanceCompletionMode, spec("completionMode").unwrap_or_else(|| "NonIndexed".into())));
    facts.push(fact(Msg::GlanceSuspend, spec("suspend").unwrap_or_else(|| "false".into())));
    facts.push(fact(Msg::GlanceBackoffLimit, spec("backoffLimit").unwrap_or_else(|| "6".into())));
    if let Some(started) = at(document, &["status", "startTime"]) {
        facts.push(fact(Msg::GlanceStartTime, started));
    }
    if let Some(completed) = at(document, &["status", "completionTime"]) {
        facts.push(fact(Msg::GlanceCompletedAt, completed));
    }
    facts.push(fact(
        Msg::GlancePodsStatuses,
        format!(
            "{} Active ({} Ready) / {} Succeeded / {} Failed",
            status("active"),
            status("ready"),
            status("succeeded"),
            status("failed")
        ),
    ));
    facts
}

#[cfg(test)]
#[path = "glance_tests.rs"]
mod tests;
