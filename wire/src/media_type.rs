//! Media types as values: what the app asks for in `Accept`, what a response's `Content-Type`
//! says, and which request body types exist (the patch types included).
//!
//! Covers the concepts page's "HTTP media types", "Receiving resources as Tables",
//! "Metadata-only fetches" and "Kubernetes Protobuf encoding" sections: JSON, YAML, CBOR, CBOR
//! sequences, Kubernetes protobuf (and `;stream=watch`), the `as=…;g=…;v=…` conversion parameters
//! and `q` weights. Invariant: parsing is total (any header text gives a value or an error, never a
//! panic) and printing a parsed media type gives back an equivalent header value.

use std::fmt;
use std::str::FromStr;

use crate::error::Format;

/// The type/subtype part of a media type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Essence {
    /// `application/json`
    Json,
    /// `application/yaml`
    Yaml,
    /// `application/cbor`
    Cbor,
    /// `application/cbor-seq` (CBOR watch responses, RFC 8742)
    CborSeq,
    /// `application/vnd.kubernetes.protobuf`
    Protobuf,
    /// `application/json-patch+json` (RFC 6902)
    JsonPatch,
    /// `application/merge-patch+json` (RFC 7386)
    MergePatch,
    /// `application/strategic-merge-patch+json`
    StrategicMergePatch,
    /// `application/apply-patch+yaml` (server-side apply)
    ApplyPatchYaml,
    /// `application/apply-patch+cbor` (server-side apply, CBOR)
    ApplyPatchCbor,
    /// `text/plain` (logs, `404 page not found`)
    TextPlain,
    /// `*/*`
    Any,
    /// Anything else, lowercased.
    Other(String),
}

impl Essence {
    pub fn as_str(&self) -> &str {
        match self {
            Essence::Json => "application/json",
            Essence::Yaml => "application/yaml",
            Essence::Cbor => "application/cbor",
            Essence::CborSeq => "application/cbor-seq",
            Essence::Protobuf => "application/vnd.kubernetes.protobuf",
            Essence::JsonPatch => "application/json-patch+json",
            Essence::MergePatch => "application/merge-patch+json",
            Essence::StrategicMergePatch => "application/strategic-merge-patch+json",
            Essence::ApplyPatchYaml => "application/apply-patch+yaml",
            Essence::ApplyPatchCbor => "application/apply-patch+cbor",
            Essence::TextPlain => "text/plain",
            Essence::Any => "*/*",
            Essence::Other(other) => other,
        }
    }

    fn parse(text: &str) -> Essence {
        let lower = text.trim().to_ascii_lowercase();
        [
            Essence::Json,
            Essence::Yaml,
            Essence::Cbor,
            Essence::CborSeq,
            Essence::Protobuf,
            Essence::JsonPatch,
            Essence::MergePatch,
            Essence::StrategicMergePatch,
            Essence::ApplyPatchYaml,
            Essence::ApplyPatchCbor,
            Essence::TextPlain,
            Essence::Any,
        ]
        .into_iter()
        .find(|e| e.as_str() == lower)
        .unwrap_or(Essence::Other(lower))
    }

    /// The wire format of a body of this type, if the app can decode it.
    pub fn format(&self) -> Option<Format> {
        match self {
            Essence::Json | Essence::JsonPatch | Essence::MergePatch | Essence::StrategicMergePatch => {
                Some(Format::Json)
            }
            Essence::Yaml | Essence::ApplyPatchYaml => Some(Format::Yaml),
            Essence::Cbor | Essence::CborSeq | Essence::ApplyPatchCbor => Some(Format::Cbor),
            Essence::Protobuf => Some(Format::Protobuf),
            Essence::TextPlain | Essence::Any | Essence::Other(_) => None,
        }
    }
}

/// The `as=KIND;g=GROUP;v=VERSION` parameters that ask the server to convert a response, e.g. to
/// a `Table` or to `PartialObjectMetadata`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Conversion {
    pub kind: String,
    pub group: String,
    pub version: String,
}

