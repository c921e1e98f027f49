//! The app binary: mounts the explorer in the browser. Natively it only explains where it runs.

/// Every allocation is counted (one addition each), so that the bytes the app holds can be read:
/// the wasm memory's size cannot say, as it only grows.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

/// The bytes allocated in the wasm memory now (what the page holds, beside the memory's size).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(js_name = heapInUse)]
pub fn heap_in_use() -> f64 {
    ALLOCATOR.allocated() as f64
}

#[cfg(target_arch = "wasm32")]
fn main() {
    // A panic goes to the console, and to the page as an alert with a Reload link.
    kube_api_explorer::ui::crash::install_hook();
    // A host page that loads the wasm itself marks an element with data-kube-api-explorer-manual
    // and calls the exported mount(element, config) instead.
    if !kube_api_explorer::ui::manual_mount_requested() {
        kube_api_explorer::ui::mount();
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("kube-api-explorer runs in a browser: build it with `trunk build --release` or run `scripts/run`");
    std::process::exit(2);
}
