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

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::MountConfig => "the mount config",
            Source::Attribute => "the data-api-base attribute",
            Source::Meta => "<meta name=\"kube-api-explorer-api-base\">",
            Source::Query => "the URL query",
            Source::Default => "the default",
        })
    }
}

/// A setting that could not be used: which, from where, the value, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub setting: &'static str,
    pub source: Source,
    pub value: String,
    pub expected: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?} from {}: {}", self.setting, self.value, self.source, self.expected)
    }
}

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
    pub fn parse(raw: &str) -> Result<ApiBase, String> {
        const EXPECTED: &str = "expected an http:// or https:// URL, or a path on this origin starting with /";
        let raw = raw.trim();
        if raw.is_empty() {
            return Ok(ApiBase::same_origin());
        }
        if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("{EXPECTED}; spaces and control characters are not allowed"));
        }
        if raw.contains(['?', '#']) {
            return Err(format!("{EXPECTED}, without a query or fragment"));
        }
        if raw.contains('\\') {
            return Err(format!("{EXPECTED}; backslashes are not allowed"));
        }
        if raw.starts_with("//") {
            return Err(format!("{EXPECTED}; a protocol-relative URL (//host) is ambiguous"));
        }
        if raw.starts_with('/') {
            return Ok(ApiBase { prefix: raw.trim_end_matches('/').to_owned() });
        }
        let Some((scheme, rest)) = raw.split_once("://") else {
            return Err(EXPECTED.to_owned());
        };
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!("{EXPECTED}; the scheme {scheme}: is not allowed"));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(format!("{EXPECTED}; credentials in the URL are not allowed"));
        }
        let host_port = parse_authority(authority).map_err(|e| format!("{EXPECTED}; {e}"))?;
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
}

