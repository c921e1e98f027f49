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
mod tests {
    use super::*;

    #[test]
    fn api_base_accepts_same_origin_paths_and_http_urls() {
        assert_eq!(ApiBase::parse("").unwrap(), ApiBase::same_origin());
        assert_eq!(ApiBase::parse("/k8s/").unwrap().prefix(), "/k8s");
        assert_eq!(ApiBase::parse("HTTPS://Api.Example.com:6443/").unwrap().prefix(), "https://api.example.com:6443");
        assert_eq!(ApiBase::parse("http://127.0.0.1:8001/proxy").unwrap().prefix(), "http://127.0.0.1:8001/proxy");
        assert_eq!(ApiBase::parse("http://[::1]:8001").unwrap().prefix(), "http://[::1]:8001");
        let path = ApiBase::parse("/k8s").unwrap();
        assert!(path.is_same_origin());
        assert_eq!(path.display("http://localhost:8080"), "http://localhost:8080/k8s");
        let other = ApiBase::parse("https://api.example.com").unwrap();
        assert!(!other.is_same_origin());
        assert_eq!(other.display("http://localhost:8080"), "https://api.example.com");
    }

    #[test]
    fn api_base_refuses_other_schemes_and_odd_urls_and_says_why() {
        for (raw, why) in [
            ("javascript:alert(1)", "expected an http:// or https:// URL"),
            ("ftp://example.com", "the scheme ftp: is not allowed"),
            ("//example.com", "protocol-relative"),
            ("https://user:pw@example.com", "credentials"),
            ("https://example.com/?x=1", "without a query"),
            ("https://exa mple.com", "spaces"),
            ("https://", "the host is missing"),
            ("https://example.com:99999", "not a number from 1 to 65535"),
            ("https://exa_mple.com", "not a host name"),
            ("api.example.com", "expected an http:// or https:// URL"),
            ("/a\\b", "backslashes"),
        ] {
            let error = ApiBase::parse(raw).unwrap_err();
            assert!(error.contains(why), "{raw}: {error}");
        }
    }

    #[test]
    fn the_host_page_wins_over_the_query_and_a_bad_value_is_an_error_not_a_fallback() {
        let sources = ApiBaseSources {
            meta: Some("https://api.example.com".into()),
            query: Some("http://127.0.0.1:1".into()),
            ..ApiBaseSources::default()
        };
        assert_eq!(sources.resolve().unwrap(), (ApiBase::parse("https://api.example.com").unwrap(), Source::Meta));
        let attribute = ApiBaseSources { attribute: Some("/k8s".into()), ..sources.clone() };
        assert_eq!(attribute.resolve().unwrap().1, Source::Attribute);
        let query_only = ApiBaseSources { query: Some("http://127.0.0.1:1".into()), ..ApiBaseSources::default() };
        assert_eq!(query_only.resolve().unwrap().1, Source::Query);
        assert_eq!(ApiBaseSources::default().resolve().unwrap(), (ApiBase::same_origin(), Source::Default));
        let bad = ApiBaseSources { meta: Some("file:///etc".into()), ..ApiBaseSources::default() };
        let error = bad.resolve().unwrap_err();
        assert_eq!(error.source, Source::Meta);
        assert_eq!(
            error.to_string(),
            "API base \"file:///etc\" from <meta name=\"kube-api-explorer-api-base\">: expected an http:// or https:// URL, or a path on this origin starting with /; the scheme file: is not allowed"
        );
    }

    #[test]
    fn origins_are_serialized_as_browsers_do_and_wildcards_refused() {
        assert_eq!(Origin::parse("HTTP://LocalHost:80/").unwrap().as_str(), "http://localhost");
        assert_eq!(Origin::parse("https://dash.example.com:443").unwrap().as_str(), "https://dash.example.com");
        assert_eq!(Origin::parse("http://127.0.0.1:9000").unwrap().as_str(), "http://127.0.0.1:9000");
        assert!(Origin::parse("http://127.0.0.1:9000").unwrap().matches("http://127.0.0.1:9000"));
        assert!(!Origin::parse("http://127.0.0.1:9000").unwrap().matches("http://127.0.0.1:9001"));
        assert!(Origin::parse("*").unwrap_err().contains("any page"));
        assert!(Origin::parse("http://a.example/path").unwrap_err().contains("without a path"));
        assert!(Origin::parse("null").is_err());
        assert!(Origin::parse("file://x").unwrap_err().contains("scheme file:"));
    }

