//! The check fails where it should, on small synthetic repositories.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bearagent_house::{check, Report};
use std::path::Path;
use tempfile::TempDir;

const HOUSE: &str = r#"
[limits]
function_lines = 80
file_lines = 500

[[crate]]
name = "low"
dir = "crates/low"

[[crate]]
name = "high"
dir = "crates/high"
may_use = ["low"]

[[floors]]
crate = "high"
dir = "crates/high/src/run"
floor = [["base"], ["top"]]
"#;

/// A repository with two crates; `extra` adds or replaces files.
fn repo(extra_house: &str, extra: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = vec![
        ("house.toml".into(), format!("{HOUSE}\n{extra_house}")),
        (
            "crates/low/Cargo.toml".into(),
            "[package]\nname = \"low\"\n".into(),
        ),
        ("crates/low/src/lib.rs".into(), "pub struct Low;\n".into()),
        (
            "crates/high/Cargo.toml".into(),
            "[package]\nname = \"high\"\n[dependencies]\nlow = { path = \"../low\" }\n".into(),
        ),
        ("crates/high/src/lib.rs".into(), "pub mod run;\n".into()),
        (
            "crates/high/src/run/mod.rs".into(),
            "mod base;\nmod top;\npub use top::Top;\n".into(),
        ),
        (
            "crates/high/src/run/base.rs".into(),
            "pub struct Base;\n".into(),
        ),
        (
            "crates/high/src/run/top.rs".into(),
            "use super::base::Base;\npub struct Top(Base);\n".into(),
        ),
    ];
    for (path, text) in extra {
        files.retain(|(p, _)| p != path);
        files.push((path.to_string(), text.to_string()));
    }
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

fn run(dir: &Path) -> Report {
    check(dir).unwrap()
}

fn failures(dir: &TempDir) -> String {
    run(dir.path()).failures.join("\n")
}

#[test]
fn a_clean_tree_passes() {
    let dir = repo("", &[]);
    let report = run(dir.path());
    assert!(report.passed(), "{:?}", report.failures);
}

#[test]
fn a_lower_floor_importing_a_higher_one_fails_naming_the_arrow() {
    let dir = repo(
        "",
        &[(
            "crates/high/src/run/base.rs",
            "use crate::run::top::Top;\npub struct Base;\n",
        )],
    );
    let text = failures(&dir);
    assert!(
        text.contains(
            "crates/high/src/run/base.rs:1 (floor 0) -> crates/high/src/run/top.rs (floor 1)"
        ),
        "{text}"
    );
}

#[test]
fn a_re_export_is_followed_to_the_file_defining_the_item() {
    let dir = repo(
        "",
        &[(
            "crates/high/src/run/base.rs",
            "pub struct Base(super::Top);\n",
        )],
    );
    let text = failures(&dir);
    assert!(
        text.contains("crates/high/src/run/base.rs:1 (floor 0) -> crates/high/src/run/top.rs"),
        "{text}"
    );
}

#[test]
fn two_files_importing_each_other_fail_naming_both() {
    let dir = repo(
        "",
        &[(
            "crates/high/src/run/base.rs",
            "pub struct Base;\nfn f() { super::top::g(); }\n",
        )],
    );
    let text = failures(&dir);
    assert!(text.contains("circle in crate high (2 files)"), "{text}");
    assert!(
        text.contains("crates/high/src/run/base.rs, crates/high/src/run/top.rs"),
        "{text}"
    );
    assert!(
        text.contains("base.rs -> crates/high/src/run/top.rs -> crates/high/src/run/base.rs"),
        "{text}"
    );
}

#[test]
fn mod_declarations_and_test_modules_are_not_imports() {
    let tests = "pub struct Base;\n#[cfg(test)]\nmod tests { use crate::run::top::Top; }\n";
    let dir = repo("", &[("crates/high/src/run/base.rs", tests)]);
    assert!(run(dir.path()).passed(), "{}", failures(&dir));
}

fn long_fn(lines: usize) -> String {
    format!(
        "pub fn long() {{\n{}}}\n",
        "    let _ = 1;\n".repeat(lines - 2)
    )
}

#[test]
fn a_function_of_81_lines_fails_and_one_of_80_passes() {
    let dir = repo("", &[("crates/low/src/lib.rs", &long_fn(81))]);
    assert!(
        failures(&dir).contains("crates/low/src/lib.rs:1 fn long is 81 lines"),
        "{}",
        failures(&dir)
    );
    let dir = repo("", &[("crates/low/src/lib.rs", &long_fn(80))]);
    assert!(run(dir.path()).passed(), "{}", failures(&dir));
}

#[test]
fn a_file_over_500_production_lines_fails_but_its_tests_do_not_count() {
    let body = "// a line\n".repeat(501);
    let dir = repo("", &[("crates/low/src/lib.rs", &body)]);
    assert!(failures(&dir).contains("crates/low/src/lib.rs has 501 production lines"));
    let tested = format!(
        "{}#[cfg(test)]\nmod tests {{\n{}}}\n",
        "// a\n".repeat(400),
        "// t\n".repeat(200)
    );
    let dir = repo("", &[("crates/low/src/lib.rs", &tested)]);
    assert!(run(dir.path()).passed(), "{}", failures(&dir));
}

#[test]
fn listed_debt_passes_stale_debt_fails_grown_debt_fails() {
    let debt = "[[debt]]\nkind = \"long_fn\"\nfile = \"crates/low/src/lib.rs\"\nfunction = \"long\"\nlines = 81\nreason = \"known debt\"\n";
    let dir = repo(debt, &[("crates/low/src/lib.rs", &long_fn(81))]);
    assert!(run(dir.path()).passed(), "{}", failures(&dir));
    let dir = repo(debt, &[("crates/low/src/lib.rs", &long_fn(82))]);
    assert!(
        failures(&dir).contains("listed debt grew"),
        "{}",
        failures(&dir)
    );
    let dir = repo(debt, &[]);
    let text = failures(&dir);
    assert!(
        text.contains("stale debt in house.toml: long_fn crates/low/src/lib.rs fn long"),
        "{text}"
    );
}

#[test]
fn a_listed_circle_may_shrink_but_not_grow() {
    let debt = "[[debt]]\nkind = \"circle\"\nfiles = [\"crates/low/src/a.rs\", \"crates/low/src/b.rs\"]\nreason = \"known debt\"\n";
    let lib = ("crates/low/src/lib.rs", "mod a;\nmod b;\npub struct Low;\n");
    let a = ("crates/low/src/a.rs", "pub fn f() { crate::b::g(); }\n");
    let b = ("crates/low/src/b.rs", "pub fn g() { super::a::f(); }\n");
    let dir = repo(debt, &[lib, a, b]);
    assert!(run(dir.path()).passed(), "{}", failures(&dir));
    let lib = (
        "crates/low/src/lib.rs",
        "mod a;\nmod b;\npub struct Low;\npub fn h() { a::f(); }\n",
    );
    let b = (
        "crates/low/src/b.rs",
        "pub fn g() { super::a::f(); crate::h(); }\n",
    );
    let dir = repo(debt, &[lib, a, b]);
    let text = failures(&dir);
    assert!(
        text.contains("listed debt grew") && text.contains("1 new: crates/low/src/lib.rs"),
        "{text}"
    );
    assert!(
        text.contains("through the first: crates/low/src/lib.rs -> crates/low/src/a.rs"),
        "{text}"
    );
}

#[test]
fn a_crate_depending_against_the_direction_fails() {
    let manifest = "[package]\nname = \"low\"\n[dependencies]\nhigh = { path = \"../high\" }\n[dev-dependencies]\n";
    let dir = repo("", &[("crates/low/Cargo.toml", manifest)]);
    assert!(
        failures(&dir).contains("against the declared direction: low -> high"),
        "{}",
        failures(&dir)
    );
}

#[test]
fn an_unplaced_file_and_impl_application_outside_home_fail() {
    let home = "[application]\ncrate = \"high\"\nhome = \"crates/high/src/app\"\n";
    let dir = repo(
        home,
        &[("crates/high/src/run/extra.rs", "impl Application {}\n")],
    );
    let text = failures(&dir);
    assert!(
        text.contains("file on no floor: crates/high/src/run/extra.rs"),
        "{text}"
    );
    assert!(
        text.contains("impl Application outside its home: crates/high/src/run/extra.rs:1"),
        "{text}"
    );
}

#[test]
fn a_mock_file_beside_the_player_fails() {
    let mock = "[mock]\ndir = \"ui/mock\"\nplayer = [\"playback.ts\"]\nfixtures = \"fixtures\"\n";
    let files = [
        ("ui/mock/playback.ts", "x"),
        ("ui/mock/fixtures/a.json", "{}"),
        ("ui/mock/fake.ts", "y"),
    ];
    let dir = repo(mock, &files);
    let text = failures(&dir);
    assert!(
        text.contains("neither the fixture player nor a recorded fixture: ui/mock/fake.ts"),
        "{text}"
    );
    assert!(
        !text.contains("playback.ts") && !text.contains("a.json"),
        "{text}"
    );
}
