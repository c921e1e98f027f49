//! Server-side Table rendering: column definitions with priorities for the common built-in kinds,
//! the CRD's additionalPrinterColumns (the workload kinds' in `workload_table`), the default Name / Created At table for everything else,
//! and PartialObjectMetadata for `includeObject=Metadata`.

use kube_wire::params::IncludeObject;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::encoding::ordered::{order_of, Order, Ordered};
use crate::store::object::{self, age, age_of, path};
use crate::store::registry::ResourceType;

const NAME_DESC: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DESC: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

pub use crate::encoding::column::Column;

fn col(name: &str, ty: &str, description: &str, priority: i64) -> Column {
    let format = if name == "Name" && priority == 0 { "name" } else { "" };
    Column { name: name.into(), ty: ty.into(), format: format.into(), description: description.into(), priority }
}

/// `includeObject` of a Table request, worded as kube-apiserver refuses a bad one (the type is
/// api's).
pub fn parse_include_object(value: Option<&str>) -> Result<IncludeObject, String> {
    match value {
        None | Some("") | Some("Metadata") => Ok(IncludeObject::Metadata),
        Some("None") => Ok(IncludeObject::None),
        Some("Object") => Ok(IncludeObject::Object),
        Some(other) => Err(format!(
            "includeObject: Unsupported value: \"{other}\": supported values: \"None\", \"Metadata\", \"Object\""
        )),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub kind: &'static str,
    #[serde(rename = "apiVersion")]
    pub api_version: &'static str,
    pub metadata: Map<String, Value>,
    #[serde(rename = "columnDefinitions")]
    pub column_definitions: Option<Vec<Column>>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub cells: Vec<Value>,
    pub object: Option<RowObject>,
}

/// A row's object: PartialObjectMetadata (a struct) or the object in its kind's order.
#[derive(Debug, Clone)]
pub struct RowObject {
    pub value: Value,
    pub order: Order,
}

impl Serialize for RowObject {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Ordered::new(&self.value, self.order).serialize(s)
    }
}

