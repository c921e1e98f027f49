//! The layering rules of DESIGN.md, checked on the source so that a change that breaks them fails
//! a test instead of waiting for a review:
//!
//! - the protocol core (`wire/src`) is sans-I/O: no web, async or clock API anywhere in its folders;
//! - no import circle between the modules of `src`, nor of `sim/src` (a parent module that
//!   re-exports its children counts as importing them, so a child never imports through its
//!   parent);
//! - the views (`src/ui`) build no request and decode no bytes: no `.param(`/`.header(`, no raw
//!   `Request::get(` or API path, no codec or body decoder; `model` and `client` do that;
//! - no source file reaches 900 lines (tests and generated code aside).
//!
//! Module paths come from file paths (`src/api/watch/event.rs` is `api::watch::event`), imports
//! from `crate::` paths in code and from `use` statements that name a child module or `super`.
//! Comments and `#[cfg(test)] mod tests` blocks do not count.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod common;
use common::rust_files;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file of tests only (`tests.rs`, `*_tests.rs`).
fn is_test_file(path: &Path) -> bool {
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    name == "tests" || name.ends_with("_tests")
}

/// The code of a source file: without comment lines and without its `#[cfg(test)] mod tests`.
fn code_of(text: &str) -> String {
    let end = text.find("#[cfg(test)]\nmod tests").or_else(|| text.find("#[cfg(test)]\npub(crate) mod tests"));
    let text = &text[..end.unwrap_or(text.len())];
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The module path of a file under a crate's source folder (`api/watch/mod.rs` → `api::watch`,
/// the crate root → ``).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("under src").with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts.join("::")
}

fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_string()
    } else {
        format!("{parent}::{child}")
    }
}

/// Splits the inside of a `{...}` use group into its top-level items.
fn group_items(inner: &str) -> Vec<String> {
    let (mut items, mut current, mut depth) = (Vec::new(), String::new(), 0);
    for ch in inner.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(ch);
    }
    items.push(current);
    items.into_iter().map(|i| i.trim().to_string()).filter(|i| !i.is_empty()).collect()
}

/// The paths a `use` tree names, each as a list of segments (`a::{b, c::d}` → `a::b`, `a::c::d`).
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let tree = tree.split(" as ").next().unwrap_or_default().trim().to_string();
    match tree.find('{') {
        Some(open) => {
            let prefix = tree[..open].trim_end_matches("::");
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            group_items(inner)
                .iter()
                .flat_map(|item| use_paths(item))
                .map(|rest| {
                    let mut path: Vec<String> =
                        prefix.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
                    path.extend(rest);
                    path
                })
                .collect()
        }
        None => vec![tree.split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()],
    }
}

/// Where the next line that starts a `use` statement (`use`, `pub use`, `pub(crate) use`) begins.
fn use_statement_start(code: &str) -> Option<usize> {
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let visibility = ["pub(crate) ", "pub(super) ", "pub "].iter().find(|v| trimmed.starts_with(*v));
        let after = visibility.map_or(trimmed, |v| &trimmed[v.len()..]);
        if after.starts_with("use ") {
            return Some(offset + (line.len() - trimmed.len()));
        }
        offset += line.len();
    }
    None
}

/// The longest prefix of `path` that is a module, if any.
fn resolve(modules: &BTreeSet<String>, path: &[String]) -> Option<String> {
    (1..=path.len()).rev().map(|n| path[..n].join("::")).find(|m| modules.contains(m))
}

/// The import graph of a crate: module → the modules its code imports.
fn import_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files: Vec<PathBuf> =
        rust_files(src).into_iter().filter(|f| !is_test_file(f) && !f.starts_with(src.join("bin"))).collect();
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let module = module_of(src, file);
        let code = code_of(&std::fs::read_to_string(file).expect("source"));
        let mut paths: Vec<Vec<String>> = Vec::new();
        // `use` statements (each from its first line to its `;`), relative ones included.
        let mut rest = code.as_str();
        while let Some(at) = use_statement_start(rest) {
            let statement = &rest[at..];
            let end = statement.find(';').unwrap_or(statement.len());
            rest = &statement[end..];
            let statement = &statement[..end];
            let tree = &statement[statement.find("use ").unwrap_or(0) + 4..];
            for path in use_paths(tree) {
                let Some(first) = path.first() else { continue };
                let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
                let absolute: Vec<String> = match first.as_str() {
                    "crate" => path[1..].to_vec(),
                    "self" => join(&module, &path[1..].join("::")).split("::").map(str::to_string).collect(),
                    "super" => join(parent, &path[1..].join("::")).split("::").map(str::to_string).collect(),
                    child if modules.contains(&join(&module, child)) => {
                        join(&module, &path.join("::")).split("::").map(str::to_string).collect()
                    }
                    _ => continue,
                };
                paths.push(absolute);
            }
        }
        // `crate::` paths written out in code.
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
            paths.push(rest[..end].split("::").filter(|s| !s.is_empty()).map(str::to_string).collect());
        }
        let targets = paths.iter().filter_map(|p| resolve(&modules, p)).filter(|m| *m != module).collect();
        graph.insert(module, targets);
    }
    graph
}

