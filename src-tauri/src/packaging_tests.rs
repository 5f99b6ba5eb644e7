//! The .deb opens a run file by double-click only when three pieces agree:
//! the file association in tauri.conf.json, the MIME type the package
//! installs (glob → type) and the desktop entry, whose Exec line must pass
//! the file to the app (the app imports the path it is started with).

use serde_json::Value;
use std::path::Path;

fn repo_file(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_deb_associates_run_files_with_the_app_and_passes_the_file() {
    let conf: Value = serde_json::from_str(&repo_file("tauri.conf.json")).unwrap();
    let association = &conf["bundle"]["fileAssociations"][0];
    let ext = association["ext"][0].as_str().unwrap();
    let mime = association["mimeType"].as_str().unwrap();
    assert_eq!(ext, "bearagent-run");

    let deb = &conf["bundle"]["linux"]["deb"];
    let template = repo_file(deb["desktopTemplate"].as_str().unwrap());
    let exec = template.lines().find(|l| l.starts_with("Exec=")).unwrap();
    assert!(
        exec.ends_with(" %f"),
        "the launcher must pass the file: {exec}"
    );
    assert!(template.contains("MimeType={{mime_type}}"));
    // The app's own C heap: glibc reads these only at start (webkit_env.rs).
    let settings: Vec<String> = crate::webkit_env::LAUNCHER_ENV
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let env = format!("Exec=env {} {{{{exec}}}} ", settings.join(" "));
    assert!(
        exec.starts_with(&env),
        "the launcher must set the app's malloc: {exec}"
    );

    let files = deb["files"].as_object().unwrap();
    let (installed, source) = files
        .iter()
        .find(|(dest, _)| dest.starts_with("/usr/share/mime/packages/"))
        .unwrap();
    assert!(installed.ends_with(".xml"));
    let types = repo_file(source.as_str().unwrap());
    assert!(types.contains(&format!(r#"<mime-type type="{mime}">"#)));
    assert!(types.contains(&format!(r#"<glob pattern="*.{ext}"/>"#)));
}
