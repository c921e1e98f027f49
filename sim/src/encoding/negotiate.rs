//! Content negotiation: which representation a response takes (JSON, YAML, CBOR, Table,
//! PartialObjectMetadata) from the `Accept` header, parsed by the library's
//! [`Accept`](kube_wire::media_type::Accept), with the fallbacks the real server
//! applies (protobuf only for types with a message, so not for custom resources, and never as
//! a Table; a CBOR Table is not offered), and the essence of a request's `Content-Type`.

use kube_wire::media_type::{Accept, Essence, MediaType, Weight};

/// The serialization of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
    Cbor,
    /// `application/vnd.kubernetes.protobuf`: the `k8s\0` envelope around a k8s-pb message.
    Protobuf,
}

/// How the object(s) of a response are represented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The object or list as stored.
    Object,
    /// A `meta.k8s.io` Table of the given version (`v1` or `v1beta1`).
    Table(TableVersion),
    /// PartialObjectMetadata / PartialObjectMetadataList.
    Metadata(TableVersion),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableVersion {
    V1,
    V1beta1,
}

impl TableVersion {
    pub fn api_version(self) -> &'static str {
        match self {
            TableVersion::V1 => "meta.k8s.io/v1",
            TableVersion::V1beta1 => "meta.k8s.io/v1beta1",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Output {
    pub format: Format,
    pub shape: Shape,
}

impl Output {
    pub const JSON: Output = Output { format: Format::Json, shape: Shape::Object };

    pub fn content_type(&self) -> &'static str {
        self.format.content_type()
    }
}

impl Format {
    /// The Content-Type of a response body (not of a watch stream). A protobuf
    /// PartialObjectMetadata(List) is named without its `as=` too, as the real server names it
    /// (real-apiserver 42).
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Yaml => "application/yaml",
            Format::Cbor => "application/cbor",
            Format::Protobuf => "application/vnd.kubernetes.protobuf",
        }
    }
}

/// Whether the objects a request reads or writes have a protobuf message: built-in types do,
/// custom resources do not (their 406 or JSON fallback, real-apiserver 43b). Metadata-only
/// answers and Status bodies have one either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protobuf {
    Encodes,
    NoMessage,
}

/// What the request is for, since `as=` kinds depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Object,
    List,
    Watch,
    /// Discovery and other fixed documents: no `as=` conversion, JSON or YAML only.
    Plain,
    /// A Status: JSON, YAML or CBOR, no conversion.
    Status,
}

/// Picks the response representation, or `None` when nothing acceptable is listed (406).
pub fn choose(accept: Option<&str>, target: Target, protobuf: Protobuf) -> Option<Output> {
    let header = match accept {
        None => return Some(Output::JSON),
        Some(h) if h.trim().is_empty() => return Some(Output::JSON),
        Some(h) => h,
    };
    ranges(header).iter().find_map(|m| acceptable(m, target, protobuf))
}

/// The media ranges of an Accept header by preference. An entry that does not parse (say `as=`
/// without `g=` and `v=`) is skipped, as the real server skips it, instead of failing the whole
/// header.
pub fn ranges(header: &str) -> Vec<MediaType> {
    let mut entries: Vec<(MediaType, Weight)> =
        header.split(',').filter_map(|part| Accept::parse(part).ok()).flat_map(|a| a.entries().to_vec()).collect();
    entries.sort_by_key(|e| std::cmp::Reverse(e.1));
    entries.into_iter().map(|(m, _)| m).collect()
}

