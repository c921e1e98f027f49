//! Who a request comes from and what that user may do: kube-sim's authenticator and authorizer,
//! which the review APIs (`review.rs`) answer from.
//!
//! kube-sim has no users or RBAC yet: every request is made by one fixed user in the
//! `system:masters` group, whom the authorizer allows everything (as a real kube-apiserver
//! allows `system:masters` before RBAC is asked). Nothing else in kube-sim checks permissions,
//! so the reviews tell the truth. A later authorization layer replaces [`authenticate`],
//! [`authorize`] and [`rules`] and keeps their shapes.

use serde_json::{json, Value};

use crate::http::Ctx;

/// The user every request is made by until kube-sim has authentication.
pub const USERNAME: &str = "kube-sim-admin";
/// Its groups: the privileged group, and the one every authenticated user is in.
pub const GROUPS: [&str; 2] = ["system:masters", "system:authenticated"];

/// An authenticated user, as `status.userInfo` of a SelfSubjectReview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    pub username: String,
    pub groups: Vec<String>,
}

impl UserInfo {
    pub fn to_json(&self) -> Value {
        json!({"username": self.username, "groups": self.groups})
    }
}

/// The user a request is made by (every request is the fixed user for now).
pub fn authenticate(_ctx: &Ctx) -> UserInfo {
    UserInfo { username: USERNAME.to_string(), groups: GROUPS.iter().map(|g| g.to_string()).collect() }
}

/// An authorizer's answer to one request's attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow { reason: String },
    Deny { reason: String },
}

/// What `user` may do with the attributes of a SelfSubjectAccessReview's spec
/// (`resourceAttributes` or `nonResourceAttributes`).
pub fn authorize(user: &UserInfo, _attributes: &Value) -> Decision {
    if user.groups.iter().any(|g| g == "system:masters") {
        Decision::Allow {
            reason: format!(
                "kube-sim allows every request: it has no RBAC, and user \"{}\" is in group \"system:masters\"",
                user.username
            ),
        }
    } else {
        Decision::Deny { reason: format!("kube-sim has no RBAC rule for user \"{}\"", user.username) }
    }
}

/// The rules `user` has in `namespace`, as SelfSubjectRulesReview's status reports them:
/// resource rules, non-resource rules, and whether the list is incomplete.
pub struct Rules {
    pub resource_rules: Vec<Value>,
    pub non_resource_rules: Vec<Value>,
    pub incomplete: bool,
}

pub fn rules(user: &UserInfo, _namespace: &str) -> Rules {
    if user.groups.iter().any(|g| g == "system:masters") {
        Rules {
            resource_rules: vec![json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})],
            non_resource_rules: vec![json!({"verbs": ["*"], "nonResourceURLs": ["*"]})],
            incomplete: false,
        }
    } else {
        Rules { resource_rules: Vec::new(), non_resource_rules: Vec::new(), incomplete: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixed_user_may_do_everything_and_says_why() {
        let user = UserInfo { username: USERNAME.into(), groups: GROUPS.iter().map(|g| g.to_string()).collect() };
        let Decision::Allow { reason } = authorize(&user, &json!({"verb": "delete", "resource": "nodes"})) else {
            panic!("system:masters is allowed");
        };
        assert!(reason.contains("system:masters"), "{reason}");
        let r = rules(&user, "demo");
        assert_eq!(r.resource_rules, [json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]})]);
        assert!(!r.incomplete);
        let other = UserInfo { username: "someone".into(), groups: vec!["system:authenticated".into()] };
        assert!(matches!(authorize(&other, &json!({})), Decision::Deny { .. }));
    }
}
