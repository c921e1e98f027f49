//! A request as a command a person can paste into a terminal: `curl` against the same URL, or
//! `kubectl get --raw` for reads (which goes through the user's kubeconfig instead of the proxy).

use crate::api::request::{Method, Request};

/// `curl` that sends exactly `request` to `origin` (e.g. `http://127.0.0.1:8001`).
pub fn to_curl(request: &Request, origin: &str) -> String {
    let mut parts = vec!["curl".to_owned()];
    if request.method != Method::Get {
        parts.push(format!("-X {}", request.method));
    }
    for (name, value) in &request.headers {
        parts.push(format!("-H {}", shell_quote(&format!("{name}: {value}"))));
    }
    if let Some(body) = &request.body {
        match std::str::from_utf8(body) {
            Ok(text) => parts.push(format!("--data-binary {}", shell_quote(text))),
            Err(_) => parts.push("--data-binary @body.bin".to_owned()),
        }
    }
    parts.push(shell_quote(&format!("{}{}", origin.trim_end_matches('/'), request.path_and_query())));
    parts.join(" ")
}

/// `kubectl get --raw PATH` for a GET; `None` for other methods, which `--raw` cannot send with
/// the same headers.
pub fn to_kubectl_raw(request: &Request) -> Option<String> {
    (request.method == Method::Get).then(|| format!("kubectl get --raw {}", shell_quote(&request.path_and_query())))
}

/// Single-quotes `text` for a POSIX shell.
pub(crate) fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_get_becomes_curl_with_its_headers_and_encoded_query() {
        let request =
            Request::get("/api/v1/pods").param("labelSelector", "app=web").header("Accept", "application/json");
        assert_eq!(
            to_curl(&request, "http://127.0.0.1:8001/"),
            "curl -H 'Accept: application/json' 'http://127.0.0.1:8001/api/v1/pods?labelSelector=app%3Dweb'"
        );
        assert_eq!(
            to_kubectl_raw(&request).as_deref(),
            Some("kubectl get --raw '/api/v1/pods?labelSelector=app%3Dweb'")
        );
    }

    #[test]
    fn a_write_keeps_its_method_and_body_and_has_no_kubectl_raw() {
        let mut request = Request::get("/api/v1/namespaces/demo/configmaps").header("Content-Type", "application/json");
        request.method = Method::Post;
        request.body = Some(br#"{"data":{"it's":"x"}}"#.to_vec());
        assert_eq!(
            to_curl(&request, "http://h"),
            r#"curl -X POST -H 'Content-Type: application/json' --data-binary '{"data":{"it'\''s":"x"}}' 'http://h/api/v1/namespaces/demo/configmaps'"#
        );
        assert_eq!(to_kubectl_raw(&request), None);
    }

    #[test]
    fn a_binary_body_is_referenced_not_pasted() {
        let mut request = Request::get("/x");
        request.method = Method::Put;
        request.body = Some(vec![0xd9, 0xd9, 0xf7, 0xff]);
        assert!(to_curl(&request, "http://h").contains("--data-binary @body.bin"));
    }
}
