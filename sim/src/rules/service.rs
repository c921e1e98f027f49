//! What kube-apiserver gives a Service beyond what the client sent: `SetDefaults_Service`
//! (k8s.io/kubernetes pkg/apis/core/v1/defaults.go: type, sessionAffinity, each port's protocol
//! and targetPort, the traffic policies) on every write, and on create what the service REST
//! storage allocates (pkg/registry/core/service/storage/alloc.go: a cluster IP from the service
//! CIDR, `clusterIPs`, `ipFamilies` and `ipFamilyPolicy` of a single-stack IPv4 cluster, node
//! ports for NodePort and LoadBalancer services) and its strategy's empty status
//! (pkg/registry/core/service/strategy.go, `PrepareForCreate`: `status.loadBalancer: {}`).
//!
//! The service CIDR is kubeadm's default, 10.96.0.0/12; an address or node port is never given
//! twice, and a client's own address is refused when another Service holds it, as the real
//! allocator refuses it.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::rules::status::FieldError;
use crate::store::State;

/// kubeadm's default `--service-cluster-ip-range`, 10.96.0.0/12, as a base and a size.
const CIDR_BASE: u32 = u32::from_be_bytes([10, 96, 0, 0]);
const CIDR_SIZE: u32 = 1 << 20;
/// The default `--service-node-port-range`.
const NODE_PORTS: std::ops::RangeInclusive<i64> = 30000..=32767;

/// `SetDefaults_Service`.
pub fn defaults(obj: &mut Value) {
    let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) else { return };
    let affinity = spec.entry("sessionAffinity").or_insert_with(|| json!("None"));
    if affinity.is_null() {
        *affinity = json!("None");
    }
    if spec.get("sessionAffinity").is_some_and(|a| a == "None") {
        spec.remove("sessionAffinityConfig");
    }
    let ty = spec.entry("type").or_insert_with(|| json!("ClusterIP"));
    if ty.is_null() {
        *ty = json!("ClusterIP");
    }
    let ty = spec["type"].as_str().unwrap_or_default().to_string();
    for p in spec.get_mut("ports").and_then(Value::as_array_mut).into_iter().flatten() {
        let Some(port) = p.as_object_mut() else { continue };
        if port.get("protocol").is_none_or(Value::is_null) {
            port.insert("protocol".into(), json!("TCP"));
        }
        let target_missing = match port.get("targetPort") {
            None | Some(Value::Null) => true,
            Some(Value::Number(n)) => n.as_i64() == Some(0),
            Some(Value::String(s)) => s.is_empty(),
            _ => false,
        };
        if target_missing {
            if let Some(number) = port.get("port").cloned() {
                port.insert("targetPort".into(), number);
            }
        }
    }
    let external_ips = spec.get("externalIPs").and_then(Value::as_array).is_some_and(|a| !a.is_empty());
    let externally_accessible = ty == "NodePort" || ty == "LoadBalancer" || (ty == "ClusterIP" && external_ips);
    if externally_accessible && spec.get("externalTrafficPolicy").is_none_or(Value::is_null) {
        spec.insert("externalTrafficPolicy".into(), json!("Cluster"));
    }
    if matches!(ty.as_str(), "ClusterIP" | "NodePort" | "LoadBalancer")
        && spec.get("internalTrafficPolicy").is_none_or(Value::is_null)
    {
        spec.insert("internalTrafficPolicy".into(), json!("Cluster"));
    }
    if ty == "LoadBalancer" && spec.get("allocateLoadBalancerNodePorts").is_none_or(Value::is_null) {
        spec.insert("allocateLoadBalancerNodePorts".into(), json!(true));
    }
}

/// What a new Service gets when it is stored: its addresses, node ports and empty status. The
/// errors are the real allocator's (a requested address or node port another Service holds).
pub fn allocate(state: &State, obj: &mut Value) -> Result<(), Vec<FieldError>> {
    let services = state.list("/services", None);
    let mut taken_ips = BTreeSet::new();
    let mut taken_ports = BTreeSet::new();
    for s in &services {
        for ip in s["spec"]["clusterIPs"].as_array().into_iter().flatten().chain([&s["spec"]["clusterIP"]]) {
            taken_ips.extend(ip.as_str().and_then(parse_ipv4));
        }
        for p in s["spec"]["ports"].as_array().into_iter().flatten() {
            taken_ports.extend(p["nodePort"].as_i64());
        }
    }
    obj["status"] = json!({"loadBalancer": {}});
    let Some(spec) = obj.get_mut("spec").filter(|s| s.is_object()) else { return Ok(()) };
    let ty = spec["type"].as_str().unwrap_or("ClusterIP").to_string();
    if ty == "ExternalName" {
        return Ok(());
    }
    let requested = spec["clusterIP"]
        .as_str()
        .or_else(|| spec["clusterIPs"][0].as_str())
        .filter(|ip| !ip.is_empty())
        .map(str::to_string);
    let ip = match requested {
        Some(ip) if ip == "None" => ip,
        Some(ip) => match parse_ipv4(&ip) {
            Some(n) if taken_ips.contains(&n) => {
                return Err(vec![ips_invalid(&ip, "provided IP is already allocated")])
            }
            Some(n) if !(CIDR_BASE..CIDR_BASE + CIDR_SIZE).contains(&n) => {
                let why =
                    format!("the provided IP ({ip}) is not in the valid range. The range of valid IPs is 10.96.0.0/12");
                return Err(vec![ips_invalid(&ip, &why)]);
            }
            _ => ip,
        },
        None => free_ip(&taken_ips, object_seed(obj)).unwrap_or_default(),
    };
    let spec = &mut obj["spec"];
    spec["clusterIP"] = json!(ip);
    spec["clusterIPs"] = json!([ip]);
    if spec["ipFamilies"].as_array().is_none_or(Vec::is_empty) {
        spec["ipFamilies"] = json!(["IPv4"]);
    }
    if spec["ipFamilyPolicy"].is_null() {
        spec["ipFamilyPolicy"] = json!("SingleStack");
    }
    if ty == "NodePort" || (ty == "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] != false) {
        for p in spec["ports"].as_array_mut().into_iter().flatten() {
            match p["nodePort"].as_i64() {
                Some(n) if taken_ports.contains(&n) => {
                    return Err(vec![FieldError::invalid(
                        "spec.ports[0].nodePort",
                        &json!(n),
                        "provided port is already allocated",
                    )])
                }
                Some(n) => {
                    taken_ports.insert(n);
                }
                None => {
                    let free = NODE_PORTS.clone().find(|n| !taken_ports.contains(n)).unwrap_or(*NODE_PORTS.start());
                    taken_ports.insert(free);
                    p["nodePort"] = json!(free);
                }
            }
        }
    }
    Ok(())
}

