//! List and watch options (`limit`, `continue`, `resourceVersion`, `resourceVersionMatch`,
//! selectors, `sendInitialEvents`...) validated as apimachinery does, and the list itself: a
//! consistent snapshot per paged list, continue tokens shaped like the real server's (base64 of
//! `{"v":"meta.k8s.io/v1","rv":N,"start":"KEY\u0000"}`) that expire after `--continue-ttl`.

use std::collections::HashMap;
use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;

use crate::rules::selector::{FieldSelector, LabelSelector};
use crate::rules::status::{bad_request, ApiError, ApiResult, Cause, Details, FieldError, Status};
use crate::store::object;
use crate::store::registry::ResourceType;
use crate::store::{Obj, Store};

pub type Query = HashMap<String, String>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RvMatch {
    Exact,
    NotOlderThan,
}

/// Decoded continue token.
#[derive(Debug, Clone, PartialEq)]
pub struct ContinueToken {
    pub rv: u64,
    pub start: String,
}

impl ContinueToken {
    pub fn encode(&self) -> String {
        let start = Value::String(format!("{}\u{0}", self.start));
        URL_SAFE_NO_PAD.encode(format!("{{\"v\":\"meta.k8s.io/v1\",\"rv\":{},\"start\":{start}}}", self.rv))
    }

    pub fn decode(token: &str) -> Result<ContinueToken, String> {
        let prefix = "invalid continue token: continue key is not valid";
        let bytes = URL_SAFE_NO_PAD.decode(token.trim_end_matches('=')).map_err(|e| match e {
            base64::DecodeError::InvalidByte(at, _) => format!("{prefix}: illegal base64 data at input byte {at}"),
            base64::DecodeError::InvalidLength(n) => {
                format!("{prefix}: illegal base64 data at input byte {}", n.saturating_sub(1))
            }
            other => format!("{prefix}: {other}"),
        })?;
        let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{prefix}: {e}"))?;
        if v["v"] != "meta.k8s.io/v1" {
            return Err(format!("{prefix}: got version {}, expected meta.k8s.io/v1", v["v"]));
        }
        let rv = v["rv"]
            .as_u64()
            .filter(|rv| *rv > 0)
            .ok_or_else(|| format!("{prefix}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"))?;
        let start = v["start"].as_str().unwrap_or_default().trim_end_matches('\u{0}').to_string();
        Ok(ContinueToken { rv, start })
    }
}

/// Parsed list or watch options.
#[derive(Debug, Clone)]
pub struct ListOptions {
    pub watch: bool,
    pub limit: Option<u64>,
    pub continue_token: Option<ContinueToken>,
    pub rv: Option<String>,
    pub rv_match: Option<RvMatch>,
    pub labels: LabelSelector,
    pub fields: FieldSelector,
    pub allow_bookmarks: bool,
    pub send_initial_events: Option<bool>,
    pub timeout_seconds: Option<u64>,
}

fn parse_bool(q: &Query, name: &str) -> ApiResult<Option<bool>> {
    match q.get(name).map(String::as_str) {
        None => Ok(None),
        Some("true" | "1" | "True" | "TRUE" | "t" | "T") => Ok(Some(true)),
        Some("false" | "0" | "False" | "FALSE" | "f" | "F" | "") => Ok(Some(false)),
        Some(other) => Err(bad_request(format!("strconv.ParseBool: parsing \"{other}\": invalid syntax"))),
    }
}

fn parse_int(q: &Query, name: &str) -> ApiResult<Option<i64>> {
    match q.get(name) {
        None => Ok(None),
        Some(s) if s.is_empty() => Ok(None),
        Some(s) => s
            .parse::<i64>()
            .map(Some)
            .map_err(|_| bad_request(format!("strconv.ParseInt: parsing \"{s}\": invalid syntax"))),
    }
}

fn list_options_invalid(errors: Vec<FieldError>) -> ApiError {
    let list: Vec<String> = errors.iter().map(|e| format!("{}: {}", e.field, e.detail)).collect();
    let joined = if list.len() == 1 { list[0].clone() } else { format!("[{}]", list.join(", ")) };
    Status::failure(422, "Invalid", format!("ListOptions.meta.k8s.io \"\" is invalid: {joined}"))
        .with_details(Details {
            group: "meta.k8s.io".into(),
            kind: "ListOptions".into(),
            causes: errors
                .iter()
                .map(|e| Cause { reason: e.reason.into(), message: e.detail.clone(), field: e.field.clone() })
                .collect(),
            ..Details::default()
        })
        .into()
}

