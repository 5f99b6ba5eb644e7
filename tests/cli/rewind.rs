//! Rewind from the terminal: a run that used write_file, edit_file and
//! run_command (create, modify, delete) is rewound to an event and the tree
//! is byte-for-byte what it was then; `--redo` brings the end state back.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::Path;

fn cmd(command: &str) -> Value {
    json!({"tool_call": {"tool_name": "run_command", "arguments": {"command": command}}})
}

/// Every file under `root` (outside `.git`) with the SHA-256 of its bytes.
fn listing(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                let digest = Sha256::digest(std::fs::read(&path).unwrap());
                out.push((rel, format!("{digest:x}")));
            }
        }
    }
    out.sort();
    out
}

fn seq_of(events: &[Value], kind: &str, nth: usize) -> u64 {
    events
        .iter()
        .filter(|e| e["payload"]["type"] == kind)
        .nth(nth)
        .unwrap()["seq"]
        .as_u64()
        .unwrap()
}

#[test]
fn rewind_to_an_event_restores_the_tree_then_and_redo_the_end() {
    let env = support::env();
    env.write("src/app.py", "print('hello')\n");
    env.write(".env.example", "KEY=\n");
    env.write("notes.md", "old notes\n");
    let r = env.run(
        json!([
            support::write("README.md", "# App\n"),
            {"tool_call": {"tool_name": "edit_file", "arguments": {"path": "src/app.py", "old_string": "hello", "new_string": "hello, world"}}},
            // The point to come back to: after this call's result.
            cmd("true"),
            cmd("echo 'x = 1' > src/extra.py && printf 'new notes\\n' > notes.md && rm .env.example && mkdir -p build/out && echo o > build/out/a.o"),
            support::read("src/app.py"),
            {"tool_call": {"tool_name": "edit_file", "arguments": {"path": "src/app.py", "old_string": "hello, world", "new_string": "bye"}}},
            support::write("README.md", "# App\n\nMore.\n"),
            {"final_answer": "done"}
        ]),
        &["--approve", "all"],
        "change things",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let run_id = r.run_id();
    let end = listing(env.ws());
    let events = env.events_of(&run_id);
    // The third tool result is the `true` command's: the tree then held
    // the first two calls' writes only.
    let to = seq_of(&events, "tool_call_completed", 2);
    let mut at_to = vec![
        (".env.example", "KEY=\n"),
        ("README.md", "# App\n"),
        ("notes.md", "old notes\n"),
        ("src/app.py", "print('hello, world')\n"),
    ]
    .into_iter()
    .map(|(p, c)| (p.to_owned(), format!("{:x}", Sha256::digest(c.as_bytes()))))
    .collect::<Vec<_>>();
    at_to.sort();

    let rewound = env.bearagent(&["rewind", &run_id, "--to", &to.to_string(), "--json"]);
    assert!(
        rewound.status.success(),
        "{}",
        String::from_utf8_lossy(&rewound.stderr)
    );
    let report: Value = serde_json::from_slice(&rewound.stdout).unwrap();
    assert_eq!(report["to"], to);
    assert_eq!(report["files"].as_array().unwrap().len(), 6, "{report}");
    assert_eq!(listing(env.ws()), at_to);
    assert!(
        !env.ws().join("build").exists(),
        "the folders the command made go"
    );
    let events = env.events_of(&run_id);
    assert!(events
        .iter()
        .any(|e| e["payload"]["type"] == "rewind_started"));
    let timeline = env.bearagent(&["events", &run_id]);
    let timeline = String::from_utf8_lossy(&timeline.stdout);
    assert!(
        timeline.contains(&format!("rewound the files to event {to} (6 files)")),
        "{timeline}"
    );

    let redone = env.bearagent(&["rewind", &run_id, "--redo"]);
    assert!(
        redone.status.success(),
        "{}",
        String::from_utf8_lossy(&redone.stderr)
    );
    assert!(String::from_utf8_lossy(&redone.stdout).contains("redid the rewind"));
    assert_eq!(listing(env.ws()), end);
    let again = env.bearagent(&["rewind", &run_id, "--redo"]);
    assert_eq!(again.status.code(), Some(1), "a conflict: nothing to redo");
}

#[test]
fn a_file_changed_since_blocks_the_rewind_by_name_and_nothing_moves() {
    let env = support::env();
    let r = env.run(
        json!([
            support::write("a.txt", "run\n"),
            support::write("b.txt", "run\n"),
            {"final_answer": "done"}
        ]),
        &["--approve", "all"],
        "write two files",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let run_id = r.run_id();
    env.write("b.txt", "mine\n");
    let refused = env.bearagent(&["rewind", &run_id, "--to", "0"]);
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("b.txt") && err.contains("nothing was touched"),
        "{err}"
    );
    assert_eq!(env.read("a.txt").as_deref(), Some("run\n"));
    let forced = env.bearagent(&["rewind", &run_id, "--to", "0", "--force"]);
    assert!(forced.status.success());
    assert_eq!((env.read("a.txt"), env.read("b.txt")), (None, None));
    let bad = env.bearagent(&["rewind", &run_id]);
    assert_eq!(bad.status.code(), Some(2), "--to or --redo");
}

/// The safety net: what git ignores but existed before a command comes
/// back; whole dependency trees are left out, and saying so.
#[test]
fn an_ignored_env_file_deleted_by_a_command_comes_back_and_a_removed_dependency_tree_is_named() {
    let env = support::env();
    env.write(".gitignore", ".env\nnode_modules/\ndist/\n");
    env.write(".env", "API_TOKEN=keep-me\n");
    env.write("main.py", "print(1)\n");
    env.write("node_modules/left-pad/index.js", "module.exports = 1\n");
    let r = env.run(
        json!([
            cmd("rm -f .env main.py && rm -rf node_modules && echo built > app.log && mkdir dist && printf 12345 > dist/a.js && printf 123 > dist/b.js"),
            {"final_answer": "cleaned"}
        ]),
        &["--approve", "all"],
        "clean up",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let run_id = r.run_id();
    let changes = env.bearagent(&["changes", &run_id, "--json"]);
    let changes: Value = serde_json::from_slice(&changes.stdout).unwrap();
    let listed = changes.to_string();
    assert!(
        listed.contains("\".env\"") && listed.contains("main.py"),
        "{listed}"
    );
    let events = env.events_of(&run_id);
    let finished = events
        .iter()
        .find(|e| e["payload"]["type"] == "command_finished")
        .unwrap();
    assert_eq!(
        finished["payload"]["not_tracked"],
        json!([
            {"path": "dist/", "why": "dependencies", "change": "made",
             "size": {"files": 2, "bytes": 8, "at_least": false}},
            {"path": "node_modules/", "why": "dependencies", "change": "removed"}
        ])
    );
    assert_eq!(changes["not_tracked"][0]["path"], "dist/");
    assert_eq!(changes["not_tracked"][0]["size"]["files"], 2);
    let human = env.bearagent(&["changes", &run_id]);
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(
        human.contains("not restorable (not tracked):")
            && human.contains("  dist/ made by `rm -f .env main.py")
            && human.contains("— dependencies or caches, 2 files, 8 bytes")
            && human.contains("  node_modules/ removed by `rm -f"),
        "{human}"
    );
    let timeline = env.bearagent(&["events", &run_id]);
    let timeline = String::from_utf8_lossy(&timeline.stdout);
    assert!(
        timeline.contains(
            "not tracked, so not restorable: dist/ made (dependencies or caches, 2 files, 8 bytes), \
             node_modules/ removed (dependencies or caches)"
        ),
        "{timeline}"
    );
    let reverted = env.bearagent(&["revert", &run_id]);
    assert!(
        reverted.status.success(),
        "{}",
        String::from_utf8_lossy(&reverted.stderr)
    );
    assert_eq!(env.read(".env").as_deref(), Some("API_TOKEN=keep-me\n"));
    assert_eq!(env.read("main.py").as_deref(), Some("print(1)\n"));
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every file with its mode and content hash.
fn listing_with_modes(root: &Path) -> Vec<(String, u32, String)> {
    listing(root)
        .into_iter()
        .map(|(rel, hash)| (rel.clone(), mode_of(&root.join(&rel)), hash))
        .collect()
}

#[test]
fn rewind_revert_and_redo_put_modes_back_as_well_as_content() {
    let env = support::env();
    env.write("run.sh", "#!/bin/sh\necho run\n");
    env.write("tool.sh", "#!/bin/sh\necho tool\n");
    set_mode(&env.ws().join("run.sh"), 0o755);
    set_mode(&env.ws().join("tool.sh"), 0o644);
    let start = listing_with_modes(env.ws());
    let r = env.run(
        json!([
            cmd("chmod +x tool.sh && rm run.sh && (umask 027; echo s > private.txt)"),
            {"final_answer": "done"}
        ]),
        &["--approve", "all"],
        "change modes",
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let run_id = r.run_id();
    let end = listing_with_modes(env.ws());
    assert_eq!(mode_of(&env.ws().join("tool.sh")), 0o755);
    assert_eq!(mode_of(&env.ws().join("private.txt")), 0o640);
    // A chmod alone is a change of the run.
    let changes = env.bearagent(&["changes", &run_id, "--json"]);
    assert!(String::from_utf8_lossy(&changes.stdout).contains("tool.sh"));

    let rewound = env.bearagent(&["rewind", &run_id, "--to", "0"]);
    assert!(
        rewound.status.success(),
        "{}",
        String::from_utf8_lossy(&rewound.stderr)
    );
    assert_eq!(
        listing_with_modes(env.ws()),
        start,
        "mode for mode, byte for byte"
    );
    let redone = env.bearagent(&["rewind", &run_id, "--redo"]);
    assert!(
        redone.status.success(),
        "{}",
        String::from_utf8_lossy(&redone.stderr)
    );
    assert_eq!(listing_with_modes(env.ws()), end);

    // Revert file by file does the same.
    let reverted = env.bearagent(&["revert", &run_id]);
    assert!(
        reverted.status.success(),
        "{}",
        String::from_utf8_lossy(&reverted.stderr)
    );
    assert_eq!(listing_with_modes(env.ws()), start);
}
