//! A request as a command a person can paste into a terminal: `curl` against the same URL, or
//! `kubectl get --raw` for reads (which goes through the user's kubeconfig instead of the proxy).

use kube_wire::request::{Method, Request};

/// `curl` that sends exactly `request` to `origin` (e.g. `http://127.0.0.1:8001`).
pub fn to_curl(request: &Request, origin: &str) -> String {
    let mut parts = vec!["curl".to_owned()];
    if request.method() != Method::Get {
        parts.push(format!("-X {}", request.method()));
    }
    for (name, value) in request.headers() {
        parts.push(format!("-H {}", shell_quote(&format!("{name}: {value}"))));
    }
    if let Some(body) = request.body() {
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
    (request.method() == Method::Get).then(|| format!("kubectl get --raw {}", shell_quote(&request.path_and_query())))
}

/// Single-quotes `text` for a POSIX shell.
pub(crate) fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use kube_wire::build::RequestBuilder;
    use kube_wire::discovery::Scope;
    use kube_wire::media_type::MediaType;
    use kube_wire::request::{Body, Collection};
    use kube_wire::testdata::resource_type;

    use super::*;

    fn configmaps() -> Collection {
        Collection::new(&resource_type("", "v1", "configmaps", Scope::Namespaced), Some("demo")).expect("valid")
    }

    #[test]
    fn a_get_becomes_curl_with_its_headers_and_encoded_query() {
        let request = RequestBuilder::get("/api/v1/pods")
            .param("labelSelector", "app=web")
            .header("Accept", "application/json")
            .build();
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
        let body = Body { content_type: MediaType::json(), bytes: br#"{"data":{"it's":"x"}}"#.to_vec() };
        let request = RequestBuilder::create(&configmaps(), body, &Default::default()).build();
        assert_eq!(
            to_curl(&request, "http://h"),
            r#"curl -X POST -H 'Accept: application/json' -H 'Content-Type: application/json' --data-binary '{"data":{"it'\''s":"x"}}' 'http://h/api/v1/namespaces/demo/configmaps'"#
        );
        assert_eq!(to_kubectl_raw(&request), None);
    }

    #[test]
    fn a_binary_body_is_referenced_not_pasted() {
        let body = Body { content_type: MediaType::cbor(), bytes: vec![0xd9, 0xd9, 0xf7, 0xff] };
        let object = configmaps().object("x").expect("valid");
        let request = RequestBuilder::update(&object, body, &Default::default()).build();
        assert!(to_curl(&request, "http://h").contains("--data-binary @body.bin"));
    }
}
