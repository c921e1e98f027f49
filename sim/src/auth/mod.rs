//! Who a request comes from: kube-sim's authenticator, shaped like kube-apiserver's.
//!
//! - `Authorization: Bearer T` is the user whose token is T in the users table (the `--users`
//!   file, in kube-apiserver's `--token-auth-file` CSV form, plus the demo dataset's users); an
//!   unknown or empty token is 401, as a bad token is never anonymous. A service account token
//!   kube-sim issued (`tokens`, TokenRequest) is that service account until it expires.
//! - A request without credentials (or with another scheme, which kube-apiserver does not
//!   read) is the `--as` user: behind `kubectl proxy` a browser has no identity of its own.
//! - Every authenticated user is also in `system:authenticated`, as kube-apiserver's group adder
//!   makes it.
//! - `Impersonate-*` headers are parsed here into [`ImpersonationRequest`]s; whether the user may
//!   impersonate is the authorizer's question (`access.rs` asks it).
//!
//! Beside it: the authorizer (`rbac`), a request's attributes (`request_info`) and the filters every
//! API request passes (`access`).

pub mod access;
pub mod rbac;
pub mod request_info;
pub mod tokens;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

/// The user requests without credentials are made by unless `--as` names another.
pub const DEFAULT_USER: &str = "kube-sim-admin";
/// The group kube-apiserver allows everything before RBAC is asked.
pub const MASTERS: &str = "system:masters";
/// The group every authenticated user is in.
pub const AUTHENTICATED: &str = "system:authenticated";
const UNAUTHENTICATED: &str = "system:unauthenticated";
const ANONYMOUS: &str = "system:anonymous";
const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";

/// An authenticated user, as `status.userInfo` of a SelfSubjectReview shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserInfo {
    pub username: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// `username`, `uid` and `extra` when set, `groups`: the JSON of `authentication.k8s.io/v1`
    /// UserInfo.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("username".into(), json!(self.username));
        if !self.uid.is_empty() {
            m.insert("uid".into(), json!(self.uid));
        }
        m.insert("groups".into(), json!(self.groups));
        if !self.extra.is_empty() {
            m.insert("extra".into(), json!(self.extra));
        }
        Value::Object(m)
    }

    pub fn in_group(&self, group: &str) -> bool {
        self.groups.iter().any(|g| g == group)
    }

    /// Adds `system:authenticated` unless the user is already in it.
    fn authenticated(mut self) -> UserInfo {
        if !self.in_group(AUTHENTICATED) {
            self.groups.push(AUTHENTICATED.to_string());
        }
        self
    }
}

/// A user kube-sim knows by name, and by token if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownUser {
    pub token: Option<String>,
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
}

impl KnownUser {
    fn info(&self) -> UserInfo {
        UserInfo {
            username: self.name.clone(),
            uid: self.uid.clone(),
            groups: self.groups.clone(),
            extra: BTreeMap::new(),
        }
        .authenticated()
    }
}

/// The users of the demo dataset; their rights are RBAC objects (`policy::demo_bindings`).
pub fn demo_users() -> Vec<KnownUser> {
    let user = |token: &str, name: &str, uid: &str| KnownUser {
        token: Some(token.to_string()),
        name: name.to_string(),
        uid: uid.to_string(),
        groups: Vec::new(),
    };
    vec![user("admin-token", "admin", "1000"), user("dev-token", "dev", "1001"), user("viewer-token", "viewer", "1002")]
}

/// Every user kube-sim knows: the default `kube-sim-admin` (in `system:masters`, no token), then
/// the dataset's and the `--users` file's (a later token or name wins).
#[derive(Debug, Clone)]
pub struct Users {
    users: Vec<KnownUser>,
}

impl Users {
    pub fn new(more: Vec<KnownUser>) -> Users {
        let mut users = vec![KnownUser {
            token: None,
            name: DEFAULT_USER.to_string(),
            uid: String::new(),
            groups: vec![MASTERS.to_string()],
        }];
        users.extend(more);
        Users { users }
    }

    /// The user a token belongs to.
    pub fn by_token(&self, token: &str) -> Option<UserInfo> {
        self.users.iter().rev().find(|u| u.token.as_deref() == Some(token)).map(KnownUser::info)
    }

