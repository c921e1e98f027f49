//! The layering rules of DESIGN.md that Cargo cannot say by itself. The layers are crates and
//! point one way, ui → client → model → core: the protocol core `kube-wire` (`wire/`), the model
//! `kube-explorer-model` (`model/`), and the app (`src/`, whose `client` and `ui` are modules of
//! one crate). The compiler keeps a lower crate from naming a higher one, and keeps the app from
//! making a request (the app depends on the model only, whose `api` leaves the core's request
//! builder out: the `compile_fail` examples of `src/lib.rs` show it refused). What is left to
//! check here:
//!
//! - the manifests keep that shape: which workspace crate depends on which (kube-sim on the core,
//!   not on the app), and no web, async or clock crate below the app;
//! - `client` imports nothing of `ui` (both are modules of the app's crate);
//! - the core and the model are sans-I/O: no async, clock, file or network call of `std` either;
//! - no import circle between the modules of a crate (a parent module that re-exports its
//!   children counts as importing them, so a child never imports through its parent);
//! - the views (`src/ui`) decode no bytes and decide no protocol: no codec or body decoder, no API
//!   path, no header read; `model` and `client` do that;
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
fn views_decide_no_protocol_and_decode_no_bytes() {
    let forbidden = [
        ".header(",
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

/// The `std` calls that do I/O or read a clock (the web and async crates are kept out by the
/// manifests, see [`the_crates_depend_one_way`]).
fn io_words() -> Vec<String> {
    vec![
        ["async", " fn"].concat(),
        [".aw", "ait"].concat(),
        ["Instant", "::now"].concat(),
        ["System", "Time"].concat(),
        ["std::", "fs"].concat(),
        ["std::", "net"].concat(),
        ["std::", "process"].concat(),
        ["std::", "thread"].concat(),
    ]
}

/// Where a file of `dir` (a crate's source folder) does I/O or reads a clock.
fn io_in(dir: &str) -> Vec<String> {
    let files = rust_files(&root().join(dir));
    assert!(files.len() > 20, "found only {} files under {dir}", files.len());
    // kube-decode (`src/bin`) is a command-line tool that reads files: an edge of its own.
    let tool = root().join(dir).join("bin");
    let mut found = Vec::new();
    for path in files.iter().filter(|f| !is_test_file(f) && !f.ends_with("testdata.rs") && !f.starts_with(&tool)) {
        let code = code_of(&std::fs::read_to_string(path).expect("source"));
        for word in io_words() {
            if code.contains(word.as_str()) {
                found.push(format!("{} uses {word}", path.strip_prefix(root()).unwrap_or(path).display()));
            }
        }
    }
    found
}

#[test]
fn the_core_and_the_model_do_no_io_and_read_no_clock() {
    let found = [io_in("wire/src"), io_in("model/src")].concat();
    assert!(found.is_empty(), "I/O below the app:\n{}", found.join("\n"));
}

/// The names of the crates a manifest depends on (`[dependencies]` and its per-target forms; not
/// the dev-dependencies, which only tests see).
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(root().join(manifest)).expect("manifest");
    let mut names = BTreeSet::new();
    let mut in_dependencies = false;
    // Inside a value that spans lines (a `features = [` list): its lines are not keys.
    let mut open_brackets = 0i32;
    for line in text.lines().map(str::trim) {
        let starts_in_value = open_brackets > 0;
        let code = line.split(" #").next().unwrap_or_default();
        open_brackets += code.matches('[').count() as i32 - code.matches(']').count() as i32;
        if starts_in_value || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            open_brackets = 0;
            in_dependencies =
                line == "[dependencies]" || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
            continue;
        }
        let key = line.split(['=', '.']).next().unwrap_or_default().trim().trim_matches('"');
        if in_dependencies && !key.is_empty() {
            names.insert(key.to_owned());
        }
    }
    names
}

/// What a crate below the app may not depend on: the app's and kube-sim's crates, the web and
/// the async runtimes.
const NOT_BELOW_THE_APP: &[&str] = &[
    "kube-api-explorer",
    "kube-sim",
    "leptos",
    "web-sys",
    "js-sys",
    "wasm-bindgen",
    "wasm-bindgen-futures",
    "gloo",
    "gloo-net",
    "gloo-timers",
    "tokio",
    "futures",
    "reqwest",
    "send_wrapper",
];

/// Fails unless `manifest` depends on every crate of `must` and on none of `must_not`.
fn check_dependencies(manifest: &str, must: &[&str], must_not: &[&str]) -> Vec<String> {
    let names = dependencies(manifest);
    let missing = must.iter().filter(|m| !names.contains(**m)).map(|m| format!("{manifest} does not depend on {m}"));
    let extra = must_not.iter().filter(|m| names.contains(**m)).map(|m| format!("{manifest} depends on {m}"));
    missing.chain(extra).collect()
}

#[test]
fn the_crates_depend_one_way() {
    let problems = [
        // The core is at the bottom: no other workspace crate but the protobuf messages' JSON.
        check_dependencies(
            "wire/Cargo.toml",
            &["kube-pb-json"],
            &[NOT_BELOW_THE_APP, &["kube-explorer-model"]].concat(),
        ),
        check_dependencies("model/Cargo.toml", &["kube-wire"], NOT_BELOW_THE_APP),
        // The app reaches the core through the model only: the model's `api` leaves the request
        // builder out, which a dependency on the core would hand back.
        check_dependencies("Cargo.toml", &["kube-explorer-model", "leptos"], &["kube-wire", "kube-sim"]),
        // kube-sim shares the core, not the app.
        check_dependencies("sim/Cargo.toml", &["kube-wire"], &["kube-api-explorer", "kube-explorer-model"]),
    ]
    .concat();
    assert!(problems.is_empty(), "the layers are ui → client → model → core:\n{}", problems.join("\n"));
}

#[test]
fn the_dependency_reader_sees_every_form_of_a_dependency() {
    let dir = std::env::temp_dir().join(format!("layers-manifest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let manifest = dir.join("Cargo.toml");
    std::fs::write(
        &manifest,
        "[package]\nname = \"x\"\n\n[dependencies]\n# a comment\nserde.workspace = true\nkube-wire = { path = \"../wire\" }\n\n\
         [target.'cfg(target_arch = \"wasm32\")'.dependencies]\nleptos = \"0.8\"\nweb-sys = { version = \"0.3\", features = [\n  \
         \"Window\", \"Url\",\n] }\n\n[workspace.dependencies]\nthiserror = \"2\"\n\n[dev-dependencies]\ntokio = \"1\"\n",
    )
    .expect("write");
    let names = dependencies(manifest.to_str().expect("utf-8 path"));
    std::fs::remove_dir_all(&dir).expect("clean up");
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    assert_eq!(names, ["kube-wire", "leptos", "serde", "web-sys"], "workspace and dev-dependencies left out");
}

/// The modules of `layer` in the app's import graph that import a module of `above`.
fn imports_upward(layer: &str, above: &str) -> Vec<String> {
    let in_module = |module: &str, root: &str| module == root || module.starts_with(&format!("{root}::"));
    import_graph(&root().join("src"))
        .into_iter()
        .filter(|(module, _)| in_module(module, layer))
        .flat_map(|(module, targets)| {
            targets.into_iter().filter(|t| in_module(t, above)).map(move |t| format!("{module} imports {t}"))
        })
        .collect()
}

#[test]
fn the_client_imports_nothing_of_the_views() {
    let found = imports_upward("client", "ui");
    assert!(found.is_empty(), "the client is below the views:\n{}", found.join("\n"));
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
