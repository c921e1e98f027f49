//! What a simulated process sees of its container, made from the pod as the kubelet would make
//! it: the environment (the image's `PATH`, `HOSTNAME`, `envFrom` and `env` with `valueFrom`
//! ConfigMap, Secret and field references and `$(VAR)` expansion, the service links of the
//! namespace, `HOME`) and the files of the ConfigMap, Secret, downward API and projected volumes
//! the container mounts (a service account token is not simulated: no file). Pure: the objects it
//! reads come from a [`Lookup`].

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::Value;

/// What the container reads from the cluster: a ConfigMap or Secret by namespace and name
/// (`"configmaps"` or `"secrets"`), and the Services of a namespace.
pub trait Lookup {
    fn object(&self, plural: &str, namespace: &str, name: &str) -> Option<Value>;
    fn services(&self, namespace: &str) -> Vec<Value>;
}

/// The container a process runs in.
#[derive(Debug, Clone, Default)]
pub struct Container {
    pub image: String,
    pub hostname: String,
    /// In the order `env` prints them.
    pub env: Vec<(String, String)>,
    /// Absolute path → content.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Where its read-only volumes are mounted (absolute paths): what is under them cannot be
    /// written.
    pub read_only: Vec<String>,
    /// The pod's `status.startTime` (RFC 3339): `uptime` counts from it.
    pub started: Option<String>,
    /// What the container runs: its `command` and `args`, `$(VAR)` expanded as the kubelet
    /// expands them; `args` alone for an image known to have no ENTRYPOINT (busybox, alpine…);
    /// else `None`: the image's own entrypoint, which kube-sim does not know.
    pub command: Option<Vec<String>>,
}

