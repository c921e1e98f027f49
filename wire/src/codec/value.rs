//! The document model every decoder produces: one tree for JSON, YAML and CBOR bodies that keeps
//! what the wire said.
//!
//! Invariants:
//! - an integer stays [`Value::Int`] and a float stays [`Value::Float`] (CBOR distinguishes them;
//!   JSON and YAML only do by the presence of a fraction or exponent);
//! - the raw bytes of a CBOR tag-22 byte string stay [`Value::Bytes`]; their JSON form is standard
//!   padded base64, as the Kubernetes JSON encoder writes `[]byte`;
//! - an [`Map`] keeps insertion (wire) order and never holds a key twice;
//! - floats are finite (no decoder lets NaN or infinities in).
//!
//! [`Value::to_json`] writes the Kubernetes JSON text form (compact, `<` `>` `&` escaped as
//! `\u003c`…, floats printed as Go's `encoding/json` prints them).

use std::collections::HashMap;
use std::fmt;

use base64::Engine;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};

/// How deep a document may nest before a decoder refuses it (protects the stack).
pub const MAX_DEPTH: usize = 128;

/// What the seed says of a value nested deeper than [`MAX_DEPTH`], read back as tokens by the
/// JSON and YAML decoders (`codec::json::split_message`). A test keeps the number equal to
/// [`MAX_DEPTH`].
pub(crate) const TOO_DEEP: &str = "nesting at most 128 deep, found deeper nesting";

/// The kinds of [`Value`], as an error names what it expected or found ("an object").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueKind {
    Null,
    Boolean,
    Integer,
    Float,
    String,
    Bytes,
    Array,
    Object,
}

impl fmt::Display for ValueKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ValueKind::Null => "null",
            ValueKind::Boolean => "a boolean",
            ValueKind::Integer => "an integer",
            ValueKind::Float => "a float",
            ValueKind::String => "a string",
            ValueKind::Bytes => "a byte string",
            ValueKind::Array => "an array",
            ValueKind::Object => "an object",
        })
    }
}

/// One decoded document or part of one.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    /// Raw bytes a CBOR body carried as tag 22 (`[]byte` fields); base64 in JSON.
    Bytes(Vec<u8>),
    Array(Vec<Value>),
    Object(Map),
}

/// An object's members in wire order, each key once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Map {
    entries: Vec<(String, Value)>,
}

