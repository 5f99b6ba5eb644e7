//! This crate cannot take the workspace's lints (they forbid `unsafe`, and
//! a forbid cannot be allowed in one place), so it copies them: held here
//! to the workspace's, but for `unsafe_code` and one lint more.

#![allow(clippy::unwrap_used, reason = "a test: a failure is the report")]

use toml::Table;

fn manifest(path: &str) -> Table {
    let text = std::fs::read_to_string(path).unwrap();
    text.parse::<Table>().unwrap()
}

fn section<'a>(table: &'a Table, path: &[&str]) -> &'a Table {
    path.iter()
        .fold(table, |t, key| t[*key].as_table().unwrap())
}

#[test]
fn its_lints_are_the_workspaces_but_unsafe_is_denied_not_forbidden() {
    let root = manifest(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../Cargo.toml"));
    let ours = manifest(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"));

    let mut rust = section(&root, &["workspace", "lints", "rust"]).clone();
    assert_eq!(rust["unsafe_code"].as_str(), Some("forbid"));
    rust.insert("unsafe_code".into(), "deny".into());
    assert_eq!(section(&ours, &["lints", "rust"]), &rust);

    let mut clippy = section(&root, &["workspace", "lints", "clippy"]).clone();
    clippy.insert("undocumented_unsafe_blocks".into(), "deny".into());
    assert_eq!(section(&ours, &["lints", "clippy"]), &clippy);
}