fn acceptable(m: &MediaType, target: Target, protobuf: Protobuf) -> Option<Output> {
    let format = match &m.essence {
        Essence::Json | Essence::Any => Format::Json,
        Essence::Other(other) if other == "application/*" => Format::Json,
        Essence::Yaml => Format::Yaml,
        Essence::Cbor if target != Target::Plain => Format::Cbor,
        Essence::Protobuf if target != Target::Plain => Format::Protobuf,
        _ => return None,
    };
    let Some(conversion) = &m.conversion else {
        if format == Format::Protobuf && target != Target::Status && protobuf == Protobuf::NoMessage {
            return None;
        }
        return Some(Output { format, shape: Shape::Object });
    };
    if conversion.group != "meta.k8s.io" || matches!(target, Target::Plain | Target::Status) {
        return None;
    }
    let version = match conversion.version.as_str() {
        "v1" => TableVersion::V1,
        "v1beta1" => TableVersion::V1beta1,
        _ => return None,
    };
    let shape = match (conversion.kind.as_str(), target) {
        ("Table", _) if !matches!(format, Format::Cbor | Format::Protobuf) => Shape::Table(version),
        ("PartialObjectMetadata", Target::Object | Target::Watch) => Shape::Metadata(version),
        ("PartialObjectMetadataList", Target::List) => Shape::Metadata(version),
        _ => return None,
    };
    Some(Output { format, shape })
}

/// The lower-cased type/subtype of a `Content-Type`.
pub fn essence(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(accept: &str, target: Target, expect: Option<Output>) {
        assert_eq!(choose(Some(accept), target, Protobuf::Encodes), expect, "Accept: {accept}");
    }

    #[test]
    fn kubectl_table_header_picks_table_v1() {
        check(
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
            Target::List,
            Some(Output { format: Format::Json, shape: Shape::Table(TableVersion::V1) }),
        );
    }

    const PROTOBUF: Output = Output { format: Format::Protobuf, shape: Shape::Object };

    #[test]
    fn protobuf_is_served_for_types_with_a_message() {
        check("application/vnd.kubernetes.protobuf", Target::Object, Some(PROTOBUF));
        check("application/vnd.kubernetes.protobuf, application/json", Target::List, Some(PROTOBUF));
        check("application/vnd.kubernetes.protobuf;stream=watch", Target::Watch, Some(PROTOBUF));
    }

    #[test]
    fn protobuf_for_a_custom_resource_is_not_acceptable_but_falls_back_to_json() {
        let custom = |accept| choose(Some(accept), Target::Object, Protobuf::NoMessage);
        assert_eq!(custom("application/vnd.kubernetes.protobuf"), None);
        assert_eq!(custom("application/vnd.kubernetes.protobuf, application/json"), Some(Output::JSON));
        // Its errors are protobuf Status bodies all the same (real-apiserver 43b).
        let status = choose(Some("application/vnd.kubernetes.protobuf"), Target::Status, Protobuf::NoMessage);
        assert_eq!(status, Some(PROTOBUF));
        // Its metadata has a message (real-apiserver 42).
        let metadata = choose(
            Some(
                "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json",
            ),
            Target::List,
            Protobuf::NoMessage,
        );
        assert_eq!(metadata, Some(Output { format: Format::Protobuf, shape: Shape::Metadata(TableVersion::V1) }));
    }

    #[test]
    fn a_protobuf_table_is_not_offered() {
        check("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", Target::List, None);
        check(
            "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json",
            Target::List,
            Some(Output::JSON),
        );
        check("application/vnd.kubernetes.protobuf", Target::Plain, None);
    }

    #[test]
    fn metadata_list_needs_the_list_kind() {
        check("application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io", Target::List, None);
        check(
            "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
            Target::List,
            Some(Output { format: Format::Json, shape: Shape::Metadata(TableVersion::V1) }),
        );
    }

    #[test]
    fn quality_orders_ranges() {
        check(
            "application/json;q=0.5, application/yaml",
            Target::Object,
            Some(Output { format: Format::Yaml, shape: Shape::Object }),
        );
    }

    #[test]
    fn a_malformed_entry_is_skipped_not_fatal() {
        check(
            "application/json;as=Table, application/yaml",
            Target::List,
            Some(Output { format: Format::Yaml, shape: Shape::Object }),
        );
    }

    #[test]
    fn cbor_is_served_except_as_a_table_or_for_discovery() {
        check("application/cbor", Target::List, Some(Output { format: Format::Cbor, shape: Shape::Object }));
        check("application/cbor;as=Table;v=v1;g=meta.k8s.io", Target::List, None);
        check("application/cbor", Target::Plain, None);
        check("application/cbor", Target::Status, Some(Output { format: Format::Cbor, shape: Shape::Object }));
    }
}