    /// The user `--as NAME` makes requests without credentials: a known user with its uid and
    /// groups, or else a user of that name in no group but `system:authenticated`.
    pub fn named(&self, name: &str) -> UserInfo {
        match self.users.iter().rev().find(|u| u.name == name) {
            Some(u) => u.info(),
            None => UserInfo { username: name.to_string(), ..UserInfo::default() }.authenticated(),
        }
    }
}

/// Reads a users file in kube-apiserver's `--token-auth-file` form: one user a line,
/// `token,user,uid[,"group1,group2"]` (CSV, so a field with commas is quoted). Blank lines and
/// lines starting with `#` are skipped.
pub fn parse_token_file(text: &str) -> Result<Vec<KnownUser>, String> {
    let mut users = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields = csv_fields(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        if fields.len() < 3 {
            return Err(format!(
                "line {}: a user needs at least 3 columns (token, user name, user uid), found {}",
                i + 1,
                fields.len()
            ));
        }
        if fields[0].is_empty() || fields[1].is_empty() {
            return Err(format!("line {}: the token and the user name must not be empty", i + 1));
        }
        let groups = match fields.get(3) {
            Some(g) if !g.is_empty() => g.split(',').map(|g| g.trim().to_string()).collect(),
            _ => Vec::new(),
        };
        users.push(KnownUser {
            token: Some(fields[0].clone()),
            name: fields[1].clone(),
            uid: fields[2].clone(),
            groups,
        });
    }
    Ok(users)
}

/// The fields of one CSV record, read as Go's `encoding/csv` with `TrimLeadingSpace`: `""`
/// inside quotes is a quote.
fn csv_fields(line: &str) -> Result<Vec<String>, String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut closed = false;
    let mut at_start = true;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let field = fields.last_mut().ok_or("no field")?;
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => {
                    quoted = false;
                    closed = true;
                }
                c => field.push(c),
            }
            continue;
        }
        match c {
            ',' => {
                fields.push(String::new());
                (at_start, closed) = (true, false);
            }
            ' ' if at_start => {}
            '"' if at_start => {
                quoted = true;
                at_start = false;
            }
            c if closed => return Err(format!("unexpected {c:?} after a quoted field")),
            c => {
                field.push(c);
                at_start = false;
            }
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    Ok(fields)
}

/// Why a request's credentials do not name a user: kube-apiserver answers 401 "Unauthorized".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unauthorized;

/// The user of a request with this `Authorization` header (`None`: no header).
pub fn authenticate(
    users: &Users,
    anonymous_as: &UserInfo,
    authorization: Option<&str>,
) -> Result<UserInfo, Unauthorized> {
    let Some(header) = authorization else { return Ok(anonymous_as.clone()) };
    let mut parts = header.trim().splitn(2, ' ');
    let scheme = parts.next().unwrap_or_default();
    if !scheme.eq_ignore_ascii_case("bearer") {
        // Basic and other schemes are not read by kube-apiserver: no credentials.
        return Ok(anonymous_as.clone());
    }
    let token = parts.next().unwrap_or_default().trim();
    if token.is_empty() {
        return Err(Unauthorized);
    }
    if let Some(user) = users.by_token(token) {
        return Ok(user);
    }
    tokens::verify(token, tokens::unix_now()).map(|(user, _)| user).ok_or(Unauthorized)
}

/// One thing an `Impersonate-*` header asks to act as; each needs the `impersonate` verb on its
/// resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImpersonationRequest {
    User(String),
    ServiceAccount { namespace: String, name: String },
    Group(String),
    Uid(String),
    Extra { key: String, value: String },
}

impl ImpersonationRequest {
    /// (API group, resource, subresource, namespace, name) the authorizer is asked about.
    pub fn target(&self) -> (&str, &str, &str, &str, &str) {
        match self {
            ImpersonationRequest::User(n) => ("", "users", "", "", n),
            ImpersonationRequest::ServiceAccount { namespace, name } => ("", "serviceaccounts", "", namespace, name),
            ImpersonationRequest::Group(n) => ("", "groups", "", "", n),
            ImpersonationRequest::Uid(u) => ("authentication.k8s.io", "uids", "", "", u),
            ImpersonationRequest::Extra { key, value } => ("authentication.k8s.io", "userextras", key, "", value),
        }
    }

