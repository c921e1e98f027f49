//! glibc malloc settings for kube-sim's way of allocating: every write copies an object (a pod
//! is ~300 allocations, ~45 KB), and the copies live on in the watch history, so under a churn the
//! heap grows for as long as the history fills.
//!
//! - One arena (`M_ARENA_MAX` 1): by default each thread that allocates gets its own arena, and
//!   memory freed into one (the dataset, loaded on the main thread; copies made on one tokio
//!   worker and dropped on the other) is reused only by the threads of that arena, so a churn kept
//!   taking fresh pages while freed ones sat in other arenas.
//! - 64 MB of top padding (`M_TOP_PAD`): a non-main arena or the main heap grows by what is asked
//!   plus this, so heap growth is one `brk`/`mprotect` call per 64 MB instead of one every few
//!   copies (128 KB by default), and trimming keeps that much for the next growth.
//!
//! A setting given in the environment (`MALLOC_ARENA_MAX`, `MALLOC_TOP_PAD_`, `GLIBC_TUNABLES`)
//! is left as it is. Other C libraries: nothing to do.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune() {
    use std::ffi::c_int;

    extern "C" {
        /// glibc's `int mallopt(int param, int value)`.
        fn mallopt(param: c_int, value: c_int) -> c_int;
    }
    const M_TOP_PAD: c_int = -2;
    const M_ARENA_MAX: c_int = -8;

    let set = |name: &str| std::env::var_os(name).is_some();
    if set("GLIBC_TUNABLES") {
        return;
    }
    // SAFETY: mallopt only changes allocator parameters; called before any other thread exists.
    unsafe {
        if !set("MALLOC_ARENA_MAX") {
            mallopt(M_ARENA_MAX, 1);
        }
        if !set("MALLOC_TOP_PAD_") {
            mallopt(M_TOP_PAD, 64 << 20);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune() {}