    #[test]
    fn colours_follow_a_small_grammar_and_are_rewritten() {
        for (raw, written) in [
            ("#E4572E", "#e4572e"),
            ("#abc", "#abc"),
            ("#aabbccdd", "#aabbccdd"),
            ("RebeccaPurple", "rebeccapurple"),
            ("rgb(228, 87, 46)", "rgb(228 87 46)"),
            ("rgba(228,87,46,0.5)", "rgb(228 87 46 / 0.5)"),
            ("rgb(50% 20% 10% / 40%)", "rgb(50% 20% 10% / 40%)"),
            ("hsl(12deg 77% 54%)", "hsl(12 77% 54%)"),
        ] {
            assert_eq!(CssColor::parse(raw).unwrap().as_str(), written, "{raw}");
        }
        for raw in [
            "red; background: url(https://evil)",
            "url(x)",
            "expression(alert(1))",
            "#12",
            "#ggg",
            "rgb(1,2)",
            "rgb(1,2,3,4,5)",
            "hsl(10 20 30)",
            "var(--x)",
            "rgb(1e3 2 3)",
            "rgb(NaN 2 3)",
            "notacolour",
            "",
            "</style><script>",
        ] {
            assert!(CssColor::parse(raw).is_err(), "{raw} accepted");
        }
    }

    #[test]
    fn host_parameters_come_from_the_query_and_bad_ones_are_reported() {
        let (settings, api_base) = HostSettings::from_query([
            ("embed", "1"),
            ("host-origin", "http://127.0.0.1:9000"),
            ("read-only", "true"),
            ("theme", "dark"),
            ("accent", "#e4572e"),
            ("api-base", "/k8s"),
            ("resource", "pods"),
        ]);
        assert!(settings.embed && settings.read_only);
        assert_eq!(settings.host_origin.unwrap().as_str(), "http://127.0.0.1:9000");
        assert_eq!(settings.theme, Some(Theme::Dark));
        assert_eq!(settings.accent.unwrap().as_str(), "#e4572e");
        assert_eq!(api_base.as_deref(), Some("/k8s"));
        assert!(settings.errors.is_empty());

        let (settings, _) =
            HostSettings::from_query([("embed", "yes"), ("theme", "pink"), ("accent", "red;x"), ("host-origin", "*")]);
        assert!(!settings.embed);
        let named: Vec<&str> = settings.errors.iter().map(|e| e.setting).collect();
        assert_eq!(named, ["embed", "theme", "accent", "host-origin"]);
        assert!(settings.errors[1].to_string().contains("expected light, dark or system"));
    }

    #[test]
    fn host_parameters_are_kept_on_the_urls_the_explorer_writes() {
        let kept = HostSettings::host_query("?group=&version=v1&resource=pods&embed=1&host-origin=http%3A%2F%2Fa%3A1");
        assert_eq!(kept, "embed=1&host-origin=http%3A%2F%2Fa%3A1");
        assert_eq!(join_search("?resource=pods", &kept), format!("?resource=pods&{kept}"));
        assert_eq!(join_search("", &kept), format!("?{kept}"));
        assert_eq!(join_search("?a=b", ""), "?a=b");
        assert_eq!(HostSettings::host_query(""), "");
        assert_eq!(parse_flag("0"), Ok(false));
        assert!(parse_flag("maybe").is_err());
    }

    #[test]
    fn a_mount_config_is_read_strictly() {
        let config = MountConfig::from_json(&serde_json::json!({
            "apiBase": "http://127.0.0.1:8001",
            "readOnly": true,
            "theme": "light",
            "accent": "teal",
            "route": { "group": "", "version": "v1", "resource": "pods", "namespace": "demo" }
        }))
        .unwrap();
        assert_eq!(config.api_base.as_deref(), Some("http://127.0.0.1:8001"));
        assert!(config.settings.read_only && config.settings.embed);
        assert_eq!(config.settings.theme, Some(Theme::Light));
        let route = config.route.unwrap();
        assert_eq!((route.resource.as_deref(), route.namespace.as_deref()), (Some("pods"), Some("demo")));
        assert_eq!(route.group.as_deref(), Some(""));
        assert!(MountConfig::from_json(&serde_json::Value::Null).unwrap().settings.embed);

        let errors = MountConfig::from_json(&serde_json::json!({
            "apiBase": "ftp://x", "readOnly": "yes", "accent": "url(x)", "colour": 1, "route": { "name": "web" }
        }))
        .unwrap_err();
        assert_eq!(errors.len(), 5, "{errors:?}");
        assert!(errors.iter().any(|e| e.starts_with("config.colour: not a setting")));
        assert!(errors.iter().any(|e| e.starts_with("config.apiBase \"ftp://x\"")));
        assert!(MountConfig::from_json(&serde_json::json!([1])).unwrap_err()[0].contains("expected an object"));
    }
}
