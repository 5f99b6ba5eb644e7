fn main() {
    // Capabilities live under src-tauri/ while tauri.conf.json is at the root;
    // tauri-build does not track a custom capabilities path by itself.
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    if let Err(e) = tauri_build::try_build(
        tauri_build::Attributes::new().capabilities_path_pattern("src-tauri/capabilities/**/*"),
    ) {
        println!("cargo:warning=tauri-build failed: {e:#}");
        std::process::exit(1);
    }
}
