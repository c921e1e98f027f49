//! Requests as values: what the app will send, built without I/O so that it can be shown,
//! copied as curl, and tested natively. `client` executes them over `fetch`; `kube-sim`'s tests
//! send them over HTTP.

use std::fmt;

/// The HTTP methods the Kubernetes API uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    /// Whether the method can change state on the server (read-only mode refuses these).
    pub fn is_write(self) -> bool {
        !matches!(self, Method::Get)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One HTTP request to the API server, relative to the API base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: Method,
    /// The path, starting with `/` (e.g. `/api/v1/namespaces/default/pods`).
    pub path: String,
    /// Query parameters in the order they are sent; values are not yet percent-encoded.
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

impl Request {
    /// A `GET` of `path` with no query, headers or body.
    pub fn get(path: impl Into<String>) -> Self {
        Request { method: Method::Get, path: path.into(), query: Vec::new(), headers: Vec::new(), body: None }
    }

    /// Adds a header.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Adds a query parameter.
    #[must_use]
    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.query.push((name.into(), value.into()));
        self
    }

    /// The path with its percent-encoded query string, as it goes on the request line.
    pub fn path_and_query(&self) -> String {
        if self.query.is_empty() {
            return self.path.clone();
        }
        let query = form_urlencoded::Serializer::new(String::new()).extend_pairs(&self.query).finish();
        format!("{}?{}", self.path, query)
    }

    /// The value of header `name` (case-insensitive), if set.
    pub fn header_value(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_and_query_percent_encodes_selectors() {
        let request = Request::get("/api/v1/pods").param("labelSelector", "app in (web,db)").param("limit", "500");
        assert_eq!(request.path_and_query(), "/api/v1/pods?labelSelector=app+in+%28web%2Cdb%29&limit=500");
    }

    #[test]
    fn a_request_without_query_is_its_path() {
        assert_eq!(Request::get("/version").path_and_query(), "/version");
    }

    #[test]
    fn header_lookup_ignores_case_and_only_get_is_not_a_write() {
        let request = Request::get("/api").header("Accept", "application/json");
        assert_eq!(request.header_value("accept"), Some("application/json"));
        assert!(!Method::Get.is_write());
        assert!(Method::Patch.is_write());
        assert_eq!(Method::Delete.to_string(), "DELETE");
    }
}
