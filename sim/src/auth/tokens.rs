//! Service account tokens: what a TokenRequest (`serviceaccounts/token`, `kubectl create
//! token`) hands out and what the authenticator and a TokenReview then accept. A token is a
//! JWT with the claims of kube-apiserver's (pkg/serviceaccount/claims.go: `aud`, `exp`, `iat`,
//! `nbf`, `iss`, `jti`, `sub` and the `kubernetes.io` namespace and service account), signed
//! with HMAC-SHA256 under a key drawn when kube-sim starts, where the real server signs with
//! its service-account key (RS256): a token from another run, or an edited one, is refused.
//! Tokens are not stored; a token stays valid until it expires.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::auth::{UserInfo, AUTHENTICATED, SERVICE_ACCOUNT_PREFIX};

/// The API server's audience and issuer, kind's and kubeadm's default
/// (`--api-audiences`, `--service-account-issuer`).
pub const AUDIENCE: &str = "https://kubernetes.default.svc.cluster.local";

/// The key tokens are signed with, drawn once per process.
fn key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(rand::random)
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key`.
fn hmac(key: &[u8; 32], message: &[u8]) -> [u8; 32] {
    let mut padded = [0u8; 64];
    padded[..32].copy_from_slice(key);
    let inner_key: Vec<u8> = padded.iter().map(|b| b ^ 0x36).collect();
    let outer_key: Vec<u8> = padded.iter().map(|b| b ^ 0x5c).collect();
    let inner = Sha256::new().chain_update(&inner_key).chain_update(message).finalize();
    let digest = Sha256::new().chain_update(&outer_key).chain_update(inner).finalize();
    let mut out = [0u8; 32];
    out.copy_from_slice(&digest);
    out
}

/// What a token is issued for.
pub struct Grant<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    pub audiences: &'a [String],
    /// Unix seconds.
    pub now: i64,
    pub expiration_seconds: i64,
}

/// A signed token for `grant`.
pub fn issue(grant: &Grant<'_>) -> String {
    let header = json!({"alg": "HS256", "typ": "JWT"});
    let claims = json!({
        "aud": grant.audiences,
        "exp": grant.now + grant.expiration_seconds,
        "iat": grant.now,
        "iss": AUDIENCE,
        "jti": uuid::Uuid::new_v4().to_string(),
        "kubernetes.io": {"namespace": grant.namespace, "serviceaccount": {"name": grant.name, "uid": grant.uid}},
        "nbf": grant.now,
        "sub": format!("{SERVICE_ACCOUNT_PREFIX}{}:{}", grant.namespace, grant.name),
    });
    let signed =
        format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()));
    let signature = URL_SAFE_NO_PAD.encode(hmac(key(), signed.as_bytes()));
    format!("{signed}.{signature}")
}

/// A token's user and audiences, if kube-sim signed it and it has not expired at `now`.
pub fn verify(token: &str, now: i64) -> Option<(UserInfo, Vec<String>)> {
    let (signed, signature) = token.rsplit_once('.')?;
    let given = URL_SAFE_NO_PAD.decode(signature).ok()?;
    if given != hmac(key(), signed.as_bytes()) {
        return None;
    }
    let (_, payload) = signed.split_once('.')?;
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
    if claims["exp"].as_i64()? <= now || claims["nbf"].as_i64().is_some_and(|nbf| nbf > now) {
        return None;
    }
    let k8s = &claims["kubernetes.io"];
    let namespace = k8s["namespace"].as_str()?;
    let user = UserInfo {
        username: claims["sub"].as_str()?.to_string(),
        uid: k8s["serviceaccount"]["uid"].as_str().unwrap_or_default().to_string(),
        groups: vec![
            "system:serviceaccounts".into(),
            format!("system:serviceaccounts:{namespace}"),
            AUTHENTICATED.into(),
        ],
        extra: BTreeMap::from([(
            "authentication.kubernetes.io/credential-id".to_string(),
            vec![format!("JTI={}", claims["jti"].as_str().unwrap_or_default())],
        )]),
    };
    let audiences = claims["aud"].as_array()?.iter().filter_map(|a| a.as_str().map(str::to_string)).collect();
    Some((user, audiences))
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_issued_token_names_its_service_account_until_it_expires() {
        let audiences = vec![AUDIENCE.to_string()];
        let grant = Grant {
            namespace: "demo",
            name: "robot",
            uid: "u-1",
            audiences: &audiences,
            now: 1000,
            expiration_seconds: 3600,
        };
        let token = issue(&grant);
        let (user, aud) = verify(&token, 1001).expect("valid");
        assert_eq!(user.username, "system:serviceaccount:demo:robot");
        assert_eq!(user.uid, "u-1");
        assert_eq!(user.groups, ["system:serviceaccounts", "system:serviceaccounts:demo", "system:authenticated"]);
        assert_eq!(aud, audiences);
        assert!(verify(&token, 4600).is_none(), "expired");
        let mut edited = token.clone();
        edited.insert(token.len() - 3, 'x');
        assert!(verify(&edited, 1001).is_none(), "a changed token is refused");
        assert!(verify("admin-token", 1001).is_none());
    }

    #[test]
    fn hmac_is_rfc_4231_test_case_1() {
        // A 20-byte key of 0x0b zero-padded is the same key to HMAC (keys are padded to the block).
        let mut key = [0u8; 32];
        key[..20].fill(0x0b);
        let hex: String = hmac(&key, b"Hi There").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    }
}
