//! What a host page configures when it serves or embeds the explorer: where the API is, whether
//! the explorer runs embedded (no sidebar, one resource view), which origin may drive it with
//! `postMessage`, whether writes are forbidden, and the theme and accent colour.
//!
//! Every value comes from outside (a `<meta>` tag, a `data-` attribute, the URL query, a host's
//! mount config) and is validated here: a bad value is an error naming what was expected and where
//! it came from, never silently replaced by a default. The CSS colour grammar is deliberately
//! small (hex, `rgb()`, `hsl()`, named colours) and the colour is re-serialized from its parsed
//! parts, so nothing a host writes reaches a style sheet verbatim.

use std::fmt;

use crate::i18n::{Localized, Msg, Text};
use kube_wire::request::Request;

/// `<meta name="kube-api-explorer-api-base" content="...">` in the page names the API base.
pub const API_BASE_META: &str = "kube-api-explorer-api-base";
/// `data-api-base="..."` on the mount element names the API base.
pub const API_BASE_ATTRIBUTE: &str = "data-api-base";
/// An element with this attribute anywhere in the page stops the automatic mount on `<body>`: the
/// host calls the exported `mount(element, config)` itself.
pub const MANUAL_MOUNT_ATTRIBUTE: &str = "data-kube-api-explorer-manual";

/// The URL query parameters that configure the explorer rather than describe the view; they are
/// kept on every URL the explorer writes, so a reload stays embedded and on the same API.
pub const HOST_PARAMS: [&str; 6] = ["embed", "host-origin", "api-base", "read-only", "theme", "accent"];

/// Where a setting came from, as a person debugging a host page needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The host's `mount(element, config)` call.
    MountConfig,
    /// `data-api-base` on the mount element.
    Attribute,
    /// `<meta name="kube-api-explorer-api-base">`.
    Meta,
    /// The page URL's query string.
    Query,
    /// Nothing was configured.
    Default,
}

impl Localized for Source {
    fn text(&self) -> Text {
        match self {
            Source::MountConfig => Text::new(Msg::HostSourceMountConfig),
            Source::Attribute => Text::new(Msg::HostSourceAttribute).with("attribute", API_BASE_ATTRIBUTE),
            Source::Meta => Text::verbatim(format!("<meta name=\"{API_BASE_META}\">")),
            Source::Query => Text::new(Msg::HostSourceQuery),
            Source::Default => Text::new(Msg::HostSourceDefault),
        }
    }
}

/// The [`ConfigError::setting`] of the API base (the others are named by their query parameter).
pub const API_BASE_SETTING: &str = "API base";

/// A setting that could not be used: which, from where, the value, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub setting: &'static str,
    pub source: Source,
    pub value: String,
    pub expected: Text,
}

impl Localized for ConfigError {
    fn text(&self) -> Text {
        let text = Text::new(Msg::HostSettingRefused);
        let text = match self.setting {
            API_BASE_SETTING => text.with_text("setting", Msg::HostApiBaseSetting),
            parameter => text.with("setting", parameter),
        };
        text.with("value", format!("{:?}", self.value))
            .with_text("source", self.source)
            .with_text("expected", &self.expected)
    }
}

crate::localized_display!(Source, ConfigError);

impl std::error::Error for ConfigError {}

/// Where API requests go: the page's own origin, a path on it, or another http(s) origin (with
/// an optional path prefix). Request paths (`/api/v1/pods`) are appended to [`ApiBase::prefix`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ApiBase {
    prefix: String,
}

impl ApiBase {
    /// The page's own origin (what `kubectl proxy --www` gives).
    pub fn same_origin() -> Self {
        ApiBase::default()
    }