impl ListOptions {
    pub fn parse(q: &Query, rt: &ResourceType, watch_path: bool) -> ApiResult<ListOptions> {
        let watch = watch_path || parse_bool(q, "watch")?.unwrap_or(false);
        let limit = parse_int(q, "limit")?.filter(|l| *l > 0).map(|l| l as u64);
        let rv = q.get("resourceVersion").filter(|s| !s.is_empty()).cloned();
        let rv_match_raw = q.get("resourceVersionMatch").filter(|s| !s.is_empty()).cloned();
        let continue_raw = q.get("continue").filter(|s| !s.is_empty()).cloned();
        let send_initial_events = parse_bool(q, "sendInitialEvents")?;
        let labels = LabelSelector::parse(q.get("labelSelector").map(String::as_str).unwrap_or_default())
            .map_err(bad_request)?;
        let fields = FieldSelector::parse(q.get("fieldSelector").map(String::as_str).unwrap_or_default(), rt)
            .map_err(bad_request)?;
        let mut errors = Vec::new();
        if watch {
            if send_initial_events.is_some() && rv_match_raw.as_deref() != Some("NotOlderThan") {
                errors.push(FieldError::forbidden(
                    "resourceVersionMatch",
                    "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                ));
            }
            if let Some(m) = &rv_match_raw {
                if send_initial_events.is_none() {
                    errors.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    ));
                }
                if m != "NotOlderThan" {
                    errors.push(FieldError::not_supported("resourceVersionMatch", m, &["NotOlderThan"]));
                }
                if continue_raw.is_some() {
                    errors.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    ));
                }
            }
        } else {
            if let Some(m) = &rv_match_raw {
                if rv.is_none() {
                    errors.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden unless resourceVersion is provided",
                    ));
                }
                if continue_raw.is_some() {
                    errors.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    ));
                }
                if m != "Exact" && m != "NotOlderThan" {
                    errors.push(FieldError::not_supported("resourceVersionMatch", m, &["Exact", "NotOlderThan", ""]));
                }
                if m == "Exact" && rv.as_deref() == Some("0") {
                    errors.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                    ));
                }
            }
            if send_initial_events.is_some() {
                errors.push(FieldError::forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
            }
        }
        if !errors.is_empty() {
            return Err(list_options_invalid(errors));
        }
        let rv_match = match rv_match_raw.as_deref() {
            Some("Exact") => Some(RvMatch::Exact),
            Some("NotOlderThan") => Some(RvMatch::NotOlderThan),
            _ => None,
        };
        let continue_token = match &continue_raw {
            Some(token) => {
                // resourceVersion=0 beside continue is ignored (apiserver/pkg/storage/etcd3/
                // store.go `GetList`: only a version other than "" and "0" is refused).
                if rv.as_deref().is_some_and(|r| r != "0") && !watch {
                    return Err(bad_request("specifying resource version is not allowed when using continue"));
                }
                Some(ContinueToken::decode(token).map_err(bad_request)?)
            }
            None => None,
        };
        if let Some(r) = &rv {
            if r.parse::<u64>().is_err() {
                return Err(bad_request(format!(
                    "invalid resource version: strconv.ParseUint: parsing \"{r}\": invalid syntax"
                )));
            }
        }
        Ok(ListOptions {
            watch,
            limit,
            continue_token,
            rv,
            rv_match,
            labels,
            fields,
            allow_bookmarks: parse_bool(q, "allowWatchBookmarks")?.unwrap_or(false),
            send_initial_events,
            timeout_seconds: parse_int(q, "timeoutSeconds")?.filter(|t| *t > 0).map(|t| t as u64),
        })
    }

    pub fn has_selectors(&self) -> bool {
        !self.labels.is_empty() || !self.fields.is_empty()
    }

    pub fn matches(&self, obj: &Value) -> bool {
        self.labels.matches(obj) && self.fields.matches(obj)
    }

    pub fn rv_number(&self) -> Option<u64> {
        self.rv.as_deref().and_then(|r| r.parse().ok())
    }
}

/// One page of a list.
pub struct Page {
    pub items: Vec<Obj>,
    pub rv: u64,
    pub continue_token: Option<String>,
    pub remaining: Option<u64>,
    /// The request was paged (limit honoured), so a last page says `"continue": ""`.
    pub paged: bool,
}

