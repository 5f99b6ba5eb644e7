use super::*;
use crate::testutil::{obj, put, workspace};
use std::fs;

fn run(ws: &WorkspaceRoot, args: Value) -> String {
    let tool = SearchText::new();
    let call = tool.prepare(&obj(args), ws).unwrap();
    tool.execute(
        &crate::testutil::authorized(call.clone()),
        ws,
        &CancellationToken::new(),
    )
    .unwrap()
    .content
}

fn tree() -> (tempfile::TempDir, WorkspaceRoot) {
    let (dir, ws) = workspace();
    let root = dir.path();
    put(root, "b.rs", "fn main() {}\nstruct B;\nfn helper() {}\n");
    put(root, "a/x.rs", "impl Display for X {}\nfn main() {\n}\n");
    put(root, "a/y.txt", "FN MAIN in capitals\n");
    put(root, ".hidden.rs", "fn main() {}\n");
    put(root, ".git/HEAD", "fn main\n");
    put(root, ".ignore", "skipped/\n");
    put(root, "skipped/s.rs", "fn main() {}\n");
    fs::write(root.join("bin.dat"), b"fn main\0\x01\x02").unwrap();
    (dir, ws)
}

#[test]
fn finds_sorted_matches_and_honours_ignore_rules() {
    let (_dir, ws) = tree();
    let out = run(&ws, json!({"pattern": "fn main", "literal": true}));
    assert_eq!(
        out,
        "a/x.rs:2:fn main() {\nb.rs:1:fn main() {}\n[2 matches in 2 files]"
    );
}

#[test]
fn regex_case_insensitive_and_subpath() {
    let (_dir, ws) = tree();
    let out = run(
        &ws,
        json!({"pattern": r"^fn\s+\w+", "case_insensitive": true, "path": "a"}),
    );
    assert_eq!(
        out,
        "a/x.rs:2:fn main() {\na/y.txt:1:FN MAIN in capitals\n[2 matches in 2 files]"
    );
    let out = run(&ws, json!({"pattern": r"impl\s+\w+\s+for"}));
    assert_eq!(out, "a/x.rs:1:impl Display for X {}\n[1 match in 1 file]");
    // ^ matches at every line start, not just at the start of the file.
    let out = run(&ws, json!({"pattern": "^fn", "path": "b.rs"}));
    assert_eq!(
        out,
        "b.rs:1:fn main() {}\nb.rs:3:fn helper() {}\n[2 matches in 1 file]"
    );
}

#[test]
fn literal_mode_does_not_interpret_regex_syntax() {
    let (dir, ws) = workspace();
    put(dir.path(), "a.txt", "a.b\naxb\n(x)\n");
    assert_eq!(
        run(&ws, json!({"pattern": "a.b", "literal": true})),
        "a.txt:1:a.b\n[1 match in 1 file]"
    );
    assert_eq!(
        run(&ws, json!({"pattern": "a.b"})),
        "a.txt:1:a.b\na.txt:2:axb\n[2 matches in 1 file]"
    );
    assert_eq!(
        run(&ws, json!({"pattern": "(x", "literal": true})),
        "a.txt:3:(x)\n[1 match in 1 file]"
    );
}

#[test]
fn an_explicit_file_is_searched_even_if_ignored() {
    let (_dir, ws) = tree();
    let out = run(&ws, json!({"pattern": "fn main", "path": "skipped/s.rs"}));
    assert_eq!(out, "skipped/s.rs:1:fn main() {}\n[1 match in 1 file]");
}

#[test]
fn no_matches_is_stated() {
    let (_dir, ws) = tree();
    let out = run(&ws, json!({"pattern": "nothing_here_at_all"}));
    assert_eq!(out, "[no matches for pattern \"nothing_here_at_all\" in .]");
}

#[test]
fn capped_results_are_the_first_n_in_path_order() {
    let (dir, ws) = workspace();
    for i in 0..40 {
        let body: String = (0..5).map(|j| format!("hit {j}\n")).collect();
        put(dir.path(), &format!("d{}/f{i:02}.txt", i % 3), &body);
    }
    let out = run(&ws, json!({"pattern": "hit", "max_results": 7}));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8, "{out}");
    assert_eq!(lines[0], "d0/f00.txt:1:hit 0");
    assert_eq!(lines[4], "d0/f00.txt:5:hit 4");
    assert_eq!(lines[5], "d0/f03.txt:1:hit 0");
    assert_eq!(lines[6], "d0/f03.txt:2:hit 1");
    assert!(
        lines[7].starts_with("[results capped at 7 matches"),
        "{}",
        lines[7]
    );
    // Deterministic across runs despite the parallel walk.
    for _ in 0..5 {
        assert_eq!(run(&ws, json!({"pattern": "hit", "max_results": 7})), out);
    }
}

#[test]
fn a_file_with_more_matches_than_the_cap_is_capped() {
    let (dir, ws) = workspace();
    let body: String = (0..10).map(|i| format!("x{i}\n")).collect();
    put(dir.path(), "many.txt", &body);
    let out = run(&ws, json!({"pattern": "x", "max_results": 10}));
    assert!(out.ends_with("[10 matches in 1 file]"), "{out}");
    let out = run(&ws, json!({"pattern": "x", "max_results": 9}));
    assert!(
        out.contains("many.txt:9:x8\n[results capped at 9 matches"),
        "{out}"
    );
}