impl Conversion {
    /// `as=Table;g=meta.k8s.io;v=v1`
    pub fn table() -> Self {
        Conversion::meta("Table", "v1")
    }

    /// `as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (for a single object).
    pub fn partial_object_metadata() -> Self {
        Conversion::meta("PartialObjectMetadata", "v1")
    }

    /// `as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` (for a collection).
    pub fn partial_object_metadata_list() -> Self {
        Conversion::meta("PartialObjectMetadataList", "v1")
    }

    /// A conversion to `kind` of `meta.k8s.io/version`.
    pub fn meta(kind: &str, version: &str) -> Self {
        Conversion { kind: kind.to_string(), group: "meta.k8s.io".to_string(), version: version.to_string() }
    }
}

/// A media type with the parameters Kubernetes gives meaning to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MediaType {
    pub essence: Essence,
    pub conversion: Option<Conversion>,
    /// `;stream=watch` (protobuf watch framing).
    pub watch_stream: bool,
    /// Other parameters (e.g. `charset`), in order, names lowercased.
    pub params: Vec<(String, String)>,
}

impl MediaType {
    /// A media type without parameters.
    pub fn new(essence: Essence) -> Self {
        MediaType { essence, conversion: None, watch_stream: false, params: Vec::new() }
    }

    pub fn json() -> Self {
        MediaType::new(Essence::Json)
    }

    pub fn yaml() -> Self {
        MediaType::new(Essence::Yaml)
    }

    pub fn cbor() -> Self {
        MediaType::new(Essence::Cbor)
    }

    pub fn cbor_seq() -> Self {
        MediaType::new(Essence::CborSeq)
    }

    pub fn protobuf() -> Self {
        MediaType::new(Essence::Protobuf)
    }

    /// `application/vnd.kubernetes.protobuf;stream=watch`
    pub fn protobuf_watch() -> Self {
        MediaType { watch_stream: true, ..MediaType::protobuf() }
    }

    /// This media type asking for `conversion`.
    #[must_use]
    pub fn with_conversion(self, conversion: Conversion) -> Self {
        MediaType { conversion: Some(conversion), ..self }
    }

    /// Whether a body of this type is a stream of watch events rather than one document
    /// (`application/cbor-seq`, protobuf `;stream=watch`). A JSON watch is `application/json`:
    /// only the request says it is a stream.
    pub fn is_watch_stream(&self) -> bool {
        self.essence == Essence::CborSeq || (self.essence == Essence::Protobuf && self.watch_stream)
    }

    /// Whether `self` (from an `Accept` header) admits a response of type `offered`.
    pub fn admits(&self, offered: &MediaType) -> bool {
        let essence = match &self.essence {
            Essence::Any => true,
            Essence::Other(pattern) if pattern.ends_with("/*") => {
                offered.essence.as_str().starts_with(&pattern[..pattern.len() - 1])
            }
            essence => *essence == offered.essence,
        };
        essence && self.conversion == offered.conversion
    }
}

impl fmt::Display for MediaType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.essence.as_str())?;
        if let Some(c) = &self.conversion {
            write!(f, ";as={};g={};v={}", c.kind, c.group, c.version)?;
        }
        if self.watch_stream {
            f.write_str(";stream=watch")?;
        }
        for (name, value) in &self.params {
            if is_token(value) {
                write!(f, ";{name}={value}")?;
            } else {
                write!(f, ";{name}=\"{value}\"")?;
            }
        }
        Ok(())
    }
}

/// A header value that is not a media type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MediaTypeError {
    #[error("expected a media type like application/json, found {0:?}")]
    NotAMediaType(String),
    #[error("expected a parameter like name=value in {header:?}, found {parameter:?}")]
    BadParameter { header: String, parameter: String },
    #[error("expected a q weight between 0 and 1 with at most 3 decimals, found {0:?}")]
    BadWeight(String),
    #[error("expected as, g and v together in {0:?}")]
    IncompleteConversion(String),
}

