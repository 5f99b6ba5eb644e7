//! Given a run with files and a secret-looking one, when it is exported as
//! a bundle and imported into another data folder, then the runs and
//! their blobs are the same there, read-only but forkable; and bad
//! bundles change nothing.

use super::*;
use crate::bundle::BUNDLE_EXTENSION;
use crate::{RunProfile, StartRun};
use bearagent_kernel::{ApprovalMode, EventSeq, RunId};
use bearagent_providers::ScriptedProvider;
use serde_json::json;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

use crate::test_support::{temp_app as side, TempApp as Side};

const SECRET: &str = "sk-planted-secret-9a8b7c";

async fn finished_run(s: &Side, steps: serde_json::Value) -> RunId {
    let run = s
        .app
        .start_run(StartRun {
            workspace: s.ws.path().display().to_string(),
            goal: "write the files".into(),
            profile: RunProfile {
                approval_mode: ApprovalMode::AllowAll,
                ..RunProfile::default()
            },
            provider: Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap()),
            images: Vec::new(),
        })
        .unwrap();
    s.app.wait_run(run).await.unwrap();
    run
}

fn write(path: &str, content: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "write_file", "arguments": {"path": path, "content": content}}})
}

fn unpacked(file: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(file).unwrap())
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[tokio::test]
async fn a_bundle_imports_into_another_store_as_the_same_read_only_runs() {
    let a = side();
    // Planted: a secret in the workspace's .env (which the run edits
    // without quoting it) and one in the environment its commands get.
    std::fs::write(a.ws.path().join(".env"), format!("KEY={SECRET}\nDEBUG=0\n")).unwrap();
    let edit_env = json!({"tool_call": {"tool_name": "edit_file", "arguments": {"path": ".env", "old_string": "DEBUG=0", "new_string": "DEBUG=1"}}});
    let first = finished_run(
        &a,
        json!([write("calc.py", "x = 1\n"), edit_env, {"final_answer": "done"}]),
    )
    .await;
    let follow = a
        .app
        .start_follow_up(
            StartRun {
                workspace: String::new(),
                goal: "and more".into(),
                profile: RunProfile {
                    approval_mode: ApprovalMode::AllowAll,
                    ..RunProfile::default()
                },
                provider: Arc::new(
                    ScriptedProvider::from_json(
                        &json!([write("b.txt", "b\n"), {"final_answer": "more"}]).to_string(),
                    )
                    .unwrap(),
                ),
                images: Vec::new(),
            },
            crate::ThreadStart {
                run_id: first,
                at: None,
            },
        )
        .unwrap();
    a.app.wait_run(follow).await.unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join(format!("run.{BUNDLE_EXTENSION}"));
    let manifest = a
        .app
        .export_bundle(follow, &file, ExportOptions::default())
        .unwrap();
    assert_eq!(manifest.runs, [first.to_string(), follow.to_string()]);
    assert_eq!(
        manifest.withheld_blobs.len(),
        2,
        "the .env versions are withheld"
    );
    let bytes = unpacked(&file);
    assert!(
        !String::from_utf8_lossy(&bytes).contains(SECRET),
        "no secret in the bundle"
    );

    let b = side();
    let report = b.app.import_bundle(&file).unwrap();
    assert_eq!(report.run_id, follow);
    assert_eq!(report.added, [first, follow]);
    for run in [first, follow] {
        assert_eq!(
            a.app.store.all_events(run).unwrap(),
            b.app.store.all_events(run).unwrap()
        );
        assert_eq!(a.app.get_run(run).unwrap(), b.app.get_run(run).unwrap());
    }
    read_only_but_forkable(&b, follow).await;

    // Importing again: the same runs are already there, nothing is added.
    assert!(b.app.import_bundle(&file).unwrap().added.is_empty());
}

/// An imported run: no follow-up; a fork into a workspace here works.
async fn read_only_but_forkable(b: &Side, follow: RunId) {
    let ended = ScriptedProvider::from_json("[{\"final_answer\": \"forked\"}]").unwrap();
    let start = |ws: String| StartRun {
        workspace: ws,
        goal: "go on".into(),
        profile: RunProfile::default(),
        provider: Arc::new(ScriptedProvider::from_json("[{\"final_answer\": \"x\"}]").unwrap()),
        images: Vec::new(),
    };
    let refused = b.app.start_follow_up(
        start(String::new()),
        crate::ThreadStart {
            run_id: follow,
            at: None,
        },
    );
    assert!(refused.unwrap_err().to_string().contains("read-only"));
    // With no workspace named, the fork works in the one open here.
    b.app
        .open_workspace(&b.ws.path().display().to_string())
        .unwrap();
    let fork = b
        .app
        .start_follow_up(
            StartRun {
                provider: Arc::new(ended),
                ..start(String::new())
            },
            crate::ThreadStart {
                run_id: follow,
                at: Some(EventSeq(3)),
            },
        )
        .unwrap();
    b.app.wait_run(fork).await.unwrap();
    assert_eq!(
        b.app.get_run(fork).unwrap().final_answer.as_deref(),
        Some("forked")
    );
    assert!(b.app.store.imported(fork).unwrap().is_none());
    let here = b.ws.path().canonicalize().unwrap().display().to_string();
    assert_eq!(b.app.get_run(fork).unwrap().workspace_path, here);
}

