//! The protobuf form of the swagger 2.0 document, `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`:
//! gnostic's `openapi.v2.Document` message (github.com/google/gnostic, `openapiv2/OpenAPIv2.proto`),
//! which client-go's `OpenAPISchema()` asks for, and only for: kubectl before 1.27, and
//! `kubectl explain --output=plaintext-openapiv2`, read nothing else.
//!
//! Field numbers are the .proto's. As gnostic does, values that are not schemas (`enum`
//! values, `default`, `example`, `x-…` vendor extensions) are an `Any` whose `yaml` holds the
//! value written as YAML. Maps are repeated `Named…` pairs in the JSON's key order. Fields the
//! swagger document of kube-apiserver never has (xml, externalDocs, tags, form data) are not
//! written.

use serde_json::Value;

/// Encodes a swagger 2.0 document.
pub fn document(doc: &Value) -> Vec<u8> {
    let mut m = Msg::default();
    m.string(1, text(&doc["swagger"]));
    if let Some(info) = doc.get("info") {
        let mut i = Msg::default();
        i.string(1, text(&info["title"]));
        i.string(2, text(&info["version"]));
        i.string(3, text(&info["description"]));
        m.message(2, i);
    }
    if let Some(paths) = doc["paths"].as_object() {
        let mut p = Msg::default();
        for (name, item) in paths {
            p.message(2, named(name, path_item(item)));
        }
        m.message(8, p);
    }
    if let Some(defs) = doc["definitions"].as_object() {
        let mut d = Msg::default();
        for (name, s) in defs {
            d.message(1, named(name, schema(s)));
        }
        m.message(9, d);
    }
    for requirement in doc["security"].as_array().into_iter().flatten() {
        let mut r = Msg::default();
        for (name, scopes) in requirement.as_object().into_iter().flatten() {
            let mut array = Msg::default();
            for s in scopes.as_array().into_iter().flatten() {
                array.string_always(1, text(s));
            }
            r.message(1, named(name, array));
        }
        m.message(12, r);
    }
    if let Some(defs) = doc["securityDefinitions"].as_object() {
        let mut d = Msg::default();
        for (name, def) in defs {
            // Only the apiKey kind (kube-apiserver's BearerToken) is written.
            if def["type"] != "apiKey" {
                continue;
            }
            let mut key = Msg::default();
            key.string(1, text(&def["type"]));
            key.string(2, text(&def["name"]));
            key.string(3, text(&def["in"]));
            key.string(4, text(&def["description"]));
            let mut item = Msg::default();
            item.message(2, key);
            d.message(1, named(name, item));
        }
        m.message(13, d);
    }
    m.0
}

fn path_item(item: &Value) -> Msg {
    let mut m = Msg::default();
    for (method, tag) in [("get", 2), ("put", 3), ("post", 4), ("delete", 5), ("options", 6), ("head", 7), ("patch", 8)]
    {
        if let Some(op) = item.get(method) {
            m.message(tag, operation(op));
        }
    }
    for p in item["parameters"].as_array().into_iter().flatten() {
        m.message(9, parameters_item(p));
    }
    vendor_extensions(&mut m, 10, item);
    m
}

fn operation(op: &Value) -> Msg {
    let mut m = Msg::default();
    strings(&mut m, 1, &op["tags"]);
    m.string(2, text(&op["summary"]));
    m.string(3, text(&op["description"]));
    m.string(5, text(&op["operationId"]));
    strings(&mut m, 6, &op["produces"]);
    strings(&mut m, 7, &op["consumes"]);
    for p in op["parameters"].as_array().into_iter().flatten() {
        m.message(8, parameters_item(p));
    }
    if let Some(responses) = op["responses"].as_object() {
        let mut r = Msg::default();
        for (code, response) in responses {
            let mut resp = Msg::default();
            resp.string(1, text(&response["description"]));
            if let Some(s) = response.get("schema") {
                let mut item = Msg::default();
                item.message(1, schema(s));
                resp.message(2, item);
            }
            let mut value = Msg::default();
            value.message(1, resp);
            r.message(1, named(code, value));
        }
        m.message(9, r);
    }
    strings(&mut m, 10, &op["schemes"]);
    m.bool(11, op["deprecated"].as_bool().unwrap_or(false));
    vendor_extensions(&mut m, 13, op);
    m
}

