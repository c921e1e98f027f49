//! Server-side Table columns and cells of the workload kinds the controllers run, as
//! kube-apiserver's printers (`pkg/printers/internalversion/printers.go`) write them:
//! StatefulSets, DaemonSets, Jobs, CronJobs, PodDisruptionBudgets and ControllerRevisions.

use serde_json::{json, Value};

use crate::encoding::column::Column;
use crate::store::object::{self, age, age_of, human_duration};
use crate::store::registry::ResourceType;

fn col(name: &str, ty: &str, description: &str, priority: i64) -> Column {
    Column {
        name: name.into(),
        ty: ty.into(),
        format: if name == "Name" { "name".into() } else { String::new() },
        description: description.into(),
        priority,
    }
}

const NAME: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

/// The columns of `rt`, if it is one of these kinds.
pub fn columns(rt: &ResourceType) -> Option<Vec<Column>> {
    let s = |n: &str, d: &str, p: i64| col(n, "string", d, p);
    let i = |n: &str, d: &str, p: i64| col(n, "integer", d, p);
    let (name, age) = (s("Name", NAME, 0), s("Age", AGE, 0));
    let containers = || s("Containers", "Names of each container in the template.", 1);
    let images = || s("Images", "Images referenced by each container in the template.", 1);
    let selector = || s("Selector", "A label query over pods that should match the replica count.", 1);
    Some(match (rt.group.as_str(), rt.plural.as_str()) {
        ("apps", "statefulsets") => vec![name, s("Ready", "Number of the pod with ready state", 0), age, containers(), images()],
        ("apps", "daemonsets") => vec![
            name,
            i("Desired", "The total number of nodes that should be running the daemon pod.", 0),
            i("Current", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.", 0),
            i("Ready", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.", 0),
            i("Up-to-date", "The total number of nodes that are running updated daemon pod", 0),
            i("Available", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)", 0),
            s("Node Selector", "NodeSelector is a selector which must be true for the pod to fit on a node.", 0),
            age,
            containers(),
            images(),
            selector(),
        ],
        ("batch", "jobs") => vec![
            name,
            s("Status", "Status of the job.", 0),
            s("Completions", "The desired number of successfully finished pods the job should be run with.", 0),
            s("Duration", "Time required to complete the job.", 0),
            age,
            containers(),
            images(),
            selector(),
        ],
        ("batch", "cronjobs") => vec![
            name,
            s("Schedule", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0),
            s("Timezone", "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.", 0),
            col("Suspend", "boolean", "This flag tells the controller to suspend subsequent executions.", 0),
            i("Active", "A list of pointers to currently running jobs.", 0),
            s("Last Schedule", "Information when was the last time the job was successfully scheduled.", 0),
            age,
            containers(),
            images(),
            selector(),
        ],
        ("policy", "poddisruptionbudgets") => vec![
            name,
            s("Min Available", "The minimum number of pods that must be available simultaneously.  This can be either an integer or a string specifying a percentage, e.g. \"28%\".", 0),
            s("Max Unavailable", "The maximum number of pods that may be unavailable simultaneously.  This can be either an integer or a string specifying a percentage, e.g. \"28%\".", 0),
            i("Allowed Disruptions", "Calculated number of pods that may be disrupted at this time.", 0),
            age,
        ],
        ("apps", "controllerrevisions") => vec![
            name,
            s("Controller", "Controller of the object.", 0),
            i("Revision", "Revision indicates the revision of the state represented by Data.", 0),
            age,
        ],
        _ => return None,
    })
}

fn int(v: &Value) -> Value {
    json!(v.as_i64().unwrap_or(0))
}

fn list_of(o: &Value, field: &str) -> Value {
    let spec = &o["spec"]["template"]["spec"];
    let spec = if spec.is_null() { &o["spec"]["jobTemplate"]["spec"]["template"]["spec"] } else { spec };
    json!(spec["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c[field].as_str().unwrap_or_default())
        .collect::<Vec<_>>()
        .join(","))
}

fn selector(o: &Value) -> Value {
    let labels: Vec<String> = o["spec"]["selector"]["matchLabels"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
        .collect();
    json!(if labels.is_empty() { "<none>".to_string() } else { labels.join(",") })
}

fn has_condition(o: &Value, kind: &str) -> bool {
    o["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == kind && c["status"] == "True")
}

/// `printJob`'s status column.
fn job_status(o: &Value) -> &'static str {
    if has_condition(o, "Complete") {
        "Complete"
    } else if has_condition(o, "Failed") {
        "Failed"
    } else if object::is_deleting(o) {
        "Terminating"
    } else if has_condition(o, "Suspended") {
        "Suspended"
    } else if has_condition(o, "FailureTarget") {
        "FailureTarget"
    } else if has_condition(o, "SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else {
        "Running"
    }
}

fn job_cells(o: &Value) -> Vec<Value> {
    let succeeded = o["status"]["succeeded"].as_i64().unwrap_or(0);
    let completions = match o["spec"]["completions"].as_i64() {
        Some(c) => format!("{succeeded}/{c}"),
        None => match o["spec"]["parallelism"].as_i64().unwrap_or(0) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    let start = o["status"]["startTime"].as_str().and_then(object::parse_time);
    let end = o["status"]["completionTime"].as_str().and_then(object::parse_time).unwrap_or_else(object::now);
    let duration = start.map(|s| human_duration((end - s).num_seconds())).unwrap_or_default();
    vec![
        json!(object::name(o)),
        json!(job_status(o)),
        json!(completions),
        json!(duration),
        json!(age(o)),
        list_of(o, "name"),
        list_of(o, "image"),
        selector(o),
    ]
}

/// The cells of `o`, if its kind is one of these.
pub fn cells(rt: &ResourceType, o: &Value) -> Option<Vec<Value>> {
    let name = json!(object::name(o));
    let st = &o["status"];
    let intstr = |v: &Value| match v {
        Value::Null => json!("N/A"),
        Value::String(s) => json!(s),
        other => json!(other.to_string()),
    };
    Some(match (rt.group.as_str(), rt.plural.as_str()) {
        ("apps", "statefulsets") => vec![
            name,
            json!(format!(
                "{}/{}",
                st["readyReplicas"].as_i64().unwrap_or(0),
                o["spec"]["replicas"].as_i64().unwrap_or(1)
            )),
            json!(age(o)),
            list_of(o, "name"),
            list_of(o, "image"),
        ],
        ("apps", "daemonsets") => {
            let node_selector: Vec<String> = o["spec"]["template"]["spec"]["nodeSelector"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                .collect();
            vec![
                name,
                int(&st["desiredNumberScheduled"]),
                int(&st["currentNumberScheduled"]),
                int(&st["numberReady"]),
                int(&st["updatedNumberScheduled"]),
                int(&st["numberAvailable"]),
                json!(if node_selector.is_empty() { "<none>".to_string() } else { node_selector.join(",") }),
                json!(age(o)),
                list_of(o, "name"),
                list_of(o, "image"),
                selector(o),
            ]
        }
        ("batch", "jobs") => job_cells(o),
        ("batch", "cronjobs") => vec![
            name,
            json!(o["spec"]["schedule"].as_str().unwrap_or_default()),
            json!(o["spec"]["timeZone"].as_str().unwrap_or("<none>")),
            json!(o["spec"]["suspend"] == true),
            json!(st["active"].as_array().map_or(0, Vec::len)),
            json!(st["lastScheduleTime"].as_str().map_or("<none>".to_string(), |t| age_of(Some(t)))),
            json!(age(o)),
            list_of(o, "name"),
            list_of(o, "image"),
            selector(o),
        ],
        ("policy", "poddisruptionbudgets") => {
            vec![
                name,
                intstr(&o["spec"]["minAvailable"]),
                intstr(&o["spec"]["maxUnavailable"]),
                int(&st["disruptionsAllowed"]),
                json!(age(o)),
            ]
        }
        ("apps", "controllerrevisions") => {
            let owner = o["metadata"]["ownerReferences"]
                .as_array()
                .and_then(|r| r.iter().find(|r| r["controller"] == true))
                .map_or("<none>".to_string(), |r| {
                    let group =
                        r["apiVersion"].as_str().unwrap_or_default().split('/').next().unwrap_or_default().to_string();
                    let kind = r["kind"].as_str().unwrap_or_default().to_lowercase();
                    format!("{kind}.{group}/{}", r["name"].as_str().unwrap_or_default())
                });
            vec![name, json!(owner), int(&o["revision"]), json!(age(o))]
        }
        _ => return None,
    })
}