    /// As Go's `%v` prints the ObjectReference kube-apiserver builds, for its 500 message.
    fn go_reference(&self) -> String {
        let (kind, ns, name, api_version, field) = match self {
            ImpersonationRequest::User(n) => ("User", "", n.as_str(), "", ""),
            ImpersonationRequest::ServiceAccount { namespace, name } => {
                ("ServiceAccount", namespace.as_str(), name.as_str(), "", "")
            }
            ImpersonationRequest::Group(n) => ("Group", "", n.as_str(), "", ""),
            ImpersonationRequest::Uid(u) => ("UID", "", u.as_str(), "authentication.k8s.io/v1", ""),
            ImpersonationRequest::Extra { key, value } => {
                ("UserExtra", "", value.as_str(), "authentication.k8s.io/v1", key.as_str())
            }
        };
        format!("{{{kind} {ns} {name}  {api_version}  {field}}}")
    }
}

/// The impersonation a request asks for, from `(header name, value)` pairs in order. Groups,
/// extras or a uid without a user are refused with kube-apiserver's message.
pub fn impersonation_requests<'a>(
    headers: impl Iterator<Item = (&'a str, &'a str)>,
) -> Result<Vec<ImpersonationRequest>, String> {
    let mut user = None;
    let mut groups = Vec::new();
    let mut extras = Vec::new();
    let mut uid = None;
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        if name == "impersonate-user" {
            user.get_or_insert_with(|| value.to_string());
        } else if name == "impersonate-group" {
            groups.push(ImpersonationRequest::Group(value.to_string()));
        } else if name == "impersonate-uid" {
            uid.get_or_insert_with(|| value.to_string());
        } else if let Some(key) = name.strip_prefix("impersonate-extra-") {
            // Percent-decoded as a path segment (a `+` stays a `+`).
            let key = form_urlencoded::parse(format!("k={}", key.replace('+', "%2B")).as_bytes())
                .next()
                .map(|(_, k)| k.into_owned())
                .unwrap_or_else(|| key.to_string());
            extras.push(ImpersonationRequest::Extra { key, value: value.to_string() });
        }
    }
    let mut requests = Vec::new();
    let has_user = user.as_deref().is_some_and(|u| !u.is_empty());
    if let Some(u) = user.filter(|u| !u.is_empty()) {
        requests.push(match service_account(&u) {
            Some((namespace, name)) => ImpersonationRequest::ServiceAccount { namespace, name },
            None => ImpersonationRequest::User(u),
        });
    }
    let others = !groups.is_empty() || !extras.is_empty() || uid.as_deref().is_some_and(|u| !u.is_empty());
    requests.extend(groups);
    requests.extend(extras);
    if let Some(u) = uid.filter(|u| !u.is_empty()) {
        requests.push(ImpersonationRequest::Uid(u));
    }
    if others && !has_user {
        let refs: Vec<String> = requests.iter().map(ImpersonationRequest::go_reference).collect();
        return Err(format!("requested [{}] without impersonating a user", refs.join(" ")));
    }
    Ok(requests)
}

/// `system:serviceaccount:NS:NAME` split into (NS, NAME).
fn service_account(username: &str) -> Option<(String, String)> {
    let rest = username.strip_prefix(SERVICE_ACCOUNT_PREFIX)?;
    let (ns, name) = rest.split_once(':')?;
    (!ns.is_empty() && !name.is_empty() && !name.contains(':')).then(|| (ns.to_string(), name.to_string()))
}