impl Container {
    /// The container `name` of `pod` (which the caller has found in its spec).
    pub fn of(pod: &Value, name: &str, tty: bool, lookup: &dyn Lookup) -> Container {
        let spec = &pod["spec"];
        let c = spec["containers"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(spec["initContainers"].as_array().into_iter().flatten())
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or(Value::Null);
        let namespace = text(&pod["metadata"]["namespace"]);
        let pod_name = text(&pod["metadata"]["name"]);
        let hostname = spec["hostname"].as_str().filter(|h| !h.is_empty()).unwrap_or(&pod_name).to_string();
        let mut env = vec![
            ("PATH".to_string(), "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".to_string()),
            ("HOSTNAME".to_string(), hostname.clone()),
        ];
        if tty {
            env.push(("TERM".into(), "xterm".into()));
        }
        let mut defined = container_env(pod, &c, &namespace, lookup);
        let links = spec["enableServiceLinks"] != false;
        for (k, v) in service_env(lookup, &namespace, links) {
            if !defined.iter().any(|(d, _)| *d == k) {
                defined.push((k, v));
            }
        }
        env.extend(defined);
        env.push(("HOME".into(), "/root".into()));
        let files = mounted_files(pod, &c, &namespace, lookup);
        let read_only = read_only_mounts(pod, &c);
        let started = pod["status"]["startTime"].as_str().map(str::to_string);
        let words = |key: &str| -> Vec<String> {
            c[key].as_array().into_iter().flatten().map(|w| expand(w.as_str().unwrap_or_default(), &env)).collect()
        };
        let image = text(&c["image"]);
        let command = match (words("command"), words("args")) {
            (command, args) if !command.is_empty() => Some([command, args].concat()),
            // An image without an ENTRYPOINT runs its arguments as the command.
            (_, args) if !args.is_empty() && without_entrypoint(&image) => Some(args),
            _ => None,
        };
        Container { image, hostname, env, files, read_only, started, command }
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.env.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Whether the image is one of the base images whose manifest has no ENTRYPOINT (only a CMD,
/// which `args` replaces), so that `args` are the whole command line.
fn without_entrypoint(image: &str) -> bool {
    // The last path segment without its tag or digest (`host:5000/library/busybox:1.36`).
    let last = image.rsplit('/').next().unwrap_or(image);
    let name = last.split([':', '@']).next().unwrap_or(last);
    matches!(name, "busybox" | "alpine" | "debian" | "ubuntu" | "fedora" | "python")
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The `envFrom` and `env` of a container, resolved as the kubelet resolves them.
fn container_env(pod: &Value, c: &Value, namespace: &str, lookup: &dyn Lookup) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let set = |out: &mut Vec<(String, String)>, k: String, v: String| {
        out.retain(|(e, _)| *e != k);
        out.push((k, v));
    };
    for from in c["envFrom"].as_array().into_iter().flatten() {
        let prefix = text(&from["prefix"]);
        let (plural, source) = if from["configMapRef"].is_object() {
            ("configmaps", &from["configMapRef"])
        } else {
            ("secrets", &from["secretRef"])
        };
        let Some(obj) = lookup.object(plural, namespace, source["name"].as_str().unwrap_or_default()) else { continue };
        for (k, v) in data_of(&obj) {
            if let Ok(v) = String::from_utf8(v) {
                set(&mut out, format!("{prefix}{k}"), v);
            }
        }
    }
    for e in c["env"].as_array().into_iter().flatten() {
        let name = text(&e["name"]);
        let value = match &e["valueFrom"] {
            Value::Object(_) => match value_from(pod, &e["valueFrom"], namespace, lookup) {
                Some(v) => v,
                None => continue,
            },
            _ => expand(&text(&e["value"]), &out),
        };
        set(&mut out, name, value);
    }
    out
}

/// `$(VAR)` replaced by an earlier variable's value (unknown ones stay as written; `$$(VAR)` is a
/// literal `$(VAR)`), as the kubelet's expansion does.
fn expand(value: &str, env: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix("$(") {
            out.push_str("$(");
            rest = tail;
        } else if let Some((name, tail)) = after.strip_prefix('(').and_then(|a| a.split_once(')')) {
            match env.iter().rev().find(|(k, _)| k == name) {
                Some((_, v)) => out.push_str(v),
                None => out.push_str(&format!("$({name})")),
            }
            rest = tail;
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn value_from(pod: &Value, from: &Value, namespace: &str, lookup: &dyn Lookup) -> Option<String> {
    for (field, plural) in [("configMapKeyRef", "configmaps"), ("secretKeyRef", "secrets")] {
        let r = &from[field];
        if r.is_object() {
            let obj = lookup.object(plural, namespace, r["name"].as_str()?)?;
            let key = r["key"].as_str()?;
            return data_of(&obj).remove(key).and_then(|v| String::from_utf8(v).ok());
        }
    }
    if let Some(path) = from["fieldRef"]["fieldPath"].as_str() {
        return field(pod, path);
    }
    None
}

/// A downward API field of the pod.
fn field(pod: &Value, path: &str) -> Option<String> {
    let meta = &pod["metadata"];
    let keyed = |map: &Value, rest: &str| -> Option<String> {
        let key = rest.strip_prefix("['")?.strip_suffix("']")?;
        map[key].as_str().map(str::to_string)
    };
    match path {
        "metadata.name" => meta["name"].as_str().map(str::to_string),
        "metadata.namespace" => meta["namespace"].as_str().map(str::to_string),
        "metadata.uid" => meta["uid"].as_str().map(str::to_string),
        "spec.nodeName" => pod["spec"]["nodeName"].as_str().map(str::to_string),
        "spec.serviceAccountName" => pod["spec"]["serviceAccountName"].as_str().map(str::to_string),
        "status.podIP" => pod["status"]["podIP"].as_str().map(str::to_string),
        "status.hostIP" => pod["status"]["hostIP"].as_str().map(str::to_string),
        _ => {
            if let Some(rest) = path.strip_prefix("metadata.labels") {
                keyed(&meta["labels"], rest)
            } else if let Some(rest) = path.strip_prefix("metadata.annotations") {
                keyed(&meta["annotations"], rest)
            } else {
                None
            }
        }
    }
}

/// A ConfigMap's `data` and `binaryData`, or a Secret's `data` decoded (and `stringData`).
fn data_of(obj: &Value) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let b64 = base64::engine::general_purpose::STANDARD;
    let secret = obj["kind"] == "Secret";
    for (k, v) in obj["data"].as_object().into_iter().flatten() {
        let Some(s) = v.as_str() else { continue };
        let bytes = if secret { b64.decode(s).unwrap_or_default() } else { s.as_bytes().to_vec() };
        out.insert(k.clone(), bytes);
    }
    for (k, v) in obj["binaryData"].as_object().into_iter().flatten() {
        if let Some(bytes) = v.as_str().and_then(|s| b64.decode(s).ok()) {
            out.insert(k.clone(), bytes);
        }
    }
    for (k, v) in obj["stringData"].as_object().into_iter().flatten() {
        if let Some(s) = v.as_str() {
            out.insert(k.clone(), s.as_bytes().to_vec());
        }
    }
    out
}

/// The Docker-link style variables of the namespace's Services (with `enableServiceLinks`) and of
/// the `kubernetes` Service of `default` (always), as the kubelet's `getServiceEnvVarMap` makes
/// them.
fn service_env(lookup: &dyn Lookup, namespace: &str, links: bool) -> Vec<(String, String)> {
    let mut services: Vec<Value> = Vec::new();
    if links {
        services.extend(lookup.services(namespace));
    }
    if namespace != "default" || !links {
        services.extend(lookup.services("default").into_iter().filter(|s| s["metadata"]["name"] == "kubernetes"));
    }
    services.sort_by_key(|s| text(&s["metadata"]["name"]));
    let mut out = Vec::new();
    for s in &services {
        let ip = text(&s["spec"]["clusterIP"]);
        if ip.is_empty() || ip == "None" {
            continue;
        }
        let prefix = text(&s["metadata"]["name"]).to_uppercase().replace('-', "_");
        let ports = s["spec"]["ports"].as_array().cloned().unwrap_or_default();
        out.push((format!("{prefix}_SERVICE_HOST"), ip.clone()));
        for (i, p) in ports.iter().enumerate() {
            let port = p["port"].as_i64().unwrap_or(0).to_string();
            if i == 0 {
                out.push((format!("{prefix}_SERVICE_PORT"), port.clone()));
            }
            if let Some(name) = p["name"].as_str().filter(|n| !n.is_empty()) {
                out.push((format!("{prefix}_SERVICE_PORT_{}", name.to_uppercase().replace('-', "_")), port.clone()));
            }
        }
        for (i, p) in ports.iter().enumerate() {
            let port = p["port"].as_i64().unwrap_or(0).to_string();
            let proto = p["protocol"].as_str().unwrap_or("TCP");
            let url = format!("{}://{ip}:{port}", proto.to_lowercase());
            if i == 0 {
                out.push((format!("{prefix}_PORT"), url.clone()));
            }
            let base = format!("{prefix}_PORT_{port}_{}", proto.to_uppercase());
            out.push((base.clone(), url));
            out.push((format!("{base}_PROTO"), proto.to_lowercase()));
            out.push((format!("{base}_PORT"), port));
            out.push((format!("{base}_ADDR"), ip.clone()));
        }
    }
    out
}

/// The files of the volumes the container mounts, at their mount paths.
fn mounted_files(pod: &Value, c: &Value, namespace: &str, lookup: &dyn Lookup) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    files.insert("/etc/hostname".to_string(), format!("{}\n", text(&pod["metadata"]["name"])).into_bytes());
    let volumes = pod["spec"]["volumes"].as_array().cloned().unwrap_or_default();
    for mount in c["volumeMounts"].as_array().into_iter().flatten() {
        let Some(volume) = volumes.iter().find(|v| v["name"] == mount["name"]) else { continue };
        let base = text(&mount["mountPath"]).trim_end_matches('/').to_string();
        let sub = text(&mount["subPath"]);
        for (path, content) in volume_files(pod, volume, namespace, lookup) {
            if sub.is_empty() {
                files.insert(format!("{base}/{path}"), content);
            } else if path == sub {
                files.insert(base.clone(), content);
            }
        }
    }
    files
}

/// The mount paths of the container's read-only volumes: those the kubelet always mounts
/// read-only (ConfigMap, Secret, downward API, projected) and any mounted with `readOnly`.
fn read_only_mounts(pod: &Value, c: &Value) -> Vec<String> {
    let volumes = pod["spec"]["volumes"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for mount in c["volumeMounts"].as_array().into_iter().flatten() {
        let volume = volumes.iter().find(|v| v["name"] == mount["name"]);
        let always = volume
            .is_some_and(|v| ["configMap", "secret", "downwardAPI", "projected"].iter().any(|k| v.get(*k).is_some()));
        if always || mount["readOnly"] == true {
            out.push(text(&mount["mountPath"]).trim_end_matches('/').to_string());
        }
    }
    out
}

/// The files of one volume, by their path inside it.
fn volume_files(pod: &Value, volume: &Value, namespace: &str, lookup: &dyn Lookup) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut source = |plural: &str, name: &str, items: &Value| {
        let Some(obj) = lookup.object(plural, namespace, name) else { return };
        let data = data_of(&obj);
        match items.as_array() {
            Some(items) => {
                for item in items {
                    if let Some(content) = item["key"].as_str().and_then(|k| data.get(k)) {
                        out.push((text(&item["path"]), content.clone()));
                    }
                }
            }
            None => out.extend(data),
        }
    };
    if let Some(cm) = volume.get("configMap") {
        source("configmaps", cm["name"].as_str().unwrap_or_default(), &cm["items"]);
    }
    if let Some(secret) = volume.get("secret") {
        source("secrets", secret["secretName"].as_str().unwrap_or_default(), &secret["items"]);
    }
    let downward = |items: &Value, out: &mut Vec<(String, Vec<u8>)>| {
        for item in items.as_array().into_iter().flatten() {
            if let Some(v) = item["fieldRef"]["fieldPath"].as_str().and_then(|p| field(pod, p)) {
                out.push((text(&item["path"]), v.into_bytes()));
            }
        }
    };
    let mut downward_files = Vec::new();
    downward(&volume["downwardAPI"]["items"], &mut downward_files);
    for s in volume["projected"]["sources"].as_array().into_iter().flatten() {
        if let Some(cm) = s.get("configMap") {
            source("configmaps", cm["name"].as_str().unwrap_or_default(), &cm["items"]);
        }
        if let Some(secret) = s.get("secret") {
            source("secrets", secret["name"].as_str().unwrap_or_default(), &secret["items"]);
        }
        downward(&s["downwardAPI"]["items"], &mut downward_files);
    }
    out.extend(downward_files);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Cluster;

    impl Lookup for Cluster {
        fn object(&self, plural: &str, _namespace: &str, name: &str) -> Option<Value> {
            match (plural, name) {
                ("configmaps", "web-config") => Some(json!({"kind": "ConfigMap",
                    "data": {"LOG_LEVEL": "info", "nginx.conf": "server {}\n"}})),
                ("secrets", "db") => Some(json!({"kind": "Secret", "data": {"password": "czNjcjN0"}})),
                _ => None,
            }
        }

        fn services(&self, namespace: &str) -> Vec<Value> {
            let svc = |name: &str, ip: &str, port: i64| json!({"metadata": {"name": name}, "spec": {"clusterIP": ip, "ports": [{"port": port, "protocol": "TCP"}]}});
            match namespace {
                "default" => vec![svc("kubernetes", "10.96.0.1", 443)],
                _ => vec![svc("web", "10.96.3.80", 80), svc("headless", "None", 80)],
            }
        }
    }

    fn pod() -> Value {
        json!({"metadata": {"name": "web-1", "namespace": "demo", "labels": {"app": "web"}},
            "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "nginx:1.27",
                "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "$(A)-$$(A)-$(NOPE)"},
                    {"name": "LOG", "valueFrom": {"configMapKeyRef": {"name": "web-config", "key": "LOG_LEVEL"}}},
                    {"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
                    {"name": "GONE", "valueFrom": {"configMapKeyRef": {"name": "missing", "key": "x", "optional": true}}},
                    {"name": "APP", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}}}],
                "volumeMounts": [{"name": "conf", "mountPath": "/etc/nginx/conf.d"},
                    {"name": "api", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]}],
                "volumes": [{"name": "conf", "configMap": {"name": "web-config", "items": [{"key": "nginx.conf", "path": "default.conf"}]}},
                    {"name": "api", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}},
                        {"configMap": {"name": "web-config", "items": [{"key": "LOG_LEVEL", "path": "level"}]}},
                        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}]}}]}}]}})
    }

    #[test]
    fn the_command_is_command_and_args_or_args_alone_where_the_image_has_no_entrypoint() {
        let of = |c: Value| {
            let pod = json!({"metadata": {"name": "p", "namespace": "demo"}, "spec": {"containers": [c]}});
            Container::of(&pod, "main", false, &Cluster).command
        };
        let words = |w: &[&str]| Some(w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            of(json!({"name": "main", "image": "nginx", "command": ["sh", "-c"], "args": ["echo hi"]})),
            words(&["sh", "-c", "echo hi"])
        );
        // lightkube's busybox pods give only args; busybox has no ENTRYPOINT.
        assert_eq!(
            of(json!({"name": "main", "image": "docker.io/library/busybox:1.36", "args": ["/bin/sh", "-c", "x"]})),
            words(&["/bin/sh", "-c", "x"])
        );
        assert_eq!(of(json!({"name": "main", "image": "host:5000/busybox", "args": ["sh"]})), words(&["sh"]));
        assert_eq!(of(json!({"name": "main", "image": "nginx:1.27", "args": ["-g", "daemon off;"]})), None);
        assert_eq!(of(json!({"name": "main", "image": "busybox"})), None, "the image's own CMD");
    }

    #[test]
    fn the_environment_is_resolved_as_the_kubelet_resolves_it() {
        let c = Container::of(&pod(), "web", true, &Cluster);
        let names: Vec<&str> = c.env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(&names[..3], ["PATH", "HOSTNAME", "TERM"]);
        assert_eq!(c.var("HOSTNAME"), Some("web-1"));
        assert_eq!(c.var("B"), Some("1-$(A)-$(NOPE)"));
        assert_eq!(c.var("LOG"), Some("info"));
        assert_eq!(c.var("PASS"), Some("s3cr3t"));
        assert_eq!(c.var("GONE"), None, "an optional reference to a missing ConfigMap sets nothing");
        assert_eq!(c.var("APP"), Some("web"));
        assert_eq!(c.var("WEB_SERVICE_HOST"), Some("10.96.3.80"));
        assert_eq!(c.var("WEB_PORT_80_TCP"), Some("tcp://10.96.3.80:80"));
        assert_eq!(c.var("KUBERNETES_SERVICE_PORT"), Some("443"));
        assert_eq!(c.var("HEADLESS_SERVICE_HOST"), None, "a headless service has no variables");
        assert_eq!(names.last(), Some(&"HOME"));
        assert_eq!(Container::of(&pod(), "web", false, &Cluster).var("TERM"), None);
    }

    #[test]
    fn mounted_config_maps_secrets_and_projections_are_files() {
        let c = Container::of(&pod(), "web", false, &Cluster);
        let paths: Vec<&str> = c.files.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [
                "/etc/hostname",
                "/etc/nginx/conf.d/default.conf",
                "/var/run/secrets/kubernetes.io/serviceaccount/level",
                "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
            ]
        );
        assert_eq!(c.files["/etc/nginx/conf.d/default.conf"], b"server {}\n");
        assert_eq!(c.files["/var/run/secrets/kubernetes.io/serviceaccount/namespace"], b"demo");
    }
}