/// A bundle made of `entries` (name, bytes), gzip'd.
fn bundle_of(dir: &Path, entries: &[(&str, Vec<u8>)]) -> std::path::PathBuf {
    write_bundle(dir.join("bad.bearagent-run"), entries, None)
}

/// Writes `entries` and then, if given, a lone header (no content).
fn write_bundle(
    path: std::path::PathBuf,
    entries: &[(&str, Vec<u8>)],
    lone_header: Option<tar::Header>,
) -> std::path::PathBuf {
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).unwrap(),
        flate2::Compression::fast(),
    );
    let mut tar = tar::Builder::new(gz);
    for (name, bytes) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        // Raw name bytes: set_path would refuse `..`.
        let raw = &mut header.as_old_mut().name;
        raw[..name.len()].copy_from_slice(name.as_bytes());
        header.set_cksum();
        tar.append(&header, bytes.as_slice()).unwrap();
    }
    // Only a header: the reader must refuse it before reading on.
    if let Some(header) = lone_header {
        tar.get_mut().write_all(header.as_bytes()).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap().flush().unwrap();
    path
}

#[tokio::test]
async fn bad_bundles_are_refused_with_a_clear_error_and_change_nothing() {
    let a = side();
    let run = finished_run(
        &a,
        json!([write("calc.py", "x = 1\n"), {"final_answer": "done"}]),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.bearagent-run");
    a.app
        .export_bundle(run, &good, ExportOptions::default())
        .unwrap();
    // Unpack the good bundle's entries to build bad ones from.
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(
        std::fs::File::open(&good).unwrap(),
    ));
    for e in archive.entries().unwrap() {
        let mut e = e.unwrap();
        let name = e.path().unwrap().display().to_string();
        let mut bytes = Vec::new();
        e.read_to_end(&mut bytes).unwrap();
        entries.push((name, bytes));
    }
    let without = |f: &dyn Fn(&str) -> bool| -> Vec<(&str, Vec<u8>)> {
        entries
            .iter()
            .filter(|(n, _)| !f(n))
            .map(|(n, b)| (n.as_str(), b.clone()))
            .collect()
    };
    let b = side();
    let refused = |path: &Path, expect: &str| {
        let error = match b.app.import_bundle(path) {
            Ok(report) => panic!("{} was imported: {report:?}", path.display()),
            Err(e) => e.to_string(),
        };
        assert!(error.contains(expect), "{expect:?} not in {error:?}");
        assert!(
            b.app.store.all_events(run).unwrap().is_empty(),
            "nothing imported"
        );
    };

    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.path().join("cut.bearagent-run");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    refused(&cut, "not a readable BearAgent run bundle");

    let no_blob = bundle_of(dir.path(), &without(&|n| n.starts_with("blobs/")));
    refused(&no_blob, "is missing");

    let mut traversal = without(&|_| false);
    traversal.push(("../../evil.sh", b"rm -rf ~".to_vec()));
    refused(
        &bundle_of(dir.path(), &traversal),
        "has an entry named \"../../evil.sh\"",
    );

    let mut newer = without(&|n| n == "manifest.json");
    let manifest = entries.iter().find(|(n, _)| n == "manifest.json").unwrap();
    let mut m: serde_json::Value = serde_json::from_slice(&manifest.1).unwrap();
    m["version"] = json!(BUNDLE_VERSION + 1);
    newer.push(("manifest.json", serde_json::to_vec(&m).unwrap()));
    refused(
        &bundle_of(dir.path(), &newer),
        "newer than this BearAgent reads",
    );

    let mut newer_events = without(&|n| n.starts_with("runs/"));
    let (log_name, log) = entries
        .iter()
        .find(|(n, _)| n.starts_with("runs/"))
        .unwrap();
    let log = String::from_utf8(log.clone())
        .unwrap()
        .replace("\"schema_version\":1", "\"schema_version\":9");
    newer_events.push((log_name.as_str(), log.into_bytes()));
    refused(&bundle_of(dir.path(), &newer_events), "events of schema 9");

    refused(
        &huge_entry(dir.path(), &without(&|_| false)),
        "more than the",
    );

    // A good bundle still imports after all that.
    assert_eq!(b.app.import_bundle(&good).unwrap().added, [run]);
}

/// The bundle's entries and then a 10 GB entry's header: refused by the
/// header before anything is read.
fn huge_entry(dir: &Path, entries: &[(&str, Vec<u8>)]) -> std::path::PathBuf {
    let mut header = tar::Header::new_gnu();
    header
        .set_path(format!("blobs/{}", "a".repeat(64)))
        .unwrap();
    header.set_size(10 * 1024 * 1024 * 1024);
    header.set_mode(0o644);
    header.set_cksum();
    write_bundle(dir.join("huge.bearagent-run"), entries, Some(header))
}