fn parameters_item(p: &Value) -> Msg {
    let mut m = Msg::default();
    if let Some(r) = p["$ref"].as_str() {
        let mut reference = Msg::default();
        reference.string(1, r);
        m.message(2, reference);
        return m;
    }
    let mut parameter = Msg::default();
    if p["in"] == "body" {
        let mut body = Msg::default();
        body.string(1, text(&p["description"]));
        body.string(2, text(&p["name"]));
        body.string(3, text(&p["in"]));
        body.bool(4, p["required"].as_bool().unwrap_or(false));
        if let Some(s) = p.get("schema") {
            body.message(5, schema(s));
        }
        vendor_extensions(&mut body, 6, p);
        parameter.message(1, body);
    } else {
        // Query and path sub-schemas share their first fields; past `name`, a query parameter
        // has `allow_empty_value` (5) and so every later field one number up.
        let (oneof, shift) = match text(&p["in"]) {
            "header" => (1, 0),
            "path" => (4, 0),
            _ => (3, 1),
        };
        let mut sub = Msg::default();
        sub.bool(1, p["required"].as_bool().unwrap_or(false));
        sub.string(2, text(&p["in"]));
        sub.string(3, text(&p["description"]));
        sub.string(4, text(&p["name"]));
        sub.string(5 + shift, text(&p["type"]));
        sub.string(6 + shift, text(&p["format"]));
        sub.bool(19 + shift, p["uniqueItems"].as_bool().unwrap_or(false));
        vendor_extensions(&mut sub, 22 + shift, p);
        let mut non_body = Msg::default();
        non_body.message(oneof, sub);
        parameter.message(2, non_body);
    }
    m.message(1, parameter);
    m
}

fn schema(s: &Value) -> Msg {
    let mut m = Msg::default();
    m.string(1, text(&s["$ref"]));
    m.string(2, text(&s["format"]));
    m.string(3, text(&s["title"]));
    m.string(4, text(&s["description"]));
    if let Some(d) = s.get("default") {
        m.message(5, any(d));
    }
    for (key, tag) in [("multipleOf", 6), ("maximum", 7), ("minimum", 9)] {
        if let Some(n) = s[key].as_f64() {
            m.double(tag, n);
        }
    }
    m.bool(8, s["exclusiveMaximum"].as_bool().unwrap_or(false));
    m.bool(10, s["exclusiveMinimum"].as_bool().unwrap_or(false));
    for (key, tag) in [
        ("maxLength", 11),
        ("minLength", 12),
        ("maxItems", 14),
        ("minItems", 15),
        ("maxProperties", 17),
        ("minProperties", 18),
    ] {
        if let Some(n) = s[key].as_i64() {
            m.int64(tag, n);
        }
    }
    m.string(13, text(&s["pattern"]));
    m.bool(16, s["uniqueItems"].as_bool().unwrap_or(false));
    for r in s["required"].as_array().into_iter().flatten() {
        m.string_always(19, text(r));
    }
    for e in s["enum"].as_array().into_iter().flatten() {
        m.message(20, any(e));
    }
    match &s["additionalProperties"] {
        Value::Bool(b) => {
            let mut a = Msg::default();
            a.bool_always(2, *b);
            m.message(21, a);
        }
        Value::Object(_) => {
            let mut a = Msg::default();
            a.message(1, schema(&s["additionalProperties"]));
            m.message(21, a);
        }
        _ => {}
    }
    match &s["type"] {
        Value::String(t) => {
            let mut t_msg = Msg::default();
            t_msg.string_always(1, t);
            m.message(22, t_msg);
        }
        Value::Array(types) => {
            let mut t_msg = Msg::default();
            for t in types {
                t_msg.string_always(1, text(t));
            }
            m.message(22, t_msg);
        }
        _ => {}
    }
    match &s["items"] {
        Value::Object(_) => {
            let mut items = Msg::default();
            items.message(1, schema(&s["items"]));
            m.message(23, items);
        }
        Value::Array(list) => {
            let mut items = Msg::default();
            for i in list {
                items.message(1, schema(i));
            }
            m.message(23, items);
        }
        _ => {}
    }
    for a in s["allOf"].as_array().into_iter().flatten() {
        m.message(24, schema(a));
    }
    if let Some(props) = s["properties"].as_object() {
        let mut p = Msg::default();
        for (name, prop) in props {
            p.message(1, named(name, schema(prop)));
        }
        m.message(25, p);
    }
    m.string(26, text(&s["discriminator"]));
    m.bool(27, s["readOnly"].as_bool().unwrap_or(false));
    if let Some(e) = s.get("example") {
        m.message(30, any(e));
    }
    vendor_extensions(&mut m, 31, s);
    m
}