    /// Parses a configured base: empty for the page's origin, a path starting with `/` on the
    /// page's origin, or an absolute `http://` or `https://` URL without credentials, query or
    /// fragment. A trailing `/` is dropped, since request paths begin with one. The scheme and
    /// host are lower-cased, as browsers compare them.
    pub fn parse(raw: &str) -> Result<ApiBase, Text> {
        let because = |why: Text| because(Msg::HostExpectedApiBase, why);
        let raw = raw.trim();
        if raw.is_empty() {
            return Ok(ApiBase::same_origin());
        }
        if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(because(Text::new(Msg::HostNoSpaces)));
        }
        if raw.contains(['?', '#']) {
            return Err(Text::new(Msg::HostApiBaseWithoutQuery).with_text("expected", Msg::HostExpectedApiBase));
        }
        if raw.contains('\\') {
            return Err(because(Text::new(Msg::HostNoBackslashes)));
        }
        if raw.starts_with("//") {
            return Err(because(Text::new(Msg::HostProtocolRelative)));
        }
        if raw.starts_with('/') {
            return Ok(ApiBase { prefix: raw.trim_end_matches('/').to_owned() });
        }
        let Some((scheme, rest)) = raw.split_once("://") else {
            return Err(Text::new(Msg::HostExpectedApiBase));
        };
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(because(scheme_refused(&scheme)));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(because(Text::new(Msg::HostNoCredentials)));
        }
        let host_port = parse_authority(authority).map_err(because)?;
        Ok(ApiBase { prefix: format!("{scheme}://{host_port}{}", path.trim_end_matches('/')) })
    }

    /// What request paths are appended to: empty for the page's origin.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Whether requests go to the page's own origin (with or without a path prefix).
    pub fn is_same_origin(&self) -> bool {
        self.prefix.is_empty() || self.prefix.starts_with('/')
    }

    /// The base as a person reads it, given the page's origin (`http://127.0.0.1:8001`).
    pub fn display(&self, page_origin: &str) -> String {
        if self.is_same_origin() {
            format!("{page_origin}{}", self.prefix)
        } else {
            self.prefix.clone()
        }
    }

    /// The URL `fetch` is given for `request`: relative to the page when the base is the page's
    /// own origin.
    pub fn url(&self, request: &Request) -> String {
        format!("{}{}", self.prefix, request.path_and_query())
    }

    /// The absolute URL of `request`, as a person should read it in errors and the inspector.
    pub fn absolute_url(&self, request: &Request, page_origin: &str) -> String {
        format!("{}{}", self.display(page_origin), request.path_and_query())
    }
}

/// `expected`, and why the value is not that.
fn because(expected: Msg, why: Text) -> Text {
    Text::new(Msg::HostExpectedBecause).with_text("expected", expected).with_text("why", why)
}

fn scheme_refused(scheme: &str) -> Text {
    Text::new(Msg::HostSchemeRefused).with("scheme", format!("{scheme}:"))
}

/// `host[:port]` of an http(s) URL, lower-cased; the port, when given, is 1–65535.
fn parse_authority(authority: &str) -> Result<String, Text> {
    if authority.is_empty() {
        return Err(Text::new(Msg::HostMissing));
    }
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (inside, after) = rest.split_once(']').ok_or(Text::new(Msg::HostIpv6Unclosed))?;
        if inside.is_empty() || !inside.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.') {
            return Err(Text::new(Msg::HostNotIpv6).with("address", format!("[{inside}]")));
        }
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or(Text::new(Msg::HostPortAfterIpv6))?),
        };
        (format!("[{}]", inside.to_ascii_lowercase()), port)
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        };
        if host.is_empty() || !host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.') {
            return Err(Text::new(Msg::HostNotHostName).with("host", format!("{host:?}")));
        }
        (host.to_ascii_lowercase(), port)
    };
    match port {
        None => Ok(host),
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 && p.chars().all(|c| c.is_ascii_digit()) => Ok(format!("{host}:{n}")),
            _ => Err(Text::new(Msg::HostBadPort).with("port", format!("{p:?}"))),
        },
    }
}

/// An origin (`scheme://host[:port]`) as the browser serializes `MessageEvent.origin`: lower
/// case, default ports left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin(String);

