//! With the `split` feature, the wasm32 app is linked with relocations (`--emit-relocs`), which
//! `wasm-split-cli` reads to move the code behind the split points in `src/ui/lazy.rs` into a
//! separate wasm file.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let split = std::env::var_os("CARGO_FEATURE_SPLIT").is_some();
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|arch| arch == "wasm32");
    if split && wasm {
        println!("cargo::rustc-link-arg-bins=--emit-relocs");
    }
}