#[test]
fn long_lines_are_cut_on_a_char_boundary() {
    let (dir, ws) = workspace();
    put(
        dir.path(),
        "wide.txt",
        &format!("needle{}\n", "é".repeat(600)),
    );
    let out = run(&ws, json!({"pattern": "needle"}));
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("wide.txt:1:needleé"));
    assert!(first.ends_with("é [… line cut]"), "{first}");
}

#[test]
fn invalid_utf8_lines_are_shown_lossily() {
    let (dir, ws) = workspace();
    fs::write(dir.path().join("l1.txt"), b"caf\xe9 needle\n").unwrap();
    let out = run(&ws, json!({"pattern": "needle"}));
    assert_eq!(out, "l1.txt:1:caf\u{FFFD} needle\n[1 match in 1 file]");
}

#[test]
fn arguments_are_checked_at_prepare() {
    let (dir, ws) = tree();
    let tool = SearchText::new();
    let err = |args: Value| tool.prepare(&obj(args), &ws).unwrap_err();
    let bad_regex = err(json!({"pattern": "fn ("}));
    assert!(matches!(bad_regex, ArgumentError::Invalid { .. }));
    assert!(
        bad_regex.to_string().contains("literal: true"),
        "{bad_regex}"
    );
    assert!(matches!(
        err(json!({"pattern": ""})),
        ArgumentError::Invalid { .. }
    ));
    assert!(matches!(err(json!({})), ArgumentError::Missing { .. }));
    assert!(matches!(
        err(json!({"pattern": "x", "glob": "*.rs"})),
        ArgumentError::Unknown { .. }
    ));
    assert!(matches!(
        err(json!({"pattern": "x", "literal": "yes"})),
        ArgumentError::WrongType { .. }
    ));
    assert!(matches!(
        err(json!({"pattern": "x", "max_results": 2001})),
        ArgumentError::OutOfRange { .. }
    ));
    assert!(matches!(
        err(json!({"pattern": "x", "path": "../.."})),
        ArgumentError::Path { .. }
    ));
    assert!(matches!(
        err(json!({"pattern": "x", "path": "nope"})),
        ArgumentError::Path { .. }
    ));
    let abs = dir.path().join("a");
    let call = tool
        .prepare(&obj(json!({"pattern": "x", "path": abs.to_str()})), &ws)
        .unwrap();
    assert_eq!(
        *call.args(),
        json!({"pattern": "x", "literal": false, "path": "a", "case_insensitive": false, "max_results": 200})
    );
    assert_eq!(call.summary(), "search a for /x/");
}

#[test]
fn engine_without_cap_returns_everything() {
    let (dir, ws) = workspace();
    for i in 0..30 {
        put(dir.path(), &format!("f{i:02}.txt"), "a\na\n");
    }
    let opts = SearchOptions {
        root: ws.path().to_path_buf(),
        start: ws.path().to_path_buf(),
        pattern: "a".into(),
        literal: true,
        case_insensitive: false,
        max_results: None,
        max_line_bytes: usize::MAX,
        threads: 0,
    };
    let report = search(&opts, &CancellationToken::new()).unwrap();
    assert_eq!(
        (report.matches, report.files, report.capped),
        (60, 30, false)
    );
    assert!(report
        .output
        .starts_with("f00.txt:1:a\nf00.txt:2:a\nf01.txt:1:a\n"));
}

#[test]
fn cancelled_search_is_an_error() {
    let (_dir, ws) = tree();
    let tool = SearchText::new();
    let call = tool.prepare(&obj(json!({"pattern": "x"})), &ws).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    assert_eq!(
        tool.execute(&crate::testutil::authorized(call.clone()), &ws, &cancel),
        Err(ToolError::Cancelled)
    );
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed_out_of_the_workspace() {
    let (dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap();
    put(outside.path(), "secret.txt", "needle\n");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("s.txt"))
        .unwrap();
    let out = run(&ws, json!({"pattern": "needle"}));
    assert_eq!(out, "[no matches for pattern \"needle\" in .]");
}

/// A pattern that is valid syntax but compiles to something huge is not
/// compiled in `prepare` (which runs on the agent loop): `execute` — on the
/// executor's blocking thread, inside its timeout — refuses it clearly.
#[test]
fn a_pathological_pattern_is_compiled_only_when_executed_and_refused_clearly() {
    let (_dir, ws) = tree();
    let tool = SearchText::new();
    let call = tool
        .prepare(&obj(json!({"pattern": r"\w{1000}{1000}"})), &ws)
        .unwrap();
    let err = tool
        .execute(
            &crate::testutil::authorized(call),
            &ws,
            &CancellationToken::new(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("size limit"), "{err}");
    // Bad syntax is still refused by prepare.
    assert!(tool
        .prepare(&obj(json!({"pattern": "(unclosed"})), &ws)
        .is_err());
}
