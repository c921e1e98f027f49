#!/usr/bin/env python3
"""Generates the two halves of the protobuf codec: for every message of the k8s-pb crate (kube-rs's
prost bindings of the Kubernetes .proto files) in the stable API groups, a `ToJson` impl
(pbjson/src/generated.rs, the crate kube-pb-json that kube-sim and the explorer share, with the
table from apiVersion and kind to the message that decodes an object or list of that type) and the
reverse, a `FromJson` impl (sim/src/protobuf/generated.rs, kube-sim's encoder, with the table from
the apiVersion and kind of an object or list to the message it encodes into).

Field names: the Kubernetes .proto field names are the JSON names, but prost turns them into
snake_case (`podIP` -> `pod_ip`, `hostIPs` -> `host_i_ps`). The JSON names are taken from
k8s-openapi's generated serde code for the same definition (matched with case and underscores
ignored), and fall back to lowerCamelCase where k8s-openapi has no such field. k8s-openapi also
tells which fields are required (not wrapped in `Option`: no `omitempty` in Go, so their zero is
written) and which .proto fields are Go structs embedded with `json:",inline"` (a message field
whose own fields are all JSON fields of the parent: Volume's VolumeSource, Probe's handler).

Run after changing the k8s-pb or k8s-openapi version (the crates must be in the cargo registry,
e.g. after a build):

    python3 pbjson/tools/gen-protobuf-json.py K8S_PB_SRC K8S_OPENAPI_SRC/v1_36 \
        pbjson/src/generated.rs sim/src/protobuf/generated.rs
    cargo fmt -p kube-pb-json -p kube-sim

(K8S_PB_SRC: the k8s-pb crate's src folder; K8S_OPENAPI_SRC: k8s-openapi's; their names on stderr
list the fields named without k8s-openapi and the embedded structs inlined.)
"""
import os
import re
import sys

pb_root, openapi_root = sys.argv[1], sys.argv[2]

# k8s-pb module folder -> OpenAPI definition prefix, for the stable groups kube-sim serves.
MODULES = {}
for group in sorted(os.listdir(os.path.join(pb_root, "api"))):
    for version in ("v1", "v2"):
        if os.path.isfile(os.path.join(pb_root, "api", group, version, "mod.rs")):
            MODULES[f"api/{group}/{version}"] = f"io.k8s.api.{group}.{version}"
MODULES["apimachinery/pkg/apis/meta/v1"] = "io.k8s.apimachinery.pkg.apis.meta.v1"
MODULES["apiextensions_apiserver/pkg/apis/apiextensions/v1"] = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"
MODULES["kube_aggregator/pkg/apis/apiregistration/v1"] = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1"

# Written by hand in protobuf/mod.rs: their JSON form is not an object of their fields.
SPECIAL = {
    "apimachinery/pkg/apis/meta/v1::Time",
    "apimachinery/pkg/apis/meta/v1::MicroTime",
    "apimachinery/pkg/apis/meta/v1::Duration",
    "apimachinery/pkg/apis/meta/v1::FieldsV1",
    "apimachinery/pkg/apis/meta/v1::Timestamp",
    "apiextensions_apiserver/pkg/apis/apiextensions/v1::Json",
    "apiextensions_apiserver/pkg/apis/apiextensions/v1::JsonSchemaPropsOrArray",
    "apiextensions_apiserver/pkg/apis/apiextensions/v1::JsonSchemaPropsOrBool",
    "apiextensions_apiserver/pkg/apis/apiextensions/v1::JsonSchemaPropsOrStringArray",
}

# Required fields (no `omitempty` in Go) of messages k8s-openapi has no definition for: the real
# server writes their zero (aggregated discovery's `responseKind: {group: "", version: "v1", ...}`).
EXTRA_REQUIRED = {
    "apimachinery/pkg/apis/meta/v1::GroupVersionKind": {"group", "version", "kind"},
}


def squash(s):
    return re.sub(r"[^a-z0-9.]", "", s.lower())


