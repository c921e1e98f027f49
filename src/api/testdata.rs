//! Access to the real wire data in `../shared/kube` for tests.
//!
//! The folder sits beside the repository (`KUBE_SHARED_DIR` overrides where it is).

use std::path::PathBuf;

/// The shared folder: `$KUBE_SHARED_DIR`, or `../shared` next to the repository.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("KUBE_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    }
}

/// The bytes of `relative` under the shared folder; a missing file fails the test with its path.
#[track_caller]
pub fn shared_file(relative: &str) -> Vec<u8> {
    let path = shared_dir().join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read shared test data {}: {e}", path.display()))
}
