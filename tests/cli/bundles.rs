//! End-to-end: a run handed to someone else as one file. `export --bundle`
//! in one data folder, `import` in another: `inspect --json` is the same
//! there, the run is read-only (no follow-up), and it forks into a
//! workspace of the importer.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};

fn inspect(env: &support::Env, run: &str) -> Value {
    let out = env.bearagent(&["inspect", run, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn an_exported_bundle_imports_elsewhere_as_the_same_read_only_forkable_run() {
    let here = support::env();
    let run = here.run(
        json!([
            support::write("calc.py", "def add(a, b):\n    return a + b\n"),
            support::answer("done")
        ]),
        &["--approve", "all"],
        "write calc.py",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run_id = run.run_id();
    let file = here.scratch.path().join("run.bearagent-run");
    let file = file.to_str().unwrap();
    let out = here.bearagent(&["export", &run_id, "--bundle", file]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let there = support::env();
    let out = there.bearagent(&["import", file, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["run_id"], run_id.as_str());
    assert_eq!(inspect(&here, &run_id), inspect(&there, &run_id));
    assert_eq!(here.events_of(&run_id), there.events_of(&run_id));
    // Listed as imported there (from the bundle's file), not here; and it
    // replays there, where its workspace is on no disk.
    let listed = there.runs();
    let file_name = std::path::Path::new(file)
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    assert_eq!(listed[0]["imported_from"], file_name, "{listed:?}");
    assert_eq!(here.runs()[0]["imported_from"], Value::Null);
    let line = there.bearagent(&["runs"]);
    assert!(String::from_utf8_lossy(&line.stdout).contains("[imported]"));
    let only = there.json_lines(&["runs", "--imported", "--json"]);
    assert_eq!(only.len(), 1);
    assert!(here
        .json_lines(&["runs", "--imported", "--json"])
        .is_empty());
    let replay = there.bearagent(&["replay", &run_id]);
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stdout)
    );

    let script = there.script(json!([support::answer("more")]));
    let script = script.to_str().unwrap();
    let follow = there.bearagent(&["run", "--script", script, "--continue", &run_id, "and more"]);
    assert!(!follow.status.success());
    assert!(String::from_utf8_lossy(&follow.stderr).contains("read-only"));

    let ws = there.ws().to_str().unwrap();
    let fork = there.bearagent(&[
        "run",
        "--json",
        "--script",
        script,
        "--fork",
        &run_id,
        "--at",
        "3",
        "--workspace",
        ws,
        "--approve",
        "all",
        "go on",
    ]);
    assert!(
        fork.status.success(),
        "{}",
        String::from_utf8_lossy(&fork.stderr)
    );

    // A damaged bundle: refused, nothing added.
    let bytes = std::fs::read(file).unwrap();
    let cut = there.scratch.path().join("cut.bearagent-run");
    std::fs::write(&cut, &bytes[..bytes.len() - 20]).unwrap();
    let third = support::env();
    let out = third.bearagent(&["import", cut.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a readable BearAgent run bundle"),
        "{stderr}"
    );
    assert!(third.runs().is_empty());
}

/// Secrets planted where a run puts them: a `.env` read with `read_file`
/// and printed by `cat` (with a `.env.local` only `cat` reads), a provider
/// key (from the environment variable the config names) the model quotes,
/// a GitHub token in a tool argument.
const DB_PASSWORD: &str = "s3cr3t-db-pass-8f7e6d5c";
const STRIPE: &str = "rk_test_abcdefgh12345678";
/// Only in `.env.local`, which only a command prints.
const SESSION_SECRET: &str = "c0mmand-only-session-42";
const PROVIDER_KEY: &str = "pk-live-provider-value-5a4b3c2d1e";
const KEY_VARIABLE: &str = "BEARAGENT_REDACT_TEST_KEY";

fn github_token() -> String {
    format!("ghp_{}", "Zx9Q".repeat(9))
}

fn secrets() -> Vec<String> {
    vec![
        DB_PASSWORD.into(),
        STRIPE.into(),
        SESSION_SECRET.into(),
        PROVIDER_KEY.into(),
        github_token(),
    ]
}

/// Every file of the bundle, unpacked by `tar`, with its bytes.
fn unpacked(env: &support::Env, file: &str) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir_in(env.scratch.path()).unwrap();
    let status = std::process::Command::new("tar")
        .args(["xzf", file, "-C"])
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let mut out = Vec::new();
    let mut todo = vec![dir.path().to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let name = path.strip_prefix(dir.path()).unwrap().display().to_string();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    assert!(out.iter().any(|(n, _)| n == "manifest.json"), "{out:?}");
    out
}

fn holding<'a>(files: &'a [(String, Vec<u8>)], secret: &str) -> Vec<&'a str> {
    files
        .iter()
        .filter(|(_, bytes)| String::from_utf8_lossy(bytes).contains(secret))
        .map(|(n, _)| n.as_str())
        .collect()
}

fn manifest(files: &[(String, Vec<u8>)]) -> Value {
    let (_, bytes) = files.iter().find(|(n, _)| n == "manifest.json").unwrap();
    serde_json::from_slice(bytes).unwrap()
}

fn export(env: &support::Env, run_id: &str, file: &str, extra: &[&str]) -> std::process::Output {
    let out = env
        .command()
        .env(KEY_VARIABLE, PROVIDER_KEY)
        .args(["export", run_id, "--bundle", file])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn a_bundle_redacts_secrets_wherever_the_run_put_them_unless_asked_not_to() {
    let here = support::env();
    here.write(
        ".env",
        &format!("DB_PASSWORD={DB_PASSWORD}\nSTRIPE_KEY=\"{STRIPE}\"\nDEBUG=0\n"),
    );
    here.write(".env.local", &format!("SESSION_SECRET={SESSION_SECRET}\n"));
    std::fs::write(
        here.home.path().join("config.toml"),
        format!(
            "version = 1\n[providers.local]\nprotocol = \"openai-chat\"\n\
             base_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\nkey = {{ env = \"{KEY_VARIABLE}\" }}\n"
        ),
    )
    .unwrap();
    let token = github_token();
    let run = here.run(
        json!([
            support::read(".env"),
            {"tool_call": {"tool_name": "run_command", "arguments": {"command": "cat .env .env.local"}}},
            support::write("notes.txt", &format!("deploy with {token}\n")),
            support::answer(&format!("done; the provider key is {PROVIDER_KEY}"))
        ]),
        &["--approve", "all"],
        "read the settings",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run_id = run.run_id();
    // The run itself holds every secret in clear: the store is local.
    let recorded = serde_json::to_string(&here.events_of(&run_id)).unwrap();
    for secret in secrets() {
        assert!(recorded.contains(&secret), "{secret} was planted");
    }

    let file = here.scratch.path().join("redacted.bearagent-run");
    let file = file.to_str().unwrap();
    let out = export(&here, &run_id, file, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("5 values redacted ("), "{stdout}");
    let files = unpacked(&here, file);
    for secret in secrets() {
        assert!(
            holding(&files, &secret).is_empty(),
            "{secret} is in the bundle: {:?}",
            holding(&files, &secret)
        );
    }
    // The command's output and the written file are blobs: redacted
    // there too, under their new hashes.
    for marker in ["[REDACTED:env-file]", "[REDACTED:token:github]"] {
        let blobs = holding(&files, marker);
        assert!(
            blobs.iter().any(|n| n.starts_with("blobs/")),
            "{marker}: {blobs:?}"
        );
    }
    assert_eq!(
        manifest(&files)["redactions"],
        json!([
            {"kind": "env-file", "count": 3},
            {"kind": "provider-key", "count": 1},
            {"kind": "token:github", "count": 1}
        ])
    );

    // It imports (the renamed blobs check out) and says what was redacted.
    let there = support::env();
    let out = there.bearagent(&["import", file, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["redacted"], 5, "{report}");
    let human = support::env().bearagent(&["import", file]);
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(human.contains("5 values redacted"), "{human}");
    let imported = serde_json::to_string(&there.events_of(&run_id)).unwrap();
    assert!(imported.contains("[REDACTED:token:github]"), "{imported}");

    // Replayed there, the redaction is noted, not a divergence.
    let out = there.bearagent(&["replay", &run_id, "--json"]);
    let replay: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(replay["identical"], true, "{replay:#}");
    assert!(
        replay["notes"].to_string().contains("redacted"),
        "{replay:#}"
    );

    // Asked to, the bundle keeps them, with a warning.
    let clear = here.scratch.path().join("clear.bearagent-run");
    let clear = clear.to_str().unwrap();
    let out = export(&here, &run_id, clear, &["--include-secrets"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning"));
    let files = unpacked(&here, clear);
    for secret in secrets() {
        assert!(!holding(&files, &secret).is_empty(), "{secret} was kept");
    }
    assert_eq!(manifest(&files)["redactions"], json!([]));
}
