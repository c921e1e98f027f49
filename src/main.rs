//! The app binary: mounts the explorer in the browser. Natively it only explains where it runs.

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
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