impl Origin {
    /// Parses one http(s) origin; a trailing `/` is allowed, any other path is not, and `*` is
    /// refused (it would accept messages from any page).
    pub fn parse(raw: &str) -> Result<Origin, Text> {
        let because = |why: Text| because(Msg::HostExpectedOrigin, why);
        let raw = raw.trim();
        if raw == "*" {
            return Err(because(Text::new(Msg::HostAnyOrigin).with("wildcard", "*")));
        }
        let (scheme, rest) = raw.split_once("://").ok_or(Text::new(Msg::HostExpectedOrigin))?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(because(scheme_refused(&scheme)));
        }
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.contains(['/', '?', '#', '@']) || authority.chars().any(|c| c.is_whitespace()) {
            return Err(Text::new(Msg::HostOriginWithoutPath).with_text("expected", Msg::HostExpectedOrigin));
        }
        let host_port = parse_authority(authority).map_err(because)?;
        let host_port = match (scheme.as_str(), host_port.rsplit_once(':')) {
            ("http", Some((host, "80"))) | ("https", Some((host, "443"))) => host.to_owned(),
            _ => host_port,
        };
        Ok(Origin(format!("{scheme}://{host_port}")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a message event's `origin` is this origin.
    pub fn matches(&self, event_origin: &str) -> bool {
        self.0 == event_origin
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Light, dark, or whatever the system prefers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    pub fn parse(raw: &str) -> Result<Theme, Text> {
        match raw.trim() {
            "system" => Ok(Theme::System),
            "light" => Ok(Theme::Light),
            "dark" => Ok(Theme::Dark),
            _ => Err(Text::new(Msg::HostExpectedTheme)),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// A CSS colour from a small, safe grammar, kept in the form this module writes itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CssColor(String);

/// CSS named colours (CSS Color Module Level 4), the only words accepted.
const NAMED_COLORS: &[&str] = &[
    "aliceblue",
    "antiquewhite",
    "aqua",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanchedalmond",
    "blue",
    "blueviolet",
    "brown",
    "burlywood",
    "cadetblue",
    "chartreuse",
    "chocolate",
    "coral",
    "cornflowerblue",
    "cornsilk",
    "crimson",
    "cyan",
    "darkblue",
    "darkcyan",
    "darkgoldenrod",
    "darkgray",
    "darkgreen",
    "darkgrey",
    "darkkhaki",
    "darkmagenta",
    "darkolivegreen",
    "darkorange",
    "darkorchid",
    "darkred",
    "darksalmon",
    "darkseagreen",
    "darkslateblue",
    "darkslategray",
    "darkslategrey",
    "darkturquoise",
    "darkviolet",
    "deeppink",
    "deepskyblue",
    "dimgray",
    "dimgrey",
    "dodgerblue",
    "firebrick",
    "floralwhite",
    "forestgreen",
    "fuchsia",
    "gainsboro",
    "ghostwhite",
    "gold",
    "goldenrod",
    "gray",
    "green",
    "greenyellow",
    "grey",
    "honeydew",
    "hotpink",
    "indianred",
    "indigo",
    "ivory",
    "khaki",
    "lavender",
    "lavenderblush",
    "lawngreen",
    "lemonchiffon",
    "lightblue",
    "lightcoral",
    "lightcyan",
    "lightgoldenrodyellow",
    "lightgray",
    "lightgreen",
    "lightgrey",
    "lightpink",
    "lightsalmon",
    "lightseagreen",
    "lightskyblue",
    "lightslategray",
    "lightslategrey",
    "lightsteelblue",
    "lightyellow",
    "lime",
    "limegreen",
    "linen",
    "magenta",
    "maroon",
    "mediumaquamarine",
    "mediumblue",
    "mediumorchid",
    "mediumpurple",
    "mediumseagreen",
    "mediumslateblue",
    "mediumspringgreen",
    "mediumturquoise",
    "mediumvioletred",
    "midnightblue",
    "mintcream",
    "mistyrose",
    "moccasin",
    "navajowhite",
    "navy",
    "oldlace",
    "olive",
    "olivedrab",
    "orange",
    "orangered",
    "orchid",
    "palegoldenrod",
    "palegreen",
    "paleturquoise",
    "palevioletred",
    "papayawhip",
    "peachpuff",
    "peru",
    "pink",
    "plum",
    "powderblue",
    "purple",
    "rebeccapurple",
    "red",
    "rosybrown",
    "royalblue",
    "saddlebrown",
    "salmon",
    "sandybrown",
    "seagreen",
    "seashell",
    "sienna",
    "silver",
    "skyblue",
    "slateblue",
    "slategray",
    "slategrey",
    "snow",
    "springgreen",
    "steelblue",
    "tan",
    "teal",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "whitesmoke",
    "yellow",
    "yellowgreen",
];

impl CssColor {
    /// Parses `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()` and `hsl()`/`hsla()` with
    /// numeric arguments (commas or spaces, an optional `/ alpha`), or a named colour.
    pub fn parse(raw: &str) -> Result<CssColor, Text> {
        let expected = || Text::new(Msg::HostExpectedColour);
        let because = |why: Text| because(Msg::HostExpectedColour, why);
        let value = raw.trim().to_ascii_lowercase();
        if let Some(hex) = value.strip_prefix('#') {
            return if matches!(hex.len(), 3 | 4 | 6 | 8) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
                Ok(CssColor(format!("#{hex}")))
            } else {
                Err(expected())
            };
        }
        if NAMED_COLORS.contains(&value.as_str()) {
            return Ok(CssColor(value));
        }
        let (function, inner) = value
            .split_once('(')
            .and_then(|(f, rest)| rest.strip_suffix(')').map(|inner| (f.trim(), inner)))
            .ok_or_else(expected)?;
        let (function, hue_first) = match function {
            "rgb" | "rgba" => ("rgb", false),
            "hsl" | "hsla" => ("hsl", true),
            _ => return Err(expected()),
        };
        let (channels, alpha) = match inner.split_once('/') {
            Some((c, a)) => (c, Some(a.trim())),
            None => (inner, None),
        };
        let mut parts: Vec<&str> = channels.split([',', ' ']).map(str::trim).filter(|p| !p.is_empty()).collect();
        let alpha = match (alpha, parts.len()) {
            (Some(a), 3) => Some(a),
            (None, 4) => parts.pop(),
            (None, 3) => None,
            _ => return Err(because(Text::new(Msg::HostColourValues).with("function", format!("{function}()")))),
        };
        let not_a_number = |part: &str| because(Text::new(Msg::HostNotANumber).with("value", format!("{part:?}")));
        let number = |part: &str, percent: bool| -> Result<String, Text> {
            let (digits, is_percent) = match part.strip_suffix('%') {
                Some(d) => (d, true),
                None => (part.strip_suffix("deg").unwrap_or(part), false),
            };
            let n: f64 = digits.parse().map_err(|_| not_a_number(part))?;
            if !n.is_finite() || digits.contains(['e', 'i', 'n']) {
                return Err(not_a_number(part));
            }
            if percent && !is_percent {
                return Err(because(Text::new(Msg::HostNotAPercentage).with("value", format!("{part:?}"))));
            }
            Ok(if is_percent { format!("{n}%") } else { format!("{n}") })
        };
        let mut written = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            written.push(number(part, hue_first && i > 0)?);
        }
        let alpha = alpha.map(|a| number(a, false).or_else(|_| number(a, true))).transpose()?;
        Ok(CssColor(match alpha {
            Some(a) => format!("{function}({} / {a})", written.join(" ")),
            None => format!("{function}({})", written.join(" ")),
        }))
    }

    /// The colour as this module wrote it (safe as a CSS custom property value).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A boolean query or attribute value: `1`/`true` or `0`/`false`.
pub fn parse_flag(raw: &str) -> Result<bool, Text> {
    match raw.trim() {
        "1" | "true" | "" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(Text::new(Msg::HostExpectedFlag)),
    }
}

/// Where the host page said the API is, by source; the first present one wins, in the order of
/// the fields (a host page's own settings before the URL a link may carry).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApiBaseSources {
    pub mount_config: Option<String>,
    pub attribute: Option<String>,
    pub meta: Option<String>,
    pub query: Option<String>,
}

impl ApiBaseSources {
    /// The API base the host asked for and where that came from; an invalid value is an error,
    /// never a fallback to the default.
    pub fn resolve(&self) -> Result<(ApiBase, Source), ConfigError> {
        let chosen = [
            (Source::MountConfig, &self.mount_config),
            (Source::Attribute, &self.attribute),
            (Source::Meta, &self.meta),
            (Source::Query, &self.query),
        ]
        .into_iter()
        .find_map(|(source, value)| value.as_ref().map(|v| (source, v)));
        match chosen {
            None => Ok((ApiBase::same_origin(), Source::Default)),
            Some((source, value)) => ApiBase::parse(value).map(|base| (base, source)).map_err(|expected| ConfigError {
                setting: API_BASE_SETTING,
                source,
                value: value.clone(),
                expected,
            }),
        }
    }
}

/// Everything the host configured besides the API base.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostSettings {
    /// No sidebar chrome: one resource view, for an `<iframe>` or a mount.
    pub embed: bool,
    /// The only origin whose messages are obeyed, and where selections are posted.
    pub host_origin: Option<Origin>,
    /// Writes forbidden by the host (the user cannot lift it).
    pub read_only: bool,
    pub theme: Option<Theme>,
    pub accent: Option<CssColor>,
    /// Settings that were given but could not be used.
    pub errors: Vec<ConfigError>,
}

impl HostSettings {
    /// Reads the host parameters from URL query pairs (already percent-decoded), with the
    /// API base's query value, if any, in `api_base`. Other parameters are the view's business.
    pub fn from_query<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> (HostSettings, Option<String>) {
        let mut settings = HostSettings::default();
        let mut api_base = None;
        for (key, value) in pairs {
            settings.apply(key, value, Source::Query, &mut api_base);
        }
        (settings, api_base)
    }

    fn apply(&mut self, key: &str, value: &str, source: Source, api_base: &mut Option<String>) {
        let error =
            |setting: &'static str, expected: Text| ConfigError { setting, source, value: value.to_owned(), expected };
        let result = match key {
            "embed" => parse_flag(value).map(|b| self.embed = b).map_err(|e| error("embed", e)),
            "read-only" => parse_flag(value).map(|b| self.read_only = b).map_err(|e| error("read-only", e)),
            "host-origin" => {
                Origin::parse(value).map(|o| self.host_origin = Some(o)).map_err(|e| error("host-origin", e))
            }
            "theme" => Theme::parse(value).map(|t| self.theme = Some(t)).map_err(|e| error("theme", e)),
            "accent" => CssColor::parse(value).map(|c| self.accent = Some(c)).map_err(|e| error("accent", e)),
            "api-base" => {
                *api_base = Some(value.to_owned());
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(e) = result {
            self.errors.push(e);
        }
    }

    /// The host parameters of a `location.search`, percent-encoded and in their order, to keep
    /// on every URL the explorer writes (`&`-joined, no leading `?`).
    pub fn host_query(search: &str) -> String {
        let pairs: Vec<(String, String)> = form_urlencoded::parse(search.trim_start_matches('?').as_bytes())
            .into_owned()
            .filter(|(k, _)| HOST_PARAMS.contains(&k.as_str()))
            .collect();
        form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish()
    }
}

/// Joins the view's search (`?a=b` or empty) and the kept host parameters into one search.
pub fn join_search(view_search: &str, host_query: &str) -> String {
    match (view_search.is_empty(), host_query.is_empty()) {
        (_, true) => view_search.to_owned(),
        (true, false) => format!("?{host_query}"),
        (false, false) => format!("{view_search}&{host_query}"),
    }
}

/// The route a mount config opens first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Route {
    pub group: Option<String>,
    pub version: Option<String>,
    pub resource: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

/// The config object of `mount(element, config)`:
/// `{ apiBase, readOnly, theme, accent, embed, route: { group, version, resource, namespace, name } }`,
/// every key optional. `embed` defaults to true (a host mounting the explorer wants one view).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MountConfig {
    pub api_base: Option<String>,
    pub settings: HostSettings,
    pub route: Option<Route>,
}

impl MountConfig {
    /// Reads the config; unknown keys and wrongly typed values are errors (a host developer wants
    /// to hear about a typo at once).
    pub fn from_json(value: &serde_json::Value) -> Result<MountConfig, Vec<Text>> {
        let mut errors = Vec::new();
        let mut config =
            MountConfig { settings: HostSettings { embed: true, ..HostSettings::default() }, ..MountConfig::default() };
        let object = match value {
            serde_json::Value::Null => return Ok(config),
            serde_json::Value::Object(o) => o,
            other => return Err(vec![key_problem("config", expected_got(Msg::HostExpectedObjectGot, other))]),
        };
        for (key, value) in object {
            let text = |errors: &mut Vec<Text>| match value {
                serde_json::Value::String(s) => Some(s.clone()),
                other => {
                    errors.push(key_problem(&format!("config.{key}"), expected_got(Msg::HostExpectedStringGot, other)));
                    None
                }
            };
            let flag = |errors: &mut Vec<Text>| match value {
                serde_json::Value::Bool(b) => Some(*b),
                other => {
                    errors.push(key_problem(&format!("config.{key}"), expected_got(Msg::HostExpectedFlagGot, other)));
                    None
                }
            };
            match key.as_str() {
                "apiBase" => config.api_base = text(&mut errors),
                "readOnly" => config.settings.read_only = flag(&mut errors).unwrap_or(false),
                "embed" => config.settings.embed = flag(&mut errors).unwrap_or(true),
                "theme" => {
                    if let Some(t) = text(&mut errors) {
                        match Theme::parse(&t) {
                            Ok(theme) => config.settings.theme = Some(theme),
                            Err(e) => errors.push(value_problem("config.theme", &t, e)),
                        }
                    }
                }
                "accent" => {
                    if let Some(c) = text(&mut errors) {
                        match CssColor::parse(&c) {
                            Ok(color) => config.settings.accent = Some(color),
                            Err(e) => errors.push(value_problem("config.accent", &c, e)),
                        }
                    }
                }
                "route" => match Route::from_json(value) {
                    Ok(route) => config.route = Some(route),
                    Err(e) => errors.push(key_problem("config.route", e)),
                },
                "onSelect" => {}
                other => errors.push(key_problem(
                    &format!("config.{other}"),
                    Text::new(Msg::HostNotASetting)
                        .with("settings", "apiBase, readOnly, embed, theme, accent, route, onSelect"),
                )),
            }
        }
        if let Some(raw) = &config.api_base {
            if let Err(e) = ApiBase::parse(raw) {
                errors.push(value_problem("config.apiBase", raw, e));
            }
        }
        if errors.is_empty() {
            Ok(config)
        } else {
            Err(errors)
        }
    }
}

impl Route {
    /// Reads `{ group, version, resource, namespace, name }` (strings, all optional except that a
    /// name needs a resource).
    pub fn from_json(value: &serde_json::Value) -> Result<Route, Text> {
        let object = value.as_object().ok_or_else(|| expected_got(Msg::HostExpectedObjectGot, value))?;
        let mut route = Route::default();
        for (key, value) in object {
            let slot = match key.as_str() {
                "group" => &mut route.group,
                "version" => &mut route.version,
                "resource" => &mut route.resource,
                "namespace" => &mut route.namespace,
                "name" => &mut route.name,
                "type" => continue,
                other => {
                    return Err(key_problem(
                        other,
                        Text::new(Msg::HostNotInRoute).with("keys", "group, version, resource, namespace, name"),
                    ))
                }
            };
            *slot = match value {
                serde_json::Value::String(s) if s.is_empty() && key != "group" => None,
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Null => None,
                other => return Err(key_problem(key, expected_got(Msg::HostExpectedStringGot, other))),
            };
        }
        if route.resource.is_none() && (route.name.is_some() || route.version.is_some()) {
            return Err(Text::new(Msg::HostRouteNeedsResource));
        }
        Ok(route)
    }
}

/// `{key}: {problem}`, the key as the host wrote it.
pub fn key_problem(key: &str, problem: Text) -> Text {
    Text::new(Msg::HostKeyProblem).with("key", key).with_text("problem", problem)
}

/// `{key} "value": {problem}`.
pub fn value_problem(key: &str, value: &str, problem: Text) -> Text {
    Text::new(Msg::HostValueProblem).with("key", key).with("value", format!("{value:?}")).with_text("problem", problem)
}

/// `expected …, got` the kind of `value`.
fn expected_got(expected: Msg, value: &serde_json::Value) -> Text {
    Text::new(expected).with_text("kind", json_kind(value))
}

/// What kind of JSON value a host gave, in words.
fn json_kind(value: &serde_json::Value) -> Text {
    match value {
        serde_json::Value::Null => Text::verbatim("null"),
        serde_json::Value::Bool(_) => Text::new(Msg::KindBoolean),
        serde_json::Value::Number(_) => Text::new(Msg::KindNumber),
        serde_json::Value::String(_) => Text::new(Msg::KindString),
        serde_json::Value::Array(_) => Text::new(Msg::KindArray),
        serde_json::Value::Object(_) => Text::new(Msg::KindObject),
    }
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;