impl FromStr for MediaType {
    type Err = MediaTypeError;

    /// Parses a `Content-Type` value (parameters in any order, names case-insensitive).
    fn from_str(text: &str) -> Result<Self, MediaTypeError> {
        parse_with_weight(text).map(|(media_type, _)| media_type)
    }
}

/// A `q` weight in thousandths (`q=0.9` is 900); 1000 when absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Weight(u16);

impl Weight {
    pub const ONE: Weight = Weight(1000);

    /// A weight in thousandths, at most 1000.
    pub fn from_thousandths(thousandths: u16) -> Option<Weight> {
        (thousandths <= 1000).then_some(Weight(thousandths))
    }

    pub fn thousandths(self) -> u16 {
        self.0
    }

    fn parse(text: &str) -> Result<Weight, MediaTypeError> {
        let bad = || MediaTypeError::BadWeight(text.to_string());
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let fraction: u16 = format!("{fraction:0<3}").parse().map_err(|_| bad())?;
        match whole {
            "0" => Ok(Weight(fraction)),
            "1" if fraction == 0 => Ok(Weight::ONE),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Weight {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 1000 {
            return f.write_str("1");
        }
        let text = format!("0.{:03}", self.0);
        f.write_str(text.trim_end_matches('0').trim_end_matches('.'))
    }
}

/// An RFC 9110 token: what a type, subtype, parameter name or unquoted value may be.
fn is_token(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn parse_with_weight(text: &str) -> Result<(MediaType, Weight), MediaTypeError> {
    let mut parts = text.split(';');
    let essence_text = parts.next().unwrap_or_default().trim();
    let valid = essence_text.split_once('/').is_some_and(|(t, s)| is_token(t) && is_token(s));
    if !valid {
        return Err(MediaTypeError::NotAMediaType(text.to_string()));
    }
    let mut media_type = MediaType::new(Essence::parse(essence_text));
    let mut weight = Weight::ONE;
    let (mut kind, mut group, mut version) = (None, None, None);
    for parameter in parts {
        if parameter.trim().is_empty() {
            continue;
        }
        let Some((name, value)) = parameter.split_once('=') else {
            return Err(MediaTypeError::BadParameter { header: text.to_string(), parameter: parameter.to_string() });
        };
        let name = name.trim().to_ascii_lowercase();
        let value = value.trim();
        let value = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            // A quoted string; one that would need escapes or could be split as a list is refused.
            Some(inner) if !inner.is_empty() && !inner.contains(['"', '\\', ';', ',']) => inner.to_string(),
            None if is_token(value) => value.to_string(),
            _ => {
                return Err(MediaTypeError::BadParameter { header: text.to_string(), parameter: parameter.to_string() })
            }
        };
        // The conversion parameters name a kind, group and version: tokens, never quoted text.
        if !is_token(&name) || (matches!(name.as_str(), "as" | "g" | "v") && !is_token(&value)) {
            return Err(MediaTypeError::BadParameter { header: text.to_string(), parameter: parameter.to_string() });
        }
        match name.as_str() {
            "as" => kind = Some(value),
            "g" => group = Some(value),
            "v" => version = Some(value),
            "q" => weight = Weight::parse(&value)?,
            "stream" if value == "watch" => media_type.watch_stream = true,
            _ => media_type.params.push((name, value)),
        }
    }
    media_type.conversion = match (kind, group, version) {
        (None, None, None) => None,
        (Some(kind), Some(group), Some(version)) => Some(Conversion { kind, group, version }),
        _ => return Err(MediaTypeError::IncompleteConversion(text.to_string())),
    };
    Ok((media_type, weight))
}

/// An `Accept` header: media types in order of preference, each with a weight.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Accept {
    entries: Vec<(MediaType, Weight)>,
}

impl Accept {
    /// Accepts only `media_type`.
    pub fn only(media_type: MediaType) -> Self {
        Accept { entries: vec![(media_type, Weight::ONE)] }
    }

