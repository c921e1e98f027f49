//! Tests of [`crate::host`].

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
fn a_requests_url_is_the_base_and_its_path_and_query() {
    let request = kube_wire::build::RequestBuilder::get("/api/v1/namespaces/demo/pods").param("limit", "5").build();
    let page = "http://localhost:8080";
    assert_eq!(ApiBase::same_origin().url(&request), "/api/v1/namespaces/demo/pods?limit=5");
    assert_eq!(
        ApiBase::same_origin().absolute_url(&request, page),
        "http://localhost:8080/api/v1/namespaces/demo/pods?limit=5"
    );
    let path = ApiBase::parse("/k8s/").unwrap();
    assert_eq!(path.url(&request), "/k8s/api/v1/namespaces/demo/pods?limit=5");
    assert_eq!(path.absolute_url(&request, page), "http://localhost:8080/k8s/api/v1/namespaces/demo/pods?limit=5");
    let other = ApiBase::parse("https://api.example.com:6443").unwrap();
    assert_eq!(other.url(&request), "https://api.example.com:6443/api/v1/namespaces/demo/pods?limit=5");
    assert_eq!(other.absolute_url(&request, page), other.url(&request));
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
        assert!(error.to_string().contains(why), "{raw}: {error}");
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
    assert!(Origin::parse("*").unwrap_err().to_string().contains("any page"));
    assert!(Origin::parse("http://a.example/path").unwrap_err().to_string().contains("without a path"));
    assert!(Origin::parse("null").is_err());
    assert!(Origin::parse("file://x").unwrap_err().to_string().contains("scheme file:"));
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
    assert!(errors.iter().any(|e| e.to_string().starts_with("config.colour: not a setting")));
    assert!(errors.iter().any(|e| e.to_string().starts_with("config.apiBase \"ftp://x\"")));
    assert!(MountConfig::from_json(&serde_json::json!([1])).unwrap_err()[0].to_string().contains("expected an object"));
}

#[test]
fn an_ipv6_host_is_hex_digits_colons_and_dots_and_not_empty() {
    assert_eq!(
        ApiBase::parse("http://[::FFFF:127.0.0.1]:8001").unwrap().prefix(),
        "http://[::ffff:127.0.0.1]:8001",
        "an IPv4-mapped address has dots"
    );
    assert_eq!(Origin::parse("https://[FE80::1]").unwrap().as_str(), "https://[fe80::1]");
    for raw in ["http://[]", "http://[]:8001", "http://[fe80::1%25eth0]", "http://[::g]"] {
        let error = ApiBase::parse(raw).unwrap_err().to_string();
        assert!(error.contains("not an IPv6 address"), "{raw}: {error}");
    }
}

#[test]
fn a_port_is_digits_from_1_to_65535() {
    assert_eq!(ApiBase::parse("http://localhost:1").unwrap().prefix(), "http://localhost:1");
    assert_eq!(ApiBase::parse("http://localhost:65535").unwrap().prefix(), "http://localhost:65535");
    for raw in ["http://localhost:0", "http://localhost:+80", "http://localhost:65536", "http://localhost:"] {
        let error = ApiBase::parse(raw).unwrap_err().to_string();
        assert!(error.contains("not a number from 1 to 65535"), "{raw}: {error}");
    }
}

#[test]
fn an_origin_is_displayed_as_it_is_matched() {
    let origin = Origin::parse("HTTPS://Dash.Example.com:8443/").unwrap();
    assert_eq!(origin.to_string(), "https://dash.example.com:8443");
    assert_eq!(format!("posted to {origin}"), "posted to https://dash.example.com:8443");
}

#[test]
fn every_theme_is_read_back_from_its_own_name() {
    for theme in [Theme::System, Theme::Light, Theme::Dark] {
        assert_eq!(Theme::parse(theme.as_str()), Ok(theme));
    }
    assert_eq!(Theme::System.as_str(), "system");
    assert_eq!(Theme::Light.as_str(), "light");
    assert_eq!(Theme::Dark.as_str(), "dark");
    assert_eq!(Theme::parse(" system "), Ok(Theme::System));
    assert!(Theme::parse("").is_err());
}

#[test]
fn an_empty_route_value_is_absent_except_the_group_where_empty_is_the_core_group() {
    let route = Route::from_json(&serde_json::json!({
        "group": "", "version": "", "resource": "pods", "namespace": "", "name": ""
    }))
    .unwrap();
    assert_eq!(
        route,
        Route { group: Some(String::new()), version: None, resource: Some("pods".into()), namespace: None, name: None }
    );
    assert!(
        Route::from_json(&serde_json::json!({ "resource": "", "name": "web" })).is_err(),
        "a name needs a resource"
    );
}