/// The import circles of a graph: its strongly connected components of more than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Tarjan's algorithm (recursive: a crate has a few hundred modules at most).
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.graph.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

/// Fails naming every import circle of the crate at `src`.
#[track_caller]
fn check_no_circles(src: &Path) {
    let graph = import_graph(src);
    let found = circles(&graph);
    let report: Vec<String> = found
        .iter()
        .map(|component| {
            let edges: Vec<String> = component
                .iter()
                .map(|m| {
                    let inside: Vec<&str> =
                        graph[m].iter().filter(|t| component.contains(t)).map(String::as_str).collect();
                    format!("  {m} -> {}", inside.join(", "))
                })
                .collect();
            format!("circle {}:\n{}", component.join(", "), edges.join("\n"))
        })
        .collect();
    assert!(found.is_empty(), "import circles in {}:\n{}", src.display(), report.join("\n"));
}

#[test]
fn no_import_circle_in_the_app() {
    check_no_circles(&root().join("src"));
}

#[test]
fn no_import_circle_in_the_model() {
    check_no_circles(&root().join("model/src"));
}

#[test]
fn no_import_circle_in_the_protocol_core() {
    check_no_circles(&root().join("wire/src"));
}

#[test]
fn no_import_circle_in_kube_sim() {
    check_no_circles(&root().join("sim/src"));
}

#[test]
fn views_build_no_request_and_decode_no_bytes() {
    let forbidden = [
        ".param(",
        ".header(",
        "Request::get(",
        "\"/api",
        "\"/openapi",
        "\"/version",
        "api::codec::json",
        "api::codec::yaml",
        "api::codec::cbor",
        "api::codec::protobuf",
        "api::body",
        "WatchDecoder",
        "from_slice(",
    ];
    let mut found = Vec::new();
    for path in rust_files(&root().join("src/ui")) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let code = code_of(&std::fs::read_to_string(&path).expect("source"));
        for word in forbidden {
            if code.contains(word) {
                found.push(format!("src/ui/{name} uses {word}"));
            }
        }
    }
    assert!(found.is_empty(), "views doing protocol work:\n{}", found.join("\n"));
}

#[test]
fn the_circle_check_finds_a_circle_through_a_parent_that_re_exports_its_child() {
    let dir = std::env::temp_dir().join(format!("layers-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).expect("temp dir");
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod b;\n").expect("write");
    std::fs::write(dir.join("a/mod.rs"), "pub mod x;\npub use x::Thing;\n").expect("write");
    std::fs::write(dir.join("a/x.rs"), "use crate::b::helper;\npub struct Thing;\n").expect("write");
    std::fs::write(dir.join("b.rs"), "use crate::{a::Thing};\npub fn helper() {}\n").expect("write");
    let found = circles(&import_graph(&dir));
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(found, vec![vec!["a".to_string(), "a::x".to_string(), "b".to_string()]]);
}

#[test]
fn api_does_no_io_and_reads_no_clock() {
    let forbidden = [
        ["lep", "tos"].concat(),
        ["web", "_sys"].concat(),
        ["js", "_sys"].concat(),
        ["wasm", "_bindgen"].concat(),
        ["gl", "oo"].concat(),
        ["async", " fn"].concat(),
        [".aw", "ait"].concat(),
        ["Instant", "::now"].concat(),
        ["System", "Time"].concat(),
        ["Date", "::now"].concat(),
        ["Date", "::new"].concat(),
        ["std::", "fs"].concat(),
        ["std::", "net"].concat(),
    ];
    let files = rust_files(&root().join("wire/src"));
    assert!(files.len() > 20, "found only {} files under wire/src", files.len());
    // kube-decode (`src/bin`) is a command-line tool that reads files: an edge of its own.
    let tool = root().join("wire/src/bin");
    for path in files.iter().filter(|f| !is_test_file(f) && !f.ends_with("testdata.rs") && !f.starts_with(&tool)) {
        let code = code_of(&std::fs::read_to_string(path).expect("source"));
        for word in &forbidden {
            assert!(!code.contains(word.as_str()), "{} uses {word}", path.display());
        }
    }
}

/// The files of `dirs` (relative to the repository) that reach 900 lines, tests and generated
/// code (`// @generated` on the first line) left out.
fn long_files(dirs: &[&str]) -> Vec<String> {
    let mut long = Vec::new();
    for dir in dirs {
        for path in rust_files(&root().join(dir)).into_iter().filter(|f| !is_test_file(f)) {
            let text = std::fs::read_to_string(&path).expect("source");
            if text.starts_with("// @generated") {
                continue;
            }
            let lines = text.lines().count();
            if lines >= 900 {
                long.push(format!("{} ({lines} lines)", path.strip_prefix(root()).unwrap_or(&path).display()));
            }
        }
    }
    long
}

#[test]
fn no_source_file_reaches_900_lines() {
    let long = long_files(&["src", "model/src", "wire/src", "sim/src"]);
    assert!(long.is_empty(), "split these along their jobs: {}", long.join(", "));
}
