//! Where the real wire data the integration tests and benchmarks read is: `tests/fixtures`, in the
//! repository (its `kube/README.md` says where each set comes from and under which licence).

use std::path::PathBuf;

/// `tests/fixtures` of this repository.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}
