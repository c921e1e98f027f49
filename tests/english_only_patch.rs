//! `scripts/bench languages` measures what the languages add to a page load by building this
//! commit with `scripts/english-only.patch` applied. The patch is against `src/ui/i18n.rs` and
//! `src/ui/intl.rs` as they are; this test fails when they change under it, so that the figure
//! cannot silently stop being measurable.

use std::path::Path;
use std::process::Command;

#[test]
fn the_english_only_patch_still_applies() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new("git")
        .args(["apply", "--check", "scripts/english-only.patch"])
        .current_dir(repo)
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "scripts/english-only.patch no longer applies to src/ui/i18n.rs and src/ui/intl.rs; make it again \
         (the interface without the switch, the loading and Intl, the catalogue kept): {}",
        String::from_utf8_lossy(&output.stderr)
    );
}
