//! `docs/architecture.md`'s module map is kept true: every source folder a row names exists, and every
//! module in it (a `.rs` file or a folder, other than `mod.rs`, `lib.rs`, `main.rs`, `bin/` and
//! test files) is named in backticks in that row, as `name` or `name/`.

use std::collections::BTreeSet;
use std::path::Path;

/// The rows of the map whose first cell is a folder: (folder, the row's other cells).
fn rows(markdown: &str) -> Vec<(String, String)> {
    markdown
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("| `")?;
            let (path, cells) = rest.split_once('`')?;
            (path.ends_with('/') && path.contains("src/")).then(|| (path.to_owned(), cells.to_owned()))
        })
        .collect()
}

/// The names in backticks in a text.
fn named(text: &str) -> BTreeSet<String> {
    text.split('`').skip(1).step_by(2).map(str::to_owned).collect()
}

/// The modules of a folder, as the map names them: `name` for a file, `name/` for a folder.
fn modules(folder: &Path) -> BTreeSet<String> {
    let not_modules = ["mod.rs", "lib.rs", "main.rs", "tests.rs", "bin", "tests"];
    std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|entry| entry.expect("a folder entry"))
        .filter_map(|entry| {
            let name = entry.file_name().into_string().expect("a UTF-8 name");
            if not_modules.contains(&name.as_str()) || name.ends_with("_tests.rs") {
                return None;
            }
            if entry.file_type().expect("a file type").is_dir() {
                Some(format!("{name}/"))
            } else {
                name.strip_suffix(".rs").map(str::to_owned)
            }
        })
        .collect()
}

/// What is wrong with the map, one line per fault.
fn faults(root: &Path, markdown: &str) -> Vec<String> {
    let mut faults = Vec::new();
    for (path, cells) in rows(markdown) {
        let folder = root.join(&path);
        if !folder.is_dir() {
            faults.push(format!("{path}: named in the map, but no such folder"));
            continue;
        }
        let named = named(&cells);
        for module in modules(&folder) {
            if !named.contains(&module) {
                faults.push(format!("{path}{module}: a module the map's row for {path} does not name"));
            }
        }
    }
    faults
}

#[test]
fn the_module_map_names_every_module_of_every_folder_it_lists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let markdown = std::fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md");
    assert!(rows(&markdown).len() >= 15, "the map lists the workspace's folders");
    let faults = faults(root, &markdown);
    assert!(faults.is_empty(), "docs/architecture.md's module map:\n{}", faults.join("\n"));
}

#[test]
fn a_module_left_out_and_a_folder_gone_are_both_found() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = "| `wire/src/view/` | `list`, `table`, `metadata`, `status` |\n| `wire/src/gone/` | `x` |\n";
    assert_eq!(
        faults(root, map),
        [
            "wire/src/view/shape: a module the map's row for wire/src/view/ does not name",
            "wire/src/gone/: named in the map, but no such folder",
        ]
    );
}