# JSON names and resource identity from k8s-openapi.
json_names = {}  # definition -> list of JSON names
required = {}  # definition -> squashed names of the fields k8s-openapi does not wrap in Option
resources = {}  # definition -> (apiVersion, kind)
for dirpath, _, files in os.walk(openapi_root):
    for f in files:
        if not f.endswith(".rs"):
            continue
        text = open(os.path.join(dirpath, f), encoding="utf-8").read()
        m = re.match(r"// Generated from definition (\S+)", text)
        if not m:
            continue
        definition = m.group(1)
        json_names[definition] = re.findall(r'"([^"]+)" => Field::Key_', text)
        body = re.search(r"pub struct \w+ \{(.*?)\n\}", text, re.S)
        required[definition] = {
            squash(f.group(1).removeprefix("r#"))
            for f in re.finditer(r"^    pub (r#\w+|\w+): (?!Option<)", body.group(1) if body else "", re.M)
        }
        av = re.search(r'const API_VERSION: &\'static str = "([^"]+)";', text)
        kind = re.search(r'const KIND: &\'static str = "([^"]+)";', text)
        if av and kind and "impl crate::Resource for" in text:
            resources[definition] = (av.group(1), kind.group(1))

definitions_by_squash = {squash(d): d for d in json_names}
FIELD = re.compile(
    r"(?P<doc>(?:[ \t]*///[^\n]*\n)*)[ \t]*#\[prost\((?P<attr>[^\]]*)\)\]\s*pub (?P<name>r#\w+|\w+):\s*(?P<ty>.*?),\n",
    re.S,
)


def zero_matters(attr, doc):
    """Whether a scalar's zero must be kept: the field is a Go pointer (its doc says so) or has a
    server-side default other than zero ("Defaults to 1."), which a missing field would get."""
    if not re.match(r"(int32|int64|bool|double)\b", attr):
        return False
    text = " ".join(line.strip().removeprefix("///").strip() for line in doc.splitlines())
    if re.search(r"\bpointer\b", text):
        return True
    m = re.search(r"[Dd]efaults? to:? ?['\"`]?([\w.%-]+)", text)
    return bool(m) and m.group(1).rstrip(".").lower() not in ("0", "false", "nil", "null", "unset", "none", "empty")
STRUCT = re.compile(r"pub struct (\w+) \{(\}|.*?\n\})", re.S)


def lower_camel(snake):
    parts = snake.removeprefix("r#").split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


# Field names of every message, by struct name, to recognise embedded (inline) structs.
fields_of = {}
for module in MODULES:
    text = open(os.path.join(pb_root, module, "mod.rs"), encoding="utf-8").read()
    for sm in STRUCT.finditer(text):
        fields_of.setdefault(sm.group(1), [f.group("name").removeprefix("r#") for f in FIELD.finditer(sm.group(2))])


def inlined(ty, known):
    """Whether a message field is a Go struct embedded with `json:",inline"`: every field of its
    type is a JSON field of the parent."""
    m = re.search(r"(\w+)>*$", ty.strip())
    child = fields_of.get(m.group(1)) if m else None
    return bool(child) and all(squash(f) in known for f in child)


out = []
dispatch = []
enc_out = []
enc_dispatch = []


def scalar_or_message(attr):
    return re.match(r"(string|int32|int64|bool|double|message), optional", attr) is not None