/// `host[:port]` of an http(s) URL, lower-cased; the port, when given, is 1–65535.
fn parse_authority(authority: &str) -> Result<String, String> {
    if authority.is_empty() {
        return Err("the host is missing".to_owned());
    }
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (inside, after) = rest.split_once(']').ok_or("an IPv6 host needs its closing ]")?;
        if inside.is_empty() || !inside.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.') {
            return Err(format!("[{inside}] is not an IPv6 address"));
        }
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or("expected :port after the IPv6 address")?),
        };
        (format!("[{}]", inside.to_ascii_lowercase()), port)
    } else {
        let (host, port) = match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        };
        if host.is_empty() || !host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.') {
            return Err(format!("{host:?} is not a host name (letters, digits, - and . only)"));
        }
        (host.to_ascii_lowercase(), port)
    };
    match port {
        None => Ok(host),
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 && p.chars().all(|c| c.is_ascii_digit()) => Ok(format!("{host}:{n}")),
            _ => Err(format!("the port {p:?} is not a number from 1 to 65535")),
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
    pub fn parse(raw: &str) -> Result<Origin, String> {
        const EXPECTED: &str = "expected one origin such as https://dashboard.example.com";
        let raw = raw.trim();
        if raw == "*" {
            return Err(format!("{EXPECTED}; * would accept messages from any page"));
        }
        let (scheme, rest) = raw.split_once("://").ok_or(EXPECTED)?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!("{EXPECTED}; the scheme {scheme}: is not allowed"));
        }
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.contains(['/', '?', '#', '@']) || authority.chars().any(|c| c.is_whitespace()) {
            return Err(format!("{EXPECTED}, without a path, query, fragment or credentials"));
        }
        let host_port = parse_authority(authority).map_err(|e| format!("{EXPECTED}; {e}"))?;
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
    pub fn parse(raw: &str) -> Result<Theme, String> {
        match raw.trim() {
            "system" => Ok(Theme::System),
            "light" => Ok(Theme::Light),
            "dark" => Ok(Theme::Dark),
            _ => Err("expected light, dark or system".to_owned()),
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
    pub fn parse(raw: &str) -> Result<CssColor, String> {
        const EXPECTED: &str = "expected a CSS colour: #rgb, #rrggbb, rgb(r g b), hsl(h s% l%) or a colour name";
        let value = raw.trim().to_ascii_lowercase();
        if let Some(hex) = value.strip_prefix('#') {
            return if matches!(hex.len(), 3 | 4 | 6 | 8) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
                Ok(CssColor(format!("#{hex}")))
            } else {
                Err(EXPECTED.to_owned())
            };
        }
        if NAMED_COLORS.contains(&value.as_str()) {
            return Ok(CssColor(value));
        }
        let (function, inner) = value
            .split_once('(')
            .and_then(|(f, rest)| rest.strip_suffix(')').map(|inner| (f.trim(), inner)))
            .ok_or(EXPECTED)?;
        let (function, hue_first) = match function {
            "rgb" | "rgba" => ("rgb", false),
            "hsl" | "hsla" => ("hsl", true),
            _ => return Err(EXPECTED.to_owned()),
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
            _ => return Err(format!("{EXPECTED}; {function}() takes three values and an optional alpha")),
        };
        let number = |part: &str, percent: bool| -> Result<String, String> {
            let (digits, is_percent) = match part.strip_suffix('%') {
                Some(d) => (d, true),
                None => (part.strip_suffix("deg").unwrap_or(part), false),
            };
            let n: f64 = digits.parse().map_err(|_| format!("{EXPECTED}; {part:?} is not a number"))?;
            if !n.is_finite() || digits.contains(['e', 'i', 'n']) {
                return Err(format!("{EXPECTED}; {part:?} is not a number"));
            }
            if percent && !is_percent {
                return Err(format!("{EXPECTED}; {part:?} should be a percentage"));
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
pub fn parse_flag(raw: &str) -> Result<bool, String> {
    match raw.trim() {
        "1" | "true" | "" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err("expected 1, true, 0 or false".to_owned()),
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
                setting: "API base",
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
        let error = |setting: &'static str, expected: String| ConfigError {
            setting,
            source,
            value: value.to_owned(),
            expected,
        };
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
    pub fn from_json(value: &serde_json::Value) -> Result<MountConfig, Vec<String>> {
        let mut errors = Vec::new();
        let mut config =
            MountConfig { settings: HostSettings { embed: true, ..HostSettings::default() }, ..MountConfig::default() };
        let object = match value {
            serde_json::Value::Null => return Ok(config),
            serde_json::Value::Object(o) => o,
            other => return Err(vec![format!("config: expected an object, got {}", json_kind(other))]),
        };
        for (key, value) in object {
            let text = |errors: &mut Vec<String>| match value {
                serde_json::Value::String(s) => Some(s.clone()),
                other => {
                    errors.push(format!("config.{key}: expected a string, got {}", json_kind(other)));
                    None
                }
            };
            let flag = |errors: &mut Vec<String>| match value {
                serde_json::Value::Bool(b) => Some(*b),
                other => {
                    errors.push(format!("config.{key}: expected true or false, got {}", json_kind(other)));
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
                            Err(e) => errors.push(format!("config.theme {t:?}: {e}")),
                        }
                    }
                }
                "accent" => {
                    if let Some(c) = text(&mut errors) {
                        match CssColor::parse(&c) {
                            Ok(color) => config.settings.accent = Some(color),
                            Err(e) => errors.push(format!("config.accent {c:?}: {e}")),
                        }
                    }
                }
                "route" => match Route::from_json(value) {
                    Ok(route) => config.route = Some(route),
                    Err(e) => errors.push(format!("config.route: {e}")),
                },
                "onSelect" => {}
                other => errors.push(format!(
                    "config.{other}: not a setting (expected apiBase, readOnly, embed, theme, accent, route, onSelect)"
                )),
            }
        }
        if let Some(raw) = &config.api_base {
            if let Err(e) = ApiBase::parse(raw) {
                errors.push(format!("config.apiBase {raw:?}: {e}"));
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
    pub fn from_json(value: &serde_json::Value) -> Result<Route, String> {
        let object = value.as_object().ok_or_else(|| format!("expected an object, got {}", json_kind(value)))?;
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
                    return Err(format!(
                        "{other}: not part of a route (expected group, version, resource, namespace, name)"
                    ))
                }
            };
            *slot = match value {
                serde_json::Value::String(s) if s.is_empty() && key != "group" => None,
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Null => None,
                other => return Err(format!("{key}: expected a string, got {}", json_kind(other))),
            };
        }
        if route.resource.is_none() && (route.name.is_some() || route.version.is_some()) {
            return Err("a name or version needs a resource".to_owned());
        }
        Ok(route)
    }
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[path = "host_tests.rs"]
mod tests;