pub fn too_large_rv(rv: u64, current: u64) -> ApiError {
    Status::failure(504, "Timeout", format!("Timeout: Too large resource version: {rv}, current: {current}"))
        .with_details(Details {
            causes: vec![Cause {
                reason: "ResourceVersionTooLarge".into(),
                message: "Too large resource version".into(),
                field: String::new(),
            }],
            retry_after_seconds: Some(1),
            ..Details::default()
        })
        .into()
}

pub fn expired(message: &str) -> ApiError {
    Status::failure(410, "Expired", message).into()
}

/// The key of an object relative to the listed prefix, as the continue token's `start` holds it.
fn key_of(o: &Value, in_namespace: bool) -> String {
    if in_namespace || object::namespace(o).is_empty() {
        format!("/{}", object::name(o))
    } else {
        format!("/{}/{}", object::namespace(o), object::name(o))
    }
}

/// The sort position of an object, matching the store's (namespace, name) order.
fn position_of(o: &Value, in_namespace: bool) -> (String, String) {
    let ns = if in_namespace { "" } else { object::namespace(o) };
    (ns.to_string(), object::name(o).to_string())
}

fn position_of_start(start: &str) -> (String, String) {
    let rest = start.trim_start_matches('/');
    match rest.split_once('/') {
        Some((ns, name)) => (ns.to_string(), name.to_string()),
        None => (String::new(), rest.to_string()),
    }
}

/// Runs a list request against the store.
pub fn list(store: &Store, rt: &ResourceType, namespace: Option<&str>, opts: &ListOptions) -> ApiResult<Page> {
    let key = rt.storage_key();
    let scope = namespace.unwrap_or_default().to_string();
    let in_namespace = namespace.is_some();
    let (snapshot_rv, items, start) = if let Some(token) = &opts.continue_token {
        let Some(items) = store.snapshot(&key, &scope, token.rv) else {
            return Err(expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."));
        };
        (token.rv, items, Some(token.start.clone()))
    } else {
        let state = store.read();
        let current = state.rv;
        // The concepts table: an explicit Exact, or (legacy) a non-zero resourceVersion with a
        // limit and no match, reads exactly at that version.
        let exact = opts.rv_match == Some(RvMatch::Exact) || (opts.rv_match.is_none() && opts.limit.is_some());
        match (opts.rv_number(), exact) {
            (Some(rv), _) if rv > current => return Err(too_large_rv(rv, current)),
            (Some(rv), true) if rv > 0 => match state.list_at(&key, namespace, rv) {
                Ok(items) => (rv, Arc::new(items), None),
                Err(_) => return Err(expired("The resourceVersion for the provided list is too old.")),
            },
            _ => (current, Arc::new(state.list(&key, namespace)), None),
        }
    };
    // resourceVersion=0 (without Exact) is served from the cache, which ignores limit.
    let limit = match (opts.rv.as_deref(), opts.rv_match) {
        (Some("0"), _) if opts.continue_token.is_none() => None,
        _ => opts.limit,
    };
    let begin = match &start {
        Some(s) => {
            let after = position_of_start(s);
            items.partition_point(|o| position_of(o, in_namespace) <= after)
        }
        None => 0,
    };
    let mut out = Vec::new();
    let mut next = begin;
    while next < items.len() {
        if limit.is_some_and(|l| out.len() as u64 >= l) {
            break;
        }
        let o = &items[next];
        if opts.matches(o) {
            out.push(o.clone());
        }
        next += 1;
    }
    let more = next < items.len();
    let (continue_token, remaining) = if more {
        let last =
            out.last().map(|o| key_of(o, in_namespace)).unwrap_or_else(|| key_of(&items[next - 1], in_namespace));
        store.remember_snapshot(&key, &scope, snapshot_rv, items.clone());
        let remaining = (!opts.has_selectors()).then_some((items.len() - next) as u64);
        (Some(ContinueToken { rv: snapshot_rv, start: last }.encode()), remaining)
    } else {
        (None, None)
    };
    Ok(Page { items: out, rv: snapshot_rv, continue_token, remaining, paged: limit.is_some() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_token_round_trips_in_the_real_form() {
        let real = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTcsInN0YXJ0IjoiL3ctMDRcdTAwMDAifQ";
        let t = ContinueToken::decode(real).expect("real token decodes");
        assert_eq!(t, ContinueToken { rv: 17, start: "/w-04".into() });
        assert_eq!(t.encode(), real);
    }

    #[test]
    fn bogus_token_reports_the_byte() {
        let err = ContinueToken::decode("bogus").expect_err("not a token");
        assert!(err.starts_with("invalid continue token: continue key is not valid"), "{err}");
    }
}