/// gnostic's `Any`: the value as YAML text (field 2).
fn any(v: &Value) -> Msg {
    let mut m = Msg::default();
    m.string_always(2, &serde_yaml::to_string(v).unwrap_or_default());
    m
}

fn vendor_extensions(m: &mut Msg, tag: u32, v: &Value) {
    for (key, value) in v.as_object().into_iter().flatten().filter(|(k, _)| k.starts_with("x-")) {
        m.message(tag, named(key, any(value)));
    }
}

/// A `Named…` pair: name (1) and value (2).
fn named(name: &str, value: Msg) -> Msg {
    let mut m = Msg::default();
    m.string(1, name);
    m.message(2, value);
    m
}

fn strings(m: &mut Msg, tag: u32, v: &Value) {
    for s in v.as_array().into_iter().flatten() {
        m.string_always(tag, text(s));
    }
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// One message being written. proto3 leaves out singular fields at their zero value.
#[derive(Default)]
struct Msg(Vec<u8>);

impl Msg {
    fn varint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.0.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.0.push(n as u8);
    }

    fn key(&mut self, tag: u32, wire_type: u32) {
        self.varint(u64::from(tag << 3 | wire_type));
    }

    fn bytes(&mut self, tag: u32, b: &[u8]) {
        self.key(tag, 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
    }

    fn string(&mut self, tag: u32, s: &str) {
        if !s.is_empty() {
            self.bytes(tag, s.as_bytes());
        }
    }

    /// An element of a repeated string field, written even when empty.
    fn string_always(&mut self, tag: u32, s: &str) {
        self.bytes(tag, s.as_bytes());
    }

    fn bool(&mut self, tag: u32, b: bool) {
        if b {
            self.bool_always(tag, b);
        }
    }

    /// A member of a oneof, written even when false.
    fn bool_always(&mut self, tag: u32, b: bool) {
        self.key(tag, 0);
        self.varint(u64::from(b));
    }

    fn int64(&mut self, tag: u32, n: i64) {
        if n != 0 {
            self.key(tag, 0);
            self.varint(n as u64);
        }
    }

    fn double(&mut self, tag: u32, f: f64) {
        if f != 0.0 {
            self.key(tag, 1);
            self.0.extend_from_slice(&f.to_le_bytes());
        }
    }

    fn message(&mut self, tag: u32, m: Msg) {
        self.bytes(tag, &m.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_definition_is_a_named_schema_with_its_type_and_extensions() {
        let doc = json!({
            "swagger": "2.0",
            "definitions": {"A": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "", "kind": "A", "version": "v1"}]}}
        });
        let bytes = document(&doc);
        // swagger = "2.0"
        assert_eq!(&bytes[..5], &[0x0a, 3, b'2', b'.', b'0']);
        // definitions (9) { additional_properties (1) { name (1) "A", value (2) { type (22) { "object" } … } } }
        assert_eq!(bytes[5], 9 << 3 | 2);
        let rest = &bytes[7..];
        assert_eq!(rest[0], 1 << 3 | 2);
        assert_eq!(&rest[2..5], &[0x0a, 1, b'A']);
        let schema = &rest[7..];
        assert_eq!(&schema[..10], &[0xb2, 0x01, 8, 0x0a, 6, b'o', b'b', b'j', b'e', b'c']);
        let yaml = "- group: ''\n  kind: A\n  version: v1\n";
        let tail = String::from_utf8_lossy(schema);
        assert!(tail.contains("x-kubernetes-group-version-kind") && tail.contains(yaml), "{tail}");
    }

    #[test]
    fn varints_use_seven_bits_a_byte() {
        let mut m = Msg::default();
        m.varint(300);
        assert_eq!(m.0, [0xac, 0x02]);
    }
}