for module, prefix in sorted(MODULES.items()):
    text = open(os.path.join(pb_root, module, "mod.rs"), encoding="utf-8").read()
    rust_path = "k8s_pb::" + module.replace("/", "::")
    structs = {m.group(1) for m in STRUCT.finditer(text)}
    for sm in STRUCT.finditer(text):
        struct, body = sm.group(1), sm.group(2)
        if f"{module}::{struct}" in SPECIAL:
            continue
        definition = f"{prefix}.{struct}"
        # prost renames acronyms in type names (HTTPGetAction -> HttpGetAction).
        openapi_definition = definitions_by_squash.get(squash(definition))
        names = json_names.get(openapi_definition)
        known = {squash(n): n for n in names or []}
        required_here = required.get(openapi_definition) or EXTRA_REQUIRED.get(f"{module}::{struct}", set())
        lines = []
        # The reverse direction: (JSON name, assignment) per field, the inlined field, and the
        # fields whose zero is filled in when the JSON has none.
        arms = []
        inline_into = None
        fill = []
        for fm in FIELD.finditer(body):
            attr, name = fm.group("attr"), fm.group("name")
            json = known.get(squash(name.removeprefix("r#")))
            if json is None and attr.startswith("message") and inlined(fm.group("ty"), known):
                # A Go struct embedded with `json:",inline"`: the .proto has a field for it,
                # the JSON has its fields in the parent (Volume's VolumeSource, say).
                print(f"{definition}.{name}: inlined", file=sys.stderr)
                lines.append(f"        inline_field(&mut m, &self.{name});")
                if inline_into is not None:
                    sys.exit(f"{definition}: two inlined fields, {inline_into} and {name}")
                inline_into = name
                continue
            if json is None:
                json = lower_camel(name)
                print(f"{definition}.{json}: not in k8s-openapi, named {json}", file=sys.stderr)
            if attr.startswith('bytes = "vec"'):
                call = "bytes_field"
                arms.append((json, f"out.{name} = bytes_from_json(x).at(k)?"))
            elif attr.startswith('btree_map = "string, bytes"'):
                call = "bytes_map_field"
                arms.append((json, f"out.{name} = bytes_map_from_json(x).at(k)?"))
            elif attr.startswith("btree_map"):
                call = "map_field"
                arms.append((json, f"out.{name} = FromJson::from_json(x).at(k)?"))
            elif squash(name.removeprefix("r#")) in required_here or zero_matters(
                attr, fm.group("doc")
            ):
                # A required field (no `omitempty`), or one whose zero differs from leaving it
                # out: its zero is written too.
                call = "required_field"
                arms.append((json, f"out.{name} = FromJson::from_json(x).at(k)?"))
                if squash(name.removeprefix("r#")) in required_here and scalar_or_message(attr):
                    fill.append(name)
            else:
                call = "field"
                arms.append((json, f"out.{name} = FromJson::from_json(x).at(k)?"))
            lines.append(f'        {call}(&mut m, "{json}", &self.{name});')
        out.append(f"impl ToJson for {rust_path}::{struct} {{")
        out.append("    fn to_json(&self) -> Value {")
        out.append("        #[allow(unused_mut)]")
        out.append("        let mut m = Map::new();")
        out.extend(lines)
        out.append("        Value::Object(m)")
        out.append("    }")
        out.append("}")
        out.append("")

        enc_out.append(f"impl FromJson for {rust_path}::{struct} {{")
        enc_out.append("    fn from_json(v: &Value) -> Result<Self, EncodeError> {")
        enc_out.append("        #[allow(unused_mut)]")
        enc_out.append("        let mut out = Self::default();")
        if inline_into:
            enc_out.append("        let mut inline = Map::new();")
        enc_out.append("        for (k, x) in object(v)? {" if arms or inline_into else "        for (k, _) in object(v)? {")
        if not arms:
            # No field of its own: every key goes to the inlined struct, or is refused.
            enc_out.append("            inline.insert(k.clone(), x.clone());" if inline_into else "            not_a_field(k)?;")
        else:
            enc_out.append("            match k.as_str() {")
            for json, assign in arms:
                enc_out.append(f'                "{json}" => {assign},')
            if inline_into:
                enc_out.append("                _ => {")
                enc_out.append("                    inline.insert(k.clone(), x.clone());")
                enc_out.append("                }")
            else:
                enc_out.append("                _ => not_a_field(k)?,")
            enc_out.append("            }")
        enc_out.append("        }")
        if inline_into:
            enc_out.append(f"        out.{inline_into} = Some(FromJson::from_json(&Value::Object(inline))?);")
        for name in fill:
            enc_out.append(f"        out.{name}.get_or_insert_with(Default::default);")
        enc_out.append("        Ok(out)")
        enc_out.append("    }")
        enc_out.append("}")
        enc_out.append("")

        if openapi_definition in resources:
            av, kind = resources[openapi_definition]
            dispatch.append(f'        ("{av}", "{kind}") => decode::<{rust_path}::{struct}>(raw),')
            enc_dispatch.append(f'        ("{av}", "{kind}") => encode::<{rust_path}::{struct}>(object),')
            if f"{struct}List" in structs:
                dispatch.append(f'        ("{av}", "{kind}List") => decode::<{rust_path}::{struct}List>(raw),')
                enc_dispatch.append(f'        ("{av}", "{kind}List") => encode::<{rust_path}::{struct}List>(object),')