/// The user an allowed impersonation makes, as kube-apiserver builds it: the named user (a
/// service account gets its groups unless groups are given), the requested groups, extras and
/// uid, and `system:authenticated` unless `system:unauthenticated` was asked for.
pub fn impersonated(requests: &[ImpersonationRequest]) -> UserInfo {
    let groups_given = requests.iter().any(|r| matches!(r, ImpersonationRequest::Group(_)));
    let mut user = UserInfo::default();
    for r in requests {
        match r {
            ImpersonationRequest::User(n) => user.username = n.clone(),
            ImpersonationRequest::ServiceAccount { namespace, name } => {
                user.username = format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}");
                if !groups_given {
                    user.groups = vec!["system:serviceaccounts".into(), format!("system:serviceaccounts:{namespace}")];
                }
            }
            ImpersonationRequest::Group(g) => user.groups.push(g.clone()),
            ImpersonationRequest::Uid(u) => user.uid = u.clone(),
            ImpersonationRequest::Extra { key, value } => {
                user.extra.entry(key.clone()).or_default().push(value.clone())
            }
        }
    }
    if user.username == ANONYMOUS {
        if !user.in_group(UNAUTHENTICATED) {
            user.groups.push(UNAUTHENTICATED.into());
        }
    } else if !user.in_group(AUTHENTICATED) && !user.in_group(UNAUTHENTICATED) {
        user.groups.push(AUTHENTICATED.into());
    }
    user
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_csv(line: &str, expect: &[&str]) {
        assert_eq!(csv_fields(line).as_deref(), Ok(&expect.iter().map(|s| s.to_string()).collect::<Vec<_>>()[..]));
    }

    #[test]
    fn csv_records_split_on_commas_outside_quotes() {
        check_csv("t,u,1", &["t", "u", "1"]);
        check_csv(r#"t,u,1,"a,b""#, &["t", "u", "1", "a,b"]);
        check_csv(r#"t, "u ""x""",1,"#, &["t", "u \"x\"", "1", ""]);
        assert!(csv_fields(r#"t,"u"#).is_err());
    }

    #[test]
    fn a_token_file_gives_users_with_groups_and_system_authenticated() {
        let users = parse_token_file("# demo\n\nsecret,jane,42,\"devs,ops\"\nother,joe,43\n").expect("parses");
        let users = Users::new(users);
        let jane = users.by_token("secret").expect("jane");
        assert_eq!((jane.username.as_str(), jane.uid.as_str()), ("jane", "42"));
        assert_eq!(jane.groups, ["devs", "ops", AUTHENTICATED]);
        assert_eq!(users.by_token("other").map(|u| u.groups), Some(vec![AUTHENTICATED.to_string()]));
        assert_eq!(users.by_token("nope"), None);
        let err = parse_token_file("only,two").expect_err("too few columns");
        assert_eq!(err, "line 1: a user needs at least 3 columns (token, user name, user uid), found 2");
    }

    #[test]
    fn requests_without_a_bearer_token_are_the_as_user_and_a_bad_token_is_unauthorized() {
        let users = Users::new(demo_users());
        let anonymous = users.named(DEFAULT_USER);
        assert_eq!(anonymous.groups, [MASTERS, AUTHENTICATED]);
        assert_eq!(authenticate(&users, &anonymous, None), Ok(anonymous.clone()));
        assert_eq!(authenticate(&users, &anonymous, Some("Basic dTpw")), Ok(anonymous.clone()));
        assert_eq!(authenticate(&users, &anonymous, Some("Bearer dev-token")).map(|u| u.username), Ok("dev".into()));
        assert_eq!(authenticate(&users, &anonymous, Some("bearer dev-token")).map(|u| u.uid), Ok("1001".into()));
        assert_eq!(authenticate(&users, &anonymous, Some("Bearer nope")), Err(Unauthorized));
        assert_eq!(authenticate(&users, &anonymous, Some("Bearer ")), Err(Unauthorized));
        assert_eq!(users.named("stranger").groups, [AUTHENTICATED]);
    }

    #[test]
    fn impersonation_headers_become_requests_and_a_user() {
        let h = [("Impersonate-User", "jane"), ("Impersonate-Group", "devs"), ("Impersonate-Extra-Scopes", "view")];
        let requests = impersonation_requests(h.into_iter()).expect("valid");
        assert_eq!(
            requests,
            [
                ImpersonationRequest::User("jane".into()),
                ImpersonationRequest::Group("devs".into()),
                ImpersonationRequest::Extra { key: "scopes".into(), value: "view".into() }
            ]
        );
        let user = impersonated(&requests);
        assert_eq!(user.groups, ["devs", AUTHENTICATED]);
        assert_eq!(
            user.to_json(),
            json!({"username": "jane", "groups": ["devs", AUTHENTICATED], "extra": {"scopes": ["view"]}})
        );
        let sa = impersonated(
            &impersonation_requests([("impersonate-user", "system:serviceaccount:demo:ci")].into_iter())
                .expect("valid"),
        );
        assert_eq!(sa.groups, ["system:serviceaccounts", "system:serviceaccounts:demo", AUTHENTICATED]);
        let err = impersonation_requests([("Impersonate-Group", "system:masters")].into_iter()).expect_err("no user");
        assert_eq!(err, "requested [{Group  system:masters    }] without impersonating a user");
    }
}