    /// Adds a fallback at full weight (the server takes the first it can serve).
    #[must_use]
    pub fn or(mut self, media_type: MediaType) -> Self {
        self.entries.push((media_type, Weight::ONE));
        self
    }

    /// Adds a fallback with an explicit weight.
    #[must_use]
    pub fn or_weighted(mut self, media_type: MediaType, weight: Weight) -> Self {
        self.entries.push((media_type, weight));
        self
    }

    /// A server-side Table (v1, then v1beta1), falling back to plain JSON, as `kubectl get` asks.
    pub fn table() -> Self {
        Accept::only(MediaType::json().with_conversion(Conversion::table()))
            .or(MediaType::json().with_conversion(Conversion::meta("Table", "v1beta1")))
            .or(MediaType::json())
    }

    /// A `PartialObjectMetadataList` preferred, the full list at `q=0.9` from a server that
    /// cannot convert.
    pub fn metadata_only_list() -> Self {
        Accept::only(MediaType::json().with_conversion(Conversion::partial_object_metadata_list()))
            .or_weighted(MediaType::json(), Weight(900))
    }

    /// `PartialObjectMetadata` of one object preferred, the full object at `q=0.9`.
    pub fn metadata_only() -> Self {
        Accept::only(MediaType::json().with_conversion(Conversion::partial_object_metadata()))
            .or_weighted(MediaType::json(), Weight(900))
    }

    /// Protobuf with the JSON fallback that custom resources and aggregated APIs need.
    pub fn protobuf_or_json() -> Self {
        Accept::only(MediaType::protobuf()).or(MediaType::json())
    }

    /// Parses an incoming `Accept` header into a preference list: highest weight first, header
    /// order among equal weights; entries with `q=0` are dropped (they refuse a type).
    pub fn parse(header: &str) -> Result<Self, MediaTypeError> {
        let mut entries = Vec::new();
        for part in header.split(',').filter(|p| !p.trim().is_empty()) {
            let (media_type, weight) = parse_with_weight(part)?;
            if weight.0 > 0 {
                entries.push((media_type, weight));
            }
        }
        entries.sort_by_key(|e| std::cmp::Reverse(e.1));
        Ok(Accept { entries })
    }

    /// The media types with their weights, in the order given or parsed.
    pub fn entries(&self) -> &[(MediaType, Weight)] {
        &self.entries
    }

    /// The first of `offered` (what a server can produce, in its own preference) that this
    /// header admits, by the header's preference; `None` means `406 Not Acceptable`.
    pub fn negotiate<'a>(&self, offered: &'a [MediaType]) -> Option<&'a MediaType> {
        self.entries.iter().find_map(|(wanted, _)| offered.iter().find(|o| wanted.admits(o)))
    }
}

impl fmt::Display for Accept {
    /// The header value, comma-separated as `kubectl` writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (media_type, weight)) in self.entries.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{media_type}")?;
            if *weight != Weight::ONE {
                write!(f, ";q={weight}")?;
            }
        }
        Ok(())
    }
}

/// The four ways to change an object with `PATCH` (concepts page: "Patch and apply").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatchType {
    /// RFC 6902 JSON Patch.
    Json,
    /// RFC 7386 JSON merge patch.
    Merge,
    /// Strategic merge patch (built-in types only; a custom resource answers 415).
    StrategicMerge,
    /// Server-side apply (YAML or JSON body; see [`PatchType::apply_cbor_media_type`]).
    Apply,
}

impl PatchType {
    /// The `Content-Type` of a body of this patch type.
    pub fn media_type(self) -> MediaType {
        MediaType::new(match self {
            PatchType::Json => Essence::JsonPatch,
            PatchType::Merge => Essence::MergePatch,
            PatchType::StrategicMerge => Essence::StrategicMergePatch,
            PatchType::Apply => Essence::ApplyPatchYaml,
        })
    }