impl Map {
    pub fn new() -> Self {
        Map::default()
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets `key`, replacing an existing value in place (its position is kept).
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key` and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let index = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(index).1)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The members as `(key, value)` pairs in wire order.
    pub fn entries(&self) -> &[(String, Value)] {
        &self.entries
    }
}

impl FromIterator<(String, Value)> for Map {
    /// Builds a map; a repeated key keeps its first position and its last value.
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut builder = MapBuilder::new(DuplicateKeys::LastWins);
        for (k, v) in iter {
            // LastWins never fails.
            let _ = builder.insert(k, v);
        }
        builder.finish()
    }
}

/// What a decoder does when an object repeats a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicateKeys {
    /// The later value replaces the earlier one (Go's `encoding/json`).
    LastWins,
    /// The object is refused (Kubernetes CBOR, YAML).
    Reject,
}

/// Builds a [`Map`] from decoded members with duplicate detection that stays linear for the
/// very large objects hostile input can claim.
pub(crate) struct MapBuilder {
    entries: Vec<(String, Value)>,
    index: Option<HashMap<String, usize>>,
    duplicates: DuplicateKeys,
}

/// Beyond this many members a hash index replaces the linear duplicate scan.
const LINEAR_SCAN_LIMIT: usize = 16;

impl MapBuilder {
    pub(crate) fn new(duplicates: DuplicateKeys) -> Self {
        MapBuilder { entries: Vec::new(), index: None, duplicates }
    }

    /// Adds a member; with [`DuplicateKeys::Reject`] a repeated key is returned as the error.
    pub(crate) fn insert(&mut self, key: String, value: Value) -> Result<(), String> {
        let existing = match &self.index {
            Some(index) => index.get(&key).copied(),
            None => self.entries.iter().position(|(k, _)| *k == key),
        };
        match (existing, self.duplicates) {
            (Some(_), DuplicateKeys::Reject) => return Err(key),
            (Some(i), DuplicateKeys::LastWins) => {
                self.entries[i].1 = value;
                return Ok(());
            }
            (None, _) => {}
        }
        if let Some(index) = &mut self.index {
            index.insert(key.clone(), self.entries.len());
        } else if self.entries.len() >= LINEAR_SCAN_LIMIT {
            let mut index: HashMap<String, usize> =
                self.entries.iter().enumerate().map(|(i, (k, _))| (k.clone(), i)).collect();
            index.insert(key.clone(), self.entries.len());
            self.index = Some(index);
        }
        self.entries.push((key, value));
        Ok(())
    }

    pub(crate) fn finish(self) -> Map {
        Map { entries: self.entries }
    }
}

impl Value {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(map) => map.get(key),
            _ => None,
        }
    }

    /// Follows object keys, e.g. `["metadata", "resourceVersion"]`.
    pub fn at(&self, path: &[&str]) -> Option<&Value> {
        path.iter().try_fold(self, |value, key| value.get(key))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(*f as i64),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// What kind of value this is, for error messages ("a string", "an object", ...).
    pub fn kind(&self) -> ValueKind {
        match self {
            Value::Null => ValueKind::Null,
            Value::Bool(_) => ValueKind::Boolean,
            Value::Int(_) => ValueKind::Integer,
            Value::Float(_) => ValueKind::Float,
            Value::String(_) => ValueKind::String,
            Value::Bytes(_) => ValueKind::Bytes,
            Value::Array(_) => ValueKind::Array,
            Value::Object(_) => ValueKind::Object,
        }
    }

    /// Whether two documents are the same tree as the Kubernetes JSON form sees it: numbers are
    /// compared by value, object key order does not matter, and bytes equal their base64 text.
    pub fn equivalent(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Float(b)) | (Value::Float(b), Value::Int(a)) => *a as f64 == *b,
            (Value::Bytes(a), Value::String(s)) | (Value::String(s), Value::Bytes(a)) => base64_std(a) == *s,
            (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equivalent(y)),
            (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| v.equivalent(w)))
            }
            _ => self == other,
        }
    }

    /// The Kubernetes JSON text of this value (compact, no trailing newline).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_json(self, &mut out);
        out
    }

    /// Converts to `serde_json`'s model (bytes become base64 text, as in the JSON form).
    pub fn to_serde_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::Float(f) => {
                serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, serde_json::Value::Number)
            }
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Bytes(b) => serde_json::Value::String(base64_std(b)),
            Value::Array(items) => serde_json::Value::Array(items.iter().map(Value::to_serde_json).collect()),
            Value::Object(map) => {
                serde_json::Value::Object(map.iter().map(|(k, v)| (k.to_string(), v.to_serde_json())).collect())
            }
        }
    }

    /// Converts from `serde_json`'s model; an integer beyond `i64` becomes a float, as Go decodes
    /// it into `interface{}`.
    pub fn from_serde_json(value: &serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(items) => Value::Array(items.iter().map(Value::from_serde_json).collect()),
            serde_json::Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), Value::from_serde_json(v))).collect())
            }
        }
    }
}

/// [`Value::from_serde_json`] taking the tree: its strings and keys move instead of being copied
/// (the protobuf decoder's JSON form of a whole list goes through here).
impl From<serde_json::Value> for Value {
    fn from(value: serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(items) => Value::Array(items.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(map) => {
                Value::Object(map.into_iter().map(|(k, v)| (k, Value::from(v))).collect())
            }
        }
    }
}

impl fmt::Display for Value {
    /// The Kubernetes JSON text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

/// Standard padded base64, the JSON form of `[]byte`.
pub fn base64_std(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn write_json(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&go_float(*f)),
        Value::String(s) => write_json_string(s, out),
        Value::Bytes(b) => write_json_string(&base64_std(b), out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(k, out);
                out.push(':');
                write_json(v, out);
            }
            out.push('}');
        }
    }
}

/// Writes a JSON string as Go's `encoding/json` does with HTML escaping on.
pub(crate) fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Formats a float as Go's `encoding/json` does: shortest round-trip digits, plain notation for
/// magnitudes in [1e-6, 1e21), otherwise exponent notation with a signed two-digit exponent.
pub(crate) fn go_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return format!("{f}");
    }
    let text = format!("{f:e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, digits) = match exponent.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exponent),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

impl serde::Serialize for Value {
    /// Serializes the Kubernetes JSON data model: bytes as base64 text, and a float with an
    /// integral value in `i64` range as an integer (the JSON form writes `1.0` as `1`).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Int(i) => serializer.serialize_i64(*i),
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => serializer.serialize_i64(*f as i64),
            Value::Float(f) => serializer.serialize_f64(*f),
            Value::String(s) => serializer.serialize_str(s),
            Value::Bytes(b) => serializer.serialize_str(&base64_std(b)),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (k, v) in map.iter() {
                    out.serialize_entry(k, v)?;
                }
                out.end()
            }
        }
    }
}

/// Deserializes a [`Value`] from any self-describing serde format (JSON, YAML), with a depth
/// bound and a duplicate-key policy.
#[derive(Clone, Copy)]
pub(crate) struct ValueSeed {
    pub(crate) duplicates: DuplicateKeys,
    pub(crate) depth: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl ValueSeed {
    fn nested<E: de::Error>(self) -> Result<ValueSeed, E> {
        if self.depth >= MAX_DEPTH {
            return Err(E::custom(TOO_DEEP));
        }
        Ok(ValueSeed { depth: self.depth + 1, ..self })
    }
}

impl<'de> Visitor<'de> for ValueSeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        if v.is_finite() {
            Ok(Value::Float(v))
        } else {
            Err(E::custom(format_args!("a finite number, found {v}")))
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Bytes(v.to_vec()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.nested()?;
        let mut builder = MapBuilder::new(self.duplicates);
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let value = map.next_value_seed(inner)?;
            builder
                .insert(key, value)
                .map_err(|key| de::Error::custom(format_args!("unique keys, found key {key:?} twice")))?;
        }
        Ok(Value::Object(builder.finish()))
    }
}

/// A map key: a string, or a YAML scalar turned into its text as `sigs.k8s.io/yaml` does.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = String;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Ok(go_float(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Ok("null".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(pairs: &[(&str, Value)]) -> Value {
        Value::Object(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    }

    #[test]
    fn the_too_deep_words_name_the_bound() {
        assert_eq!(TOO_DEEP, format!("nesting at most {MAX_DEPTH} deep, found deeper nesting"));
    }

    #[track_caller]
    fn check_json(value: Value, expect: &str) {
        assert_eq!(value.to_json(), expect);
    }

    #[test]
    fn json_text_escapes_html_characters_and_controls_like_go() {
        check_json(
            Value::String("<a href=\"x\">&\u{1}\n\u{2028}".into()),
            r#""\u003ca href=\"x\"\u003e\u0026\u0001\n\u2028""#,
        );
    }

    #[test]
    fn json_text_prints_floats_like_go() {
        check_json(Value::Float(1.0), "1");
        check_json(Value::Float(0.5), "0.5");
        check_json(Value::Float(1e21), "1e+21");
        check_json(Value::Float(1.5e-7), "1.5e-07");
        check_json(Value::Float(-2.5e300), "-2.5e+300");
        check_json(Value::Int(i64::MIN), "-9223372036854775808");
    }

    #[test]
    fn json_text_keeps_key_order_and_writes_bytes_as_base64() {
        let value =
            obj(&[("b", Value::Bytes(b"hi".to_vec())), ("a", Value::Array(vec![Value::Null, Value::Bool(true)]))]);
        check_json(value.clone(), r#"{"b":"aGk=","a":[null,true]}"#);
        assert_eq!(value.to_string(), value.to_json());
    }

    #[test]
    fn equivalent_trees_ignore_number_kind_key_order_and_byte_encoding() {
        let a = obj(&[("n", Value::Int(1)), ("d", Value::Bytes(b"hi".to_vec()))]);
        let b = obj(&[("d", Value::String("aGk=".into())), ("n", Value::Float(1.0))]);
        assert!(a.equivalent(&b));
        assert!(!a.equivalent(&obj(&[("n", Value::Int(2)), ("d", Value::String("aGk=".into()))])));
        assert!(!Value::Array(vec![Value::Null]).equivalent(&Value::Array(vec![])));
    }

    #[test]
    fn map_insert_replaces_in_place_and_remove_drops_the_key() {
        let mut map = Map::new();
        assert!(map.insert("a", Value::Int(1)).is_none());
        map.insert("b", Value::Int(2));
        assert_eq!(map.insert("a", Value::Int(3)), Some(Value::Int(1)));
        assert_eq!(map.iter().map(|(k, _)| k).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(map.remove("a"), Some(Value::Int(3)));
        assert_eq!(map.len(), 1);
        assert!(!map.is_empty());
        assert_eq!(map.entries()[0].0, "b");
    }

    #[test]
    fn map_builder_rejects_duplicates_beyond_the_linear_scan_limit() {
        let mut builder = MapBuilder::new(DuplicateKeys::Reject);
        for i in 0..40 {
            builder.insert(format!("k{i}"), Value::Int(i)).expect("unique");
        }
        assert_eq!(builder.insert("k3".into(), Value::Null), Err("k3".to_string()));
        assert_eq!(builder.insert("k39".into(), Value::Null), Err("k39".to_string()));
        let mut last = MapBuilder::new(DuplicateKeys::LastWins);
        last.insert("a".into(), Value::Int(1)).expect("first");
        last.insert("a".into(), Value::Int(2)).expect("last wins");
        assert_eq!(last.finish().get("a"), Some(&Value::Int(2)));
    }

    #[test]
    fn accessors_follow_paths_and_name_kinds() {
        let value = obj(&[("metadata", obj(&[("name", Value::String("x".into())), ("gen", Value::Float(2.0))]))]);
        assert_eq!(value.at(&["metadata", "name"]).and_then(Value::as_str), Some("x"));
        assert_eq!(value.at(&["metadata", "gen"]).and_then(Value::as_i64), Some(2));
        assert_eq!(value.at(&["metadata", "nope"]), None);
        assert_eq!(Value::Bool(true).as_bool(), Some(true));
        assert_eq!(Value::Array(vec![]).as_array().map(<[Value]>::len), Some(0));
        assert!(value.as_object().is_some());
        assert_eq!(Value::Bytes(vec![]).kind().to_string(), "a byte string");
        assert_eq!(Value::Null.kind().to_string(), "null");
    }

    #[test]
    fn serde_json_round_trip_keeps_integers_and_turns_bytes_into_base64() {
        let value = obj(&[("i", Value::Int(-3)), ("f", Value::Float(0.25)), ("b", Value::Bytes(vec![0xff]))]);
        let json = value.to_serde_json();
        assert_eq!(json, serde_json::json!({"i": -3, "f": 0.25, "b": "/w=="}));
        let back = Value::from_serde_json(&json);
        assert!(back.equivalent(&value));
        assert_eq!(Value::from_serde_json(&serde_json::json!(u64::MAX)), Value::Float(u64::MAX as f64));
    }

    #[test]
    fn a_serde_json_tree_taken_converts_as_one_borrowed() {
        let json = serde_json::json!({"s": "x", "a": [1, 2.5, null, true], "o": {"k": u64::MAX}});
        assert_eq!(Value::from(json.clone()), Value::from_serde_json(&json));
    }

    #[test]
    fn serialize_writes_integral_floats_as_integers() {
        let text = serde_json::to_string(&Value::Array(vec![Value::Float(2.0), Value::Float(2.5)])).expect("serialize");
        assert_eq!(text, "[2,2.5]");
    }

    #[test]
    fn map_from_iterator_keeps_the_last_value_of_a_repeated_key() {
        let map: Map = vec![("a".to_string(), Value::Int(1)), ("a".to_string(), Value::Int(2))].into_iter().collect();
        assert_eq!(map.len(), 1);
        assert_eq!(map.get("a"), Some(&Value::Int(2)));
    }
}
