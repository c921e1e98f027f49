//! Loads the server version and discovery: aggregated discovery in one request per root when the
//! server has it, else the legacy `/api` + `/apis` + one `APIResourceList` per group-version.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIGroupList, APIResourceList, APIVersions};

use crate::api::body::BodyTooLarge;
use crate::api::discovery::{
    decode_resource_list, decode_root, group_version_path, Discovery, DiscoveryRoot, ServerVersion,
};
use crate::api::request::Request;
use crate::client::fetch::{BodyCut, ClientError, Response};
use crate::client::handle::Client;
use crate::i18n::{Localized, Msg, Text};
use crate::model::requests;

/// What the explorer knows about a cluster after its first requests.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterInfo {
    pub version: ServerVersion,
    pub discovery: Discovery,
    /// Whether the server answered with aggregated discovery.
    pub aggregated: bool,
}

/// Why the cluster could not be read, with what was tried and what came back.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadError {
    /// Nothing answered.
    Unreachable { url: String, message: Text },
    /// Something answered, but not with success.
    Http { url: String, status: u16, status_text: String, excerpt: String },
    /// A success whose body is not what the endpoint serves.
    Decode { url: String, message: Text },
}

impl LoadError {
    /// The URL that was tried.
    pub fn url(&self) -> &str {
        match self {
            LoadError::Unreachable { url, .. } | LoadError::Http { url, .. } | LoadError::Decode { url, .. } => url,
        }
    }

    /// What came back, in one sentence.
    pub fn what_came_back(&self) -> Text {
        match self {
            LoadError::Unreachable { message, .. } => Text::new(Msg::FailureNoResponse).with_text("error", message),
            LoadError::Http { status, status_text, excerpt, .. } if excerpt.is_empty() => {
                Text::new(Msg::LoadEmptyBody).with("status", format!("HTTP {status} {status_text}"))
            }
            LoadError::Http { status, status_text, excerpt, .. } => {
                Text::verbatim(format!("HTTP {status} {status_text}: {excerpt}"))
            }
            LoadError::Decode { message, .. } => Text::new(Msg::LoadNotKubernetes).with_text("error", message),
        }
    }

    /// Whether the likely cause is that no API server is behind the proxy (the proxy itself
    /// answers 502/503/504, or nothing answers at all).
    pub fn api_server_missing(&self) -> bool {
        matches!(self, LoadError::Unreachable { .. } | LoadError::Http { status: 500 | 502 | 503 | 504, .. })
    }
}

impl Localized for LoadError {
    fn text(&self) -> Text {
        Text::new(Msg::LoadAnswered).with("url", self.url()).with_text("what", self.what_came_back())
    }
}

crate::localized_display!(LoadError);

impl From<ClientError> for LoadError {
    fn from(error: ClientError) -> Self {
        match error {
            ClientError::Network { url, message } | ClientError::InvalidRequest { url, message } => {
                LoadError::Unreachable { url, message: Text::verbatim(message) }
            }
            ClientError::ReadOnly { url, .. } => {
                LoadError::Unreachable { message: Text::new(Msg::ReadOnlyRefusedWrite).with("url", &url), url }
            }
            ClientError::TooLarge { url, limit } => {
                let message = BodyCut::TooLarge(BodyTooLarge { limit }).text();
                LoadError::Unreachable { url, message }
            }
            ClientError::Redirected { url } => {
                LoadError::Unreachable { message: Text::new(Msg::Redirected).with("url", &url), url }
            }
        }
    }
}

/// Reads `/version` and the discovery documents (the client's observers see each exchange).
pub async fn load_cluster(client: &Client) -> Result<ClusterInfo, LoadError> {
    let version_response = get_ok(client, requests::version()).await?;
    let version: ServerVersion = serde_json::from_slice(&version_response.body)
        .map_err(|e| LoadError::Decode { url: version_response.url.clone(), message: Text::verbatim(e) })?;

    let api = get_ok(client, requests::discovery_root("/api")).await?;
    let apis = get_ok(client, requests::discovery_root("/apis")).await?;
    let decode_error = |r: &Response, e: crate::api::discovery::DiscoveryError| LoadError::Decode {
        url: r.url.clone(),
        message: e.text(),
    };
    let api_root = decode_root::<APIVersions>("/api", &api.body).map_err(|e| decode_error(&api, e))?;
    let apis_root = decode_root::<APIGroupList>("/apis", &apis.body).map_err(|e| decode_error(&apis, e))?;

    let (discovery, aggregated) = match (api_root, apis_root) {
        (DiscoveryRoot::Aggregated(core), DiscoveryRoot::Aggregated(groups)) => {
            (Discovery::from_aggregated(&[core, groups]), true)
        }
        (api_root, apis_root) => {
            let core = match api_root {
                DiscoveryRoot::Legacy(v) => v,
                DiscoveryRoot::Aggregated(_) => legacy(client, "/api").await?,
            };
            let groups = match apis_root {
                DiscoveryRoot::Legacy(g) => g,
                DiscoveryRoot::Aggregated(_) => legacy(client, "/apis").await?,
            };
            let lists = resource_lists(client, &core, &groups).await?;
            (Discovery::from_legacy(&core, &groups, &lists), false)
        }
    };
    Ok(ClusterInfo { version, discovery, aggregated })
}

async fn legacy<T: serde::de::DeserializeOwned>(client: &Client, path: &str) -> Result<T, LoadError> {
    let response = get_ok(client, requests::discovery_document(path)).await?;
    serde_json::from_slice(&response.body)
        .map_err(|e| LoadError::Decode { url: response.url, message: Text::verbatim(e) })
}

async fn resource_lists(
    client: &Client,
    core: &APIVersions,
    groups: &APIGroupList,
) -> Result<Vec<APIResourceList>, LoadError> {
    let paths: Vec<String> = core
        .versions
        .iter()
        .map(|v| group_version_path("", v))
        .chain(groups.groups.iter().flat_map(|g| g.versions.iter().map(|v| group_version_path(&g.name, &v.version))))
        .collect();
    let responses =
        futures::future::join_all(paths.iter().map(|path| get_ok(client, requests::discovery_document(path)))).await;
    let mut lists = Vec::with_capacity(paths.len());
    for (path, response) in paths.iter().zip(responses) {
        // A group-version that fails (an aggregated API server that is down) leaves its group
        // without resources rather than hiding the whole cluster.
        if let Ok(response) = response {
            lists.push(
                decode_resource_list(path, &response.body)
                    .map_err(|e| LoadError::Decode { url: response.url.clone(), message: e.text() })?,
            );
        }
    }
    Ok(lists)
}

async fn get_ok(client: &Client, request: Request) -> Result<Response, LoadError> {
    let response = client.send_raw(request).await?;
    if response.is_success() {
        Ok(response)
    } else {
        Err(LoadError::Http {
            excerpt: response.body_excerpt(300),
            url: response.url,
            status: response.status,
            status_text: response.status_text,
        })
    }
}