    /// `application/apply-patch+cbor`: the only patch type with a CBOR form.
    pub fn apply_cbor_media_type() -> MediaType {
        MediaType::new(Essence::ApplyPatchCbor)
    }

    /// The patch type of a request `Content-Type`, if it is one.
    pub fn from_media_type(media_type: &MediaType) -> Option<PatchType> {
        match media_type.essence {
            Essence::JsonPatch => Some(PatchType::Json),
            Essence::MergePatch => Some(PatchType::Merge),
            Essence::StrategicMergePatch => Some(PatchType::StrategicMerge),
            Essence::ApplyPatchYaml | Essence::ApplyPatchCbor => Some(PatchType::Apply),
            _ => None,
        }
    }

    pub const ALL: [PatchType; 4] = [PatchType::Json, PatchType::Merge, PatchType::StrategicMerge, PatchType::Apply];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(header: &str, expect: Result<&str, MediaTypeError>) {
        let got = header.parse::<MediaType>().map(|m| m.to_string());
        assert_eq!(got.as_deref().map_err(Clone::clone), expect.as_deref().map_err(Clone::clone));
    }

    #[test]
    fn content_types_parse_with_their_parameters() {
        check("application/json", Ok("application/json"));
        check("Application/JSON; charset=utf-8", Ok("application/json;charset=utf-8"));
        check("application/json;as=Table;v=v1;g=meta.k8s.io", Ok("application/json;as=Table;g=meta.k8s.io;v=v1"));
        check(
            "application/vnd.kubernetes.protobuf;stream=watch",
            Ok("application/vnd.kubernetes.protobuf;stream=watch"),
        );
        check("application/cbor-seq", Ok("application/cbor-seq"));
        check("json", Err(MediaTypeError::NotAMediaType("json".into())));
        check(
            "application/json;x",
            Err(MediaTypeError::BadParameter { header: "application/json;x".into(), parameter: "x".into() }),
        );
        check(
            "application/json;as=Table",
            Err(MediaTypeError::IncompleteConversion("application/json;as=Table".into())),
        );
        check("text/plain; charset=\"utf-8\"", Ok("text/plain;charset=utf-8"));
        check("text/plain; x=\"a b\"", Ok("text/plain;x=\"a b\""));
        // Found by fuzzing: a value with spaces and a stray quote printed differently each time.
        let bad = "application/json;Gs=T   \"  ";
        check(bad, Err(MediaTypeError::BadParameter { header: bad.into(), parameter: "Gs=T   \"  ".into() }));
        check("a/b;=x", Err(MediaTypeError::BadParameter { header: "a/b;=x".into(), parameter: "=x".into() }));
        check(
            "a/b;g=\"\"",
            Err(MediaTypeError::BadParameter { header: "a/b;g=\"\"".into(), parameter: "g=\"\"".into() }),
        );
        let quoted = "a/b;as=\"T b\";g=x;v=y";
        check(quoted, Err(MediaTypeError::BadParameter { header: quoted.into(), parameter: "as=\"T b\"".into() }));
    }

    #[test]
    fn watch_streams_are_cbor_sequences_and_protobuf_watch_frames() {
        assert!(MediaType::cbor_seq().is_watch_stream());
        assert!(MediaType::protobuf_watch().is_watch_stream());
        assert!(!MediaType::protobuf().is_watch_stream());
        assert!(!MediaType::json().is_watch_stream());
    }

    #[test]
    fn accept_headers_have_the_documented_fallbacks() {
        assert_eq!(
            Accept::table().to_string(),
            "application/json;as=Table;g=meta.k8s.io;v=v1,application/json;as=Table;g=meta.k8s.io;v=v1beta1,application/json"
        );
        assert_eq!(
            Accept::metadata_only_list().to_string(),
            "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;q=0.9"
        );
        assert_eq!(
            Accept::metadata_only().to_string(),
            "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;q=0.9"
        );
        assert_eq!(Accept::protobuf_or_json().to_string(), "application/vnd.kubernetes.protobuf,application/json");
        assert_eq!(
            Accept::only(MediaType::yaml()).or(MediaType::cbor()).to_string(),
            "application/yaml,application/cbor"
        );
    }