pub fn columns(rt: &ResourceType) -> Vec<Column> {
    if let Some(custom) = rt.custom.as_ref().filter(|c| !c.printer_columns.is_empty()) {
        let mut cols = vec![col("Name", "string", NAME_DESC, 0)];
        for c in &custom.printer_columns {
            let json_path = c["jsonPath"].as_str().unwrap_or_default();
            let description = c["description"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| format!("Custom resource definition column (in JSONPath format): {json_path}"));
            cols.push(Column {
                name: c["name"].as_str().unwrap_or_default().into(),
                ty: c["type"].as_str().unwrap_or("string").into(),
                format: c["format"].as_str().unwrap_or_default().into(),
                description,
                priority: c["priority"].as_i64().unwrap_or(0),
            });
        }
        return cols;
    }
    let s = |n: &str, d: &str, p: i64| col(n, "string", d, p);
    let i = |n: &str, d: &str, p: i64| col(n, "integer", d, p);
    let name = col("Name", "string", NAME_DESC, 0);
    let age = s("Age", AGE_DESC, 0);
    if rt.is_custom() {
        return vec![name, col("Age", "date", AGE_DESC, 0)];
    }
    if let Some(cols) = crate::encoding::workload_table::columns(rt) {
        return cols;
    }
    match (rt.group.as_str(), rt.plural.as_str()) {
        ("", "pods") => vec![
            name,
            s("Ready", "The aggregate readiness state of this pod for accepting traffic.", 0),
            s("Status", "The aggregate status of the containers in this pod.", 0),
            s("Restarts", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", 0),
            age,
            s("IP", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1),
            s("Node", "NodeName indicates in which node this pod is scheduled.", 1),
            s("Nominated Node", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.", 1),
            s("Readiness Gates", "If specified, all readiness gates will be evaluated for pod readiness.", 1),
        ],
        ("apps", "deployments") => vec![
            name,
            s("Ready", "Number of the pod with ready state", 0),
            i("Up-to-date", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0),
            i("Available", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0),
            age,
            s("Containers", "Names of each container in the template.", 1),
            s("Images", "Images referenced by each container in the template.", 1),
            s("Selector", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1),
        ],
        ("apps", "replicasets") => vec![
            name,
            i("Desired", "Number of desired pods.", 0),
            i("Current", "Replicas is the most recently observed number of replicas.", 0),
            i("Ready", "The number of ready replicas for this replica set.", 0),
            age,
            s("Containers", "Names of each container in the template.", 1),
            s("Images", "Images referenced by each container in the template.", 1),
            s("Selector", "Selector is a label query over pods that should match the replica count.", 1),
        ],
        ("", "services") => vec![
            name,
            s("Type", "type determines how the Service is exposed.", 0),
            s("Cluster-IP", "clusterIP is the IP address of the service.", 0),
            s("External-IP", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.", 0),
            s("Port(s)", "The list of ports that are exposed by this service.", 0),
            age,
            s("Selector", "Route service traffic to pods with label keys and values matching this selector.", 1),
        ],
        ("", "nodes") => vec![
            name,
            s("Status", "The status of the node", 0),
            s("Roles", "The roles of the node", 0),
            age,
            s("Version", "Kubelet Version reported by the node.", 0),
            s("Internal-IP", "List of addresses reachable to the node.", 1),
            s("External-IP", "List of addresses reachable to the node.", 1),
            s("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
            s("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
            s("Container-Runtime", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1),
        ],
        ("", "namespaces") => vec![name, s("Status", "The status of the namespace", 0), age],
        ("", "events") => vec![
            s("Last Seen", "The time at which the most recent occurrence of this event was recorded.", 0),
            s("Type", "Type of this event (Normal, Warning), new types could be added in the future.", 0),
            s("Reason", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", 0),
            s("Object", "The object that this event is about.", 0),
            s("Subobject", "The subobject that this event is about.", 1),
            s("Source", "The component reporting this event. Should be a short machine understandable string.", 1),
            s("Message", "A human-readable description of the status of this operation.", 0),
            s("First Seen", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
            i("Count", "The number of times this event has occurred.", 1),
            col("Name", "string", NAME_DESC, 1),
        ],
        ("", "configmaps") => vec![name, i("Data", "Data contains the configuration data.", 0), age],
        // pkg/printers/internalversion/printers.go, endpointSliceColumnDefinitions.
        ("discovery.k8s.io", "endpointslices") => vec![
            name,
            s("AddressType", "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same address type. This field is immutable after creation.", 0),
            s("Ports", "ports specifies the list of network ports exposed by each endpoint in this slice.", 0),
            s("Endpoints", "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.", 0),
            age,
        ],
        ("", "secrets") => vec![
            name,
            s("Type", "Used to facilitate programmatic handling of secret data.", 0),
            i("Data", "Data contains the secret data.", 0),
            age,
        ],
        _ => vec![name, col("Created At", "date", AGE_DESC, 0)],
    }
}

fn text(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).unwrap_or_default().to_string()
}

fn int(v: Option<&Value>) -> Value {
    json!(v.and_then(Value::as_i64).unwrap_or(0))
}

/// `listWithMoreString` over at most three: `a,b,c + 2 more...`, `<unset>` for none.
fn three_and_more(items: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = items.collect();
    let shown = all.iter().take(3).cloned().collect::<Vec<_>>().join(",");
    match all.len() {
        0 => "<unset>".into(),
        n if n > 3 => format!("{shown} + {} more...", n - 3),
        _ => shown,
    }
}

fn or_none(s: String) -> String {
    if s.is_empty() {
        "<none>".into()
    } else {
        s
    }
}

fn container_field(template_spec: Option<&Value>, field: &str) -> String {
    template_spec
        .and_then(|s| s["containers"].as_array())
        .map(|cs| cs.iter().map(|c| text(c.get(field))).collect::<Vec<_>>().join(","))
        .unwrap_or_default()
}

fn selector_text(sel: Option<&Value>) -> String {
    let Some(sel) = sel else { return "<none>".into() };
    let labels = sel.get("matchLabels").unwrap_or(sel);
    let parts: Vec<String> = labels
        .as_object()
        .map(|m| m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect())
        .unwrap_or_default();
    or_none(parts.join(","))
}

fn pod_cells(o: &Value) -> Vec<Value> {
    let statuses = o["status"]["containerStatuses"].as_array().cloned().unwrap_or_default();
    let total = o["spec"]["containers"].as_array().map(Vec::len).unwrap_or(0);
    let ready = statuses.iter().filter(|c| c["ready"] == true).count();
    let restarts: i64 = statuses.iter().filter_map(|c| c["restartCount"].as_i64()).sum();
    let mut reason = text(o.pointer("/status/phase"));
    if let Some(r) = o["status"]["reason"].as_str() {
        reason = r.to_string();
    }
    for c in &statuses {
        if let Some(w) = c["state"]["waiting"]["reason"].as_str() {
            reason = w.to_string();
        } else if let Some(t) = c["state"]["terminated"]["reason"].as_str() {
            reason = t.to_string();
        }
    }
    if object::is_deleting(o) {
        reason = "Terminating".into();
    }
    vec![
        json!(object::name(o)),
        json!(format!("{ready}/{total}")),
        json!(reason),
        json!(restarts.to_string()),
        json!(age(o)),
        json!(or_none(text(o.pointer("/status/podIP")))),
        json!(or_none(text(o.pointer("/spec/nodeName")))),
        json!(or_none(text(o.pointer("/status/nominatedNodeName")))),
        json!("<none>"),
    ]
}

fn service_ports(o: &Value) -> String {
    let ports: Vec<String> = o["spec"]["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let port = p["port"].as_i64().unwrap_or(0);
            let proto = p["protocol"].as_str().unwrap_or("TCP");
            match p["nodePort"].as_i64() {
                Some(np) => format!("{port}:{np}/{proto}"),
                None => format!("{port}/{proto}"),
            }
        })
        .collect();
    or_none(ports.join(","))
}

fn node_cells(o: &Value) -> Vec<Value> {
    let ready = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == "Ready")
        .map(|c| if c["status"] == "True" { "Ready" } else { "NotReady" })
        .unwrap_or("Unknown");
    let mut status = ready.to_string();
    if o["spec"]["unschedulable"] == true {
        status.push_str(",SchedulingDisabled");
    }
    let roles: Vec<&str> = object::labels(o)
        .map(|l| l.keys().filter_map(|k| k.strip_prefix("node-role.kubernetes.io/")).collect())
        .unwrap_or_default();
    let addr = |ty: &str| {
        or_none(
            o["status"]["addresses"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|a| a["type"] == ty)
                .map(|a| text(a.get("address")))
                .unwrap_or_default(),
        )
    };
    let info = &o["status"]["nodeInfo"];
    vec![
        json!(object::name(o)),
        json!(status),
        json!(or_none(roles.join(","))),
        json!(age(o)),
        json!(text(info.get("kubeletVersion"))),
        json!(addr("InternalIP")),
        json!(addr("ExternalIP")),
        json!(text(info.get("osImage"))),
        json!(text(info.get("kernelVersion"))),
        json!(text(info.get("containerRuntimeVersion"))),
    ]
}

fn custom_cells(rt: &ResourceType, o: &Value) -> Vec<Value> {
    let mut cells = vec![json!(object::name(o))];
    for c in rt.custom.iter().flat_map(|c| &c.printer_columns) {
        let jp = c["jsonPath"].as_str().unwrap_or_default();
        let v = path(o, jp).cloned().unwrap_or(Value::Null);
        cells.push(match c["type"].as_str() {
            Some("date") => match v.as_str() {
                Some(t) => json!(age_of(Some(t))),
                None => Value::Null,
            },
            _ => v,
        });
    }
    cells
}

pub fn cells(rt: &ResourceType, o: &Value) -> Vec<Value> {
    if rt.custom.as_ref().is_some_and(|c| !c.printer_columns.is_empty()) {
        return custom_cells(rt, o);
    }
    if rt.is_custom() {
        return vec![json!(object::name(o)), json!(age(o))];
    }
    if let Some(cells) = crate::encoding::workload_table::cells(rt, o) {
        return cells;
    }
    let name = json!(object::name(o));
    match (rt.group.as_str(), rt.plural.as_str()) {
        ("", "pods") => pod_cells(o),
        ("apps", "deployments") => vec![
            name,
            json!(format!(
                "{}/{}",
                o["status"]["readyReplicas"].as_i64().unwrap_or(0),
                o["spec"]["replicas"].as_i64().unwrap_or(1)
            )),
            int(o.pointer("/status/updatedReplicas")),
            int(o.pointer("/status/availableReplicas")),
            json!(age(o)),
            json!(container_field(o.pointer("/spec/template/spec"), "name")),
            json!(container_field(o.pointer("/spec/template/spec"), "image")),
            json!(selector_text(o.pointer("/spec/selector"))),
        ],
        ("apps", "replicasets") => vec![
            name,
            int(o.pointer("/spec/replicas")),
            int(o.pointer("/status/replicas")),
            int(o.pointer("/status/readyReplicas")),
            json!(age(o)),
            json!(container_field(o.pointer("/spec/template/spec"), "name")),
            json!(container_field(o.pointer("/spec/template/spec"), "image")),
            json!(selector_text(o.pointer("/spec/selector"))),
        ],
        ("", "services") => vec![
            name,
            json!(o["spec"]["type"].as_str().unwrap_or("ClusterIP")),
            json!(or_none(text(o.pointer("/spec/clusterIP")))),
            json!(or_none(
                o["spec"]["externalIPs"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(","))
                    .unwrap_or_default()
            )),
            json!(service_ports(o)),
            json!(age(o)),
            json!(selector_text(o.pointer("/spec/selector"))),
        ],
        ("", "nodes") => node_cells(o),
        ("", "namespaces") => vec![name, json!(o["status"]["phase"].as_str().unwrap_or("Active")), json!(age(o))],
        ("", "events") => {
            let last = o["lastTimestamp"].as_str().or(o["eventTime"].as_str());
            let involved = &o["involvedObject"];
            vec![
                json!(age_of(last)),
                json!(text(o.get("type"))),
                json!(text(o.get("reason"))),
                json!(format!(
                    "{}/{}",
                    involved["kind"].as_str().unwrap_or_default().to_lowercase(),
                    involved["name"].as_str().unwrap_or_default()
                )),
                json!(text(involved.get("fieldPath"))),
                json!(text(o.pointer("/source/component"))),
                json!(text(o.get("message"))),
                json!(age_of(o["firstTimestamp"].as_str())),
                int(o.get("count")),
                name,
            ]
        }
        // printEndpointSlice: formatDiscoveryPorts, formatDiscoveryEndpoints.
        ("discovery.k8s.io", "endpointslices") => {
            let ports = o["ports"].as_array().into_iter().flatten().map(|p| match (&p["port"], &p["name"]) {
                (Value::Number(n), _) => n.to_string(),
                (_, Value::String(name)) => name.clone(),
                _ => "*".into(),
            });
            let addresses = o["endpoints"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|e| e["addresses"].as_array().into_iter().flatten())
                .map(|a| a.as_str().unwrap_or_default().to_string());
            vec![
                name,
                json!(text(o.get("addressType"))),
                json!(three_and_more(ports)),
                json!(three_and_more(addresses)),
                json!(age(o)),
            ]
        }
        ("", "configmaps") => {
            let n = o["data"].as_object().map(|m| m.len()).unwrap_or(0)
                + o["binaryData"].as_object().map(|m| m.len()).unwrap_or(0);
            vec![name, json!(n), json!(age(o))]
        }
        ("", "secrets") => vec![
            name,
            json!(text(o.get("type"))),
            json!(o["data"].as_object().map(|m| m.len()).unwrap_or(0)),
            json!(age(o)),
        ],
        _ => vec![name, o["metadata"]["creationTimestamp"].clone()],
    }
}

/// The PartialObjectMetadata form of an object.
pub fn partial_metadata(o: &Value, api_version: &str) -> Value {
    json!({"kind": "PartialObjectMetadata", "apiVersion": api_version, "metadata": o["metadata"]})
}

pub fn row(rt: &ResourceType, o: &Value, include: IncludeObject, api_version: &str) -> Row {
    let object = match include {
        IncludeObject::None => None,
        IncludeObject::Metadata => Some(RowObject { value: partial_metadata(o, api_version), order: Order::Typed }),
        IncludeObject::Object => Some(RowObject { value: o.clone(), order: order_of(rt) }),
    };
    Row { cells: cells(rt, o), object }
}

pub fn table(
    rt: &ResourceType,
    items: &[&Value],
    metadata: Map<String, Value>,
    include: IncludeObject,
    api_version: &'static str,
    with_columns: bool,
) -> Table {
    Table {
        kind: "Table",
        api_version,
        metadata,
        column_definitions: with_columns.then(|| columns(rt)),
        rows: items.iter().map(|o| row(rt, o, include, api_version)).collect(),
    }
}

/// The BOOKMARK of a Table watch: no columns and one row of empty cells.
pub fn bookmark_table(rt: &ResourceType, bookmark: &Value, api_version: &'static str) -> Table {
    let n = columns(rt).len();
    let mut cells = vec![json!("")];
    cells.extend(std::iter::repeat_n(Value::Null, n.saturating_sub(1)));
    Table {
        kind: "Table",
        api_version,
        metadata: bookmark["metadata"]["resourceVersion"]
            .as_str()
            .map(|rv| {
                let mut m = Map::new();
                m.insert("resourceVersion".into(), json!(rv));
                m
            })
            .unwrap_or_default(),
        column_definitions: None,
        rows: vec![Row {
            cells,
            object: Some(RowObject { value: partial_metadata(bookmark, api_version), order: Order::Typed }),
        }],
    }
}
