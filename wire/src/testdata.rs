//! Test data, for this crate's tests and the tests and benchmarks of the crates above it (the
//! `testdata` feature): the real wire data in `tests/fixtures/kube` (its README says where each
//! set comes from and under which licence), the repository's own fixtures, and small discovery
//! models for request tests. Every path to a fixture is made here.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::discovery::{ApiGroup, Discovery, GroupVersionResources, ResourceType, Scope};
use kube_core::GroupVersionKind;

use crate::schema::OpenApiSchemas;

/// The repository's root folder (this crate is `wire/` in it).
pub fn repository_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The repository's test data folder, relative to the repository.
const FIXTURES: &str = "tests/fixtures";

/// The test data folder (`tests/fixtures` in the repository): `kube/…` paths are under it.
pub fn shared_dir() -> PathBuf {
    repository_dir().join(FIXTURES)
}

/// The text of `relative` under the repository (`sim/data/…`, `tests/validation_cases.json`); a
/// missing file fails the test with its path.
#[track_caller]
pub fn repository_file(relative: &str) -> String {
    let path = repository_dir().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The bytes of `relative` under the shared folder; a missing file fails the test with its path.
#[track_caller]
pub fn shared_file(relative: &str) -> Vec<u8> {
    let path = shared_dir().join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read the test data {}: {e}", path.display()))
}

/// The body of a recorded exchange in `kube/real-apiserver/NAME` (text, or hex for binary).
#[track_caller]
pub fn real_apiserver_body(name: &str) -> Vec<u8> {
    let text = String::from_utf8(shared_file(&format!("kube/real-apiserver/{name}"))).expect("recordings are text");
    let (header, body) = text
        .split_once("=== BODY")
        .and_then(|(_, rest)| rest.split_once('\n'))
        .unwrap_or_else(|| panic!("{name} has no body"));
    if header.contains("hex") {
        let digits: Vec<u8> = body.bytes().filter(u8::is_ascii_hexdigit).collect();
        digits.chunks(2).map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap_or("00"), 16).unwrap_or(0)).collect()
    } else {
        body.trim_end_matches('\n').as_bytes().to_vec()
    }
}

/// The body of a raw HTTP/1.1 response with `Transfer-Encoding: chunked`, de-chunked, and the
/// chunk sizes the server used.
#[track_caller]
pub fn dechunked_body(raw: &[u8]) -> (Vec<u8>, Vec<usize>) {
    let start = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("headers end") + 4;
    let mut rest = &raw[start..];
    let (mut body, mut sizes) = (Vec::new(), Vec::new());
    while let Some(line_end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&rest[..line_end]).expect("size").trim(), 16).expect("hex size");
        if size == 0 {
            break;
        }
        let data = &rest[line_end + 2..];
        body.extend_from_slice(&data[..size]);
        sizes.push(size);
        rest = &data[size + 2..];
    }
    (body, sizes)
}

/// A resource type with only what URLs need (group, version, plural, scope), for request tests.
pub fn resource_type(group: &str, version: &str, plural: &str, scope: Scope) -> ResourceType {
    ResourceType {
        group: group.into(),
        version: version.into(),
        plural: plural.into(),
        singular: String::new(),
        kind: String::new(),
        scope,
        verbs: vec![],
        short_names: vec![],
        categories: vec![],
        subresources: vec![],
    }
}

/// A discovery model of `resources`, grouped by group and then version in the order first seen.
pub fn discovery_of(resources: Vec<ResourceType>) -> Discovery {
    let mut groups: Vec<ApiGroup> = Vec::new();
    for resource in resources {
        let group = match groups.iter().position(|g| g.name == resource.group) {
            Some(i) => i,
            None => {
                groups.push(ApiGroup { name: resource.group.clone(), versions: Vec::new() });
                groups.len() - 1
            }
        };
        let versions = &mut groups[group].versions;
        let version = match versions.iter().position(|v| v.version == resource.version) {
            Some(i) => i,
            None => {
                versions.push(GroupVersionResources { version: resource.version.clone(), resources: Vec::new() });
                versions.len() - 1
            }
        };
        versions[version].resources.push(resource);
    }
    Discovery { groups }
}

/// The shared OpenAPI documents of core v1, apps v1 and batch v1, loaded once.
pub fn shared_schemas() -> &'static OpenApiSchemas {
    static SCHEMAS: OnceLock<OpenApiSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let mut schemas = OpenApiSchemas::default();
        for name in ["api__v1_openapi.json", "apis__apps__v1_openapi.json", "apis__batch__v1_openapi.json"] {
            schemas.add_json(&shared_file(&format!("kube/openapi/{name}"))).expect("shared OpenAPI document");
        }
        schemas
    })
}

/// A group, version and kind.
pub fn gvk(group: &str, version: &str, kind: &str) -> GroupVersionKind {
    GroupVersionKind { group: group.into(), version: version.into(), kind: kind.into() }
}