    #[test]
    fn an_incoming_accept_header_becomes_a_preference_list() {
        let accept =
            Accept::parse("application/json;q=0.5, application/cbor, */*;q=0.1, application/yaml;q=0").expect("valid");
        let order: Vec<String> = accept.entries().iter().map(|(m, w)| format!("{m} {w}")).collect();
        assert_eq!(order, ["application/cbor 1", "application/json 0.5", "*/* 0.1"]);
        assert_eq!(Accept::parse("application/json;q=2"), Err(MediaTypeError::BadWeight("2".into())));
        assert_eq!(Accept::parse("application/json;q=0.1234"), Err(MediaTypeError::BadWeight("0.1234".into())));
    }

    #[test]
    fn negotiation_picks_the_clients_preferred_type_the_server_offers() {
        let offered = [MediaType::json(), MediaType::yaml(), MediaType::json().with_conversion(Conversion::table())];
        let pick = |header: &str| Accept::parse(header).expect("valid").negotiate(&offered).map(ToString::to_string);
        assert_eq!(pick(&Accept::table().to_string()).as_deref(), Some("application/json;as=Table;g=meta.k8s.io;v=v1"));
        assert_eq!(pick("application/cbor").as_deref(), None);
        assert_eq!(pick("application/cbor, */*").as_deref(), Some("application/json"));
        assert_eq!(pick("application/*;q=0.5,application/yaml").as_deref(), Some("application/yaml"));
    }

    #[test]
    fn weights_print_like_http() {
        assert_eq!(Weight::from_thousandths(900).map(|w| w.to_string()).as_deref(), Some("0.9"));
        assert_eq!(Weight::from_thousandths(1001), None);
        assert_eq!(Weight::ONE.thousandths(), 1000);
    }

    #[test]
    fn each_patch_type_has_its_content_type() {
        let types: Vec<String> = PatchType::ALL.iter().map(|p| p.media_type().to_string()).collect();
        assert_eq!(
            types,
            [
                "application/json-patch+json",
                "application/merge-patch+json",
                "application/strategic-merge-patch+json",
                "application/apply-patch+yaml"
            ]
        );
        assert_eq!(PatchType::apply_cbor_media_type().to_string(), "application/apply-patch+cbor");
        for patch in PatchType::ALL {
            assert_eq!(PatchType::from_media_type(&patch.media_type()), Some(patch));
        }
        assert_eq!(PatchType::from_media_type(&PatchType::apply_cbor_media_type()), Some(PatchType::Apply));
        assert_eq!(PatchType::from_media_type(&MediaType::json()), None);
    }

    #[test]
    fn essences_know_their_wire_format() {
        assert_eq!(Essence::ApplyPatchCbor.format(), Some(Format::Cbor));
        assert_eq!(Essence::StrategicMergePatch.format(), Some(Format::Json));
        assert_eq!(Essence::ApplyPatchYaml.format(), Some(Format::Yaml));
        assert_eq!(Essence::Protobuf.format(), Some(Format::Protobuf));
        assert_eq!(Essence::TextPlain.format(), None);
        assert_eq!("text/html".parse::<MediaType>().map(|m| m.essence), Ok(Essence::Other("text/html".into())));
    }

    #[test]
    fn the_discovery_accept_header_parses() {
        let accept = Accept::parse(crate::discovery::AGGREGATED_DISCOVERY_ACCEPT).expect("valid");
        assert_eq!(
            accept.entries()[0].0.conversion,
            Some(Conversion::meta("APIGroupDiscoveryList", "v2"))
                .map(|c| Conversion { group: "apidiscovery.k8s.io".into(), ..c })
        );
    }
}
