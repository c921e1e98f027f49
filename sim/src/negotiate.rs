//! Content negotiation: which representation a response takes (JSON, YAML, Table,
//! PartialObjectMetadata) from the `Accept` header, in the order and with the fallbacks the real
//! server applies, and which format a request body is in from its `Content-Type`.

/// The serialization of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Yaml,
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
        match self.format {
            Format::Json => "application/json",
            Format::Yaml => "application/yaml",
        }
    }
}

/// What the request is for, since `as=` kinds depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Object,
    List,
    Watch,
    /// Discovery, Status-only or other fixed documents: no `as=` conversion.
    Plain,
}

/// One entry of an Accept header.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaRange {
    pub essence: String,
    pub params: Vec<(String, String)>,
    pub q: f32,
}

impl MediaRange {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Parses an Accept header into ranges ordered by quality (stable for equal qualities).
pub fn parse_accept(header: &str) -> Vec<MediaRange> {
    let mut out: Vec<MediaRange> = header
        .split(',')
        .filter_map(|part| {
            let mut pieces = part.split(';');
            let essence = pieces.next()?.trim().to_ascii_lowercase();
            if essence.is_empty() {
                return None;
            }
            let mut params = Vec::new();
            let mut q = 1.0;
            for p in pieces {
                if let Some((k, v)) = p.split_once('=') {
                    let k = k.trim().to_ascii_lowercase();
                    let v = v.trim().trim_matches('"').to_string();
                    if k == "q" {
                        q = v.parse().unwrap_or(0.0);
                    } else {
                        params.push((k, v));
                    }
                }
            }
            Some(MediaRange { essence, params, q })
        })
        .filter(|m| m.q > 0.0)
        .collect();
    out.sort_by(|a, b| b.q.partial_cmp(&a.q).unwrap_or(std::cmp::Ordering::Equal));
    out
}

/// Picks the response representation, or `None` when nothing acceptable is listed (406).
pub fn choose(accept: Option<&str>, target: Target) -> Option<Output> {
    let header = match accept {
        None => return Some(Output::JSON),
        Some(h) if h.trim().is_empty() => return Some(Output::JSON),
        Some(h) => h,
    };
    parse_accept(header).iter().find_map(|m| acceptable(m, target))
}

fn acceptable(m: &MediaRange, target: Target) -> Option<Output> {
    let format = match m.essence.as_str() {
        "application/json" | "*/*" | "application/*" => Format::Json,
        "application/yaml" => Format::Yaml,
        _ => return None,
    };
    let Some(as_kind) = m.param("as") else {
        return Some(Output { format, shape: Shape::Object });
    };
    if m.param("g") != Some("meta.k8s.io") || target == Target::Plain {
        return None;
    }
    let version = match m.param("v") {
        Some("v1") => TableVersion::V1,
        Some("v1beta1") => TableVersion::V1beta1,
        _ => return None,
    };
    let shape = match (as_kind, target) {
        ("Table", _) => Shape::Table(version),
        ("PartialObjectMetadata", Target::Object | Target::Watch) => Shape::Metadata(version),
        ("PartialObjectMetadataList", Target::List) => Shape::Metadata(version),
        _ => return None,
    };
    Some(Output { format, shape })
}

pub fn essence(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(accept: &str, target: Target, expect: Option<Output>) {
        assert_eq!(choose(Some(accept), target), expect, "Accept: {accept}");
    }

    #[test]
    fn kubectl_table_header_picks_table_v1() {
        check(
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json",
            Target::List,
            Some(Output { format: Format::Json, shape: Shape::Table(TableVersion::V1) }),
        );
    }

    #[test]
    fn protobuf_only_is_not_acceptable_but_falls_back_to_json() {
        check("application/vnd.kubernetes.protobuf", Target::Object, None);
        check("application/vnd.kubernetes.protobuf, application/json", Target::Object, Some(Output::JSON));
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
}
