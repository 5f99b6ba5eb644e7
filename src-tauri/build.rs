fn main() {
    // Capabilities live under src-tauri/ while tauri.conf.json is at the root;
    // tauri-build does not track a custom capabilities path by itself.
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    link_startup_code_together();
    if let Err(e) = tauri_build::try_build(
        tauri_build::Attributes::new().capabilities_path_pattern("src-tauri/capabilities/**/*"),
    ) {
        println!("cargo:warning=tauri-build failed: {e:#}");
        std::process::exit(1);
    }
}

/// The functions the app runs from its start to its first idle moment,
/// then those a run adds (`src-tauri/link-order.txt`, made by
/// `scripts/link-order.sh`), are laid out side by side in the app's
/// binary. The kernel maps code in 64 KB blocks around each page first
/// run, so startup code scattered over the whole binary kept about a third
/// of it resident (issue 56). rustc links with LLD on x86_64 Linux, which
/// reads the list; a name missing from the binary (the code changed since
/// the list was made) only loses its place, so the list is refreshed by
/// hand, not checked.
fn link_startup_code_together() {
    let order = "src-tauri/link-order.txt";
    println!("cargo:rerun-if-changed={order}");
    let on_lld = std::env::var("TARGET").is_ok_and(|t| t == "x86_64-unknown-linux-gnu");
    let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return;
    };
    if !on_lld {
        return;
    }
    let bin = "cargo:rustc-link-arg-bin=bearagent-desktop";
    println!("{bin}=-Wl,--symbol-ordering-file={dir}/{order}");
    println!("{bin}=-Wl,--no-warn-symbol-ordering");
}