# Kinds that are no resource of k8s-openapi but have a protobuf form the server writes.
META = "k8s_pb::apimachinery::pkg::apis::meta::v1"
for version in ("v1", "v1beta1"):
    # meta.k8s.io/v1beta1's PartialObjectMetadata(List) has the same fields and tags as v1's.
    dispatch.append(f'        ("meta.k8s.io/{version}", "PartialObjectMetadata") => decode::<{META}::PartialObjectMetadata>(raw),')
    dispatch.append(f'        ("meta.k8s.io/{version}", "PartialObjectMetadataList") => decode::<{META}::PartialObjectMetadataList>(raw),')
    enc_dispatch.append(f'        ("meta.k8s.io/{version}", "PartialObjectMetadata") => encode::<{META}::PartialObjectMetadata>(object),')
    enc_dispatch.append(f'        ("meta.k8s.io/{version}", "PartialObjectMetadataList") => encode::<{META}::PartialObjectMetadataList>(object),')
enc_dispatch.append('        ("apidiscovery.k8s.io/v2", "APIGroupDiscoveryList") => encode::<k8s_pb::api::apidiscovery::v2::APIGroupDiscoveryList>(object),')
dispatch.append('        ("apidiscovery.k8s.io/v2", "APIGroupDiscoveryList") => decode::<k8s_pb::api::apidiscovery::v2::APIGroupDiscoveryList>(raw),')

decode_out, encode_out = sys.argv[3], sys.argv[4]
HEADER = "// @generated by pbjson/tools/gen-protobuf-json.py from k8s-pb and k8s-openapi: do not edit."

with open(decode_out, "w", encoding="utf-8") as f:
    print(HEADER, file=f)
    print("//! JSON for the k8s-pb messages of the stable API groups, and which message an object or list", file=f)
    print("//! of a given apiVersion and kind decodes into.", file=f)
    print(file=f)
    print("use serde_json::{Map, Value};", file=f)
    print(file=f)
    print("use crate::to_json::{bytes_field, bytes_map_field, decode, field, inline_field, map_field, required_field, ToJson};", file=f)
    print(file=f)
    print("/// The JSON of a protobuf-encoded object or list of `api_version` `kind`, or `None` for a type", file=f)
    print("/// that has no message here.", file=f)
    print("pub fn object_to_json(api_version: &str, kind: &str, raw: &[u8]) -> Option<Result<Value, prost::DecodeError>> {", file=f)
    print("    match (api_version, kind) {", file=f)
    print("\n".join(sorted(set(dispatch))), file=f)
    print("        _ => None,", file=f)
    print("    }", file=f)
    print("}", file=f)
    print(file=f)
    print("\n".join(out), file=f)

with open(encode_out, "w", encoding="utf-8") as f:
    print(HEADER, file=f)
    print("//! The k8s-pb message of a JSON object, field by field with the JSON names `decode.rs` writes", file=f)
    print("//! (embedded Go structs read from the parent's fields), and which message an object or list of", file=f)
    print("//! a given apiVersion and kind encodes into. A key that is no field of the message is an error,", file=f)
    print("//! but for `apiVersion` and `kind` (TypeMeta, which the envelope carries).", file=f)
    print(file=f)
    print("use serde_json::{Map, Value};", file=f)
    print(file=f)
    print("use crate::encoding::protobuf::from_json::{bytes_from_json, bytes_map_from_json, encode, not_a_field, object, At, EncodeError, FromJson};", file=f)
    print(file=f)
    print("/// The protobuf message (without envelope) of `object`, an object or list of `api_version` `kind`,", file=f)
    print("/// or `None` for a type that has no message here.", file=f)
    print("pub fn object_to_protobuf(api_version: &str, kind: &str, object: &Value) -> Option<Result<Vec<u8>, EncodeError>> {", file=f)
    print("    match (api_version, kind) {", file=f)
    print("\n".join(sorted(set(enc_dispatch))), file=f)
    print("        _ => None,", file=f)
    print("    }", file=f)
    print("}", file=f)
    print(file=f)
    print("/// Whether objects or lists of `api_version` `kind` have a protobuf form here.", file=f)
    print("pub fn has_message(api_version: &str, kind: &str) -> bool {", file=f)
    print("    matches!(", file=f)
    print("        (api_version, kind),", file=f)
    print("        " + "\n            | ".join(sorted({l.strip().split(" => ")[0] for l in enc_dispatch})), file=f)
    print("    )", file=f)
    print("}", file=f)
    print(file=f)
    print("\n".join(enc_out), file=f)