/// Keeps what a Service was given at create when an update leaves it out, as the service REST
/// storage's `patchAllocatedValues` does (pkg/registry/core/service/storage/storage.go).
pub fn keep_allocated(old: &Value, new: &mut Value) {
    let (Some(old_spec), Some(spec)) = (old.get("spec"), new.get_mut("spec").and_then(Value::as_object_mut)) else {
        return;
    };
    if spec.get("clusterIP").is_none_or(|ip| ip.is_null() || ip == "") {
        for key in ["clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"] {
            let missing = spec.get(key).is_none_or(|v| v.is_null() || v == "");
            if let Some(v) = old_spec.get(key).filter(|v| missing && !v.is_null()) {
                spec.insert(key.into(), v.clone());
            }
        }
    }
    let old_ports: Vec<&Value> = old_spec["ports"].as_array().into_iter().flatten().collect();
    for p in spec.get_mut("ports").and_then(Value::as_array_mut).into_iter().flatten() {
        if p["nodePort"].is_null() {
            if let Some(n) = old_ports.iter().find(|o| o["port"] == p["port"]).and_then(|o| o["nodePort"].as_i64()) {
                p["nodePort"] = json!(n);
            }
        }
    }
}

/// The allocator's refusal, worded as alloc.go's `field.Invalid(…clusterIPs, []string{…},
/// "failed to allocate IP …: …")`.
fn ips_invalid(ip: &str, why: &str) -> FieldError {
    FieldError {
        reason: "FieldValueInvalid",
        field: "spec.clusterIPs".into(),
        detail: format!("Invalid value: []string{{\"{ip}\"}}: failed to allocate IP {ip}: {why}"),
    }
}

fn parse_ipv4(text: &str) -> Option<u32> {
    text.parse::<std::net::Ipv4Addr>().ok().map(u32::from)
}

/// A stable starting point in the range for an object, so a name gets the same address on
/// every run (tests and screenshots can rely on it); the real allocator picks at random.
fn object_seed(obj: &Value) -> u32 {
    let key = format!("{}/{}", obj["metadata"]["namespace"].as_str().unwrap_or_default(), obj["metadata"]["name"]);
    key.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// The first free address from `seed` on, skipping the network address, 10.96.0.1 (the
/// `kubernetes` Service's) and 10.96.0.10 (kube-dns's by convention).
fn free_ip(taken: &BTreeSet<u32>, seed: u32) -> Option<String> {
    (0..CIDR_SIZE)
        .map(|i| CIDR_BASE + (seed.wrapping_add(i) % CIDR_SIZE))
        .find(|n| {
            let offset = n - CIDR_BASE;
            offset > 10 && offset != CIDR_SIZE - 1 && !taken.contains(n)
        })
        .map(|n| std::net::Ipv4Addr::from(n).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_service_gets_the_defaults_of_set_defaults_service() {
        let mut svc = json!({"spec": {"selector": {"app": "x"}, "ports": [{"port": 80}, {"port": 53, "protocol": "UDP", "targetPort": "dns"}]}});
        defaults(&mut svc);
        let spec = &svc["spec"];
        assert_eq!(spec["type"], "ClusterIP");
        assert_eq!(spec["sessionAffinity"], "None");
        assert_eq!(spec["internalTrafficPolicy"], "Cluster");
        assert!(spec.get("externalTrafficPolicy").is_none(), "only externally accessible services");
        assert_eq!(spec["ports"][0], json!({"port": 80, "protocol": "TCP", "targetPort": 80}));
        assert_eq!(spec["ports"][1], json!({"port": 53, "protocol": "UDP", "targetPort": "dns"}));
        let mut lb = json!({"spec": {"type": "LoadBalancer", "ports": [{"port": 443}]}});
        defaults(&mut lb);
        assert_eq!(lb["spec"]["externalTrafficPolicy"], "Cluster");
        assert_eq!(lb["spec"]["allocateLoadBalancerNodePorts"], true);
    }

    #[test]
    fn free_addresses_skip_the_reserved_and_the_taken() {
        let taken: BTreeSet<u32> = [CIDR_BASE + 11, CIDR_BASE + 12].into();
        assert_eq!(free_ip(&taken, 0).as_deref(), Some("10.96.0.13"));
        assert_eq!(free_ip(&BTreeSet::new(), CIDR_SIZE - 1).as_deref(), Some("10.96.0.11"), "wraps round");
    }
}
