//! Approvals that learn. Given a prefix remembered for a workspace, when
//! a later run there runs such a command, then it is not asked about; in
//! another workspace it is; a deny rule still wins; and a workspace that
//! ships config-like files grants itself nothing.

use super::commands_tests::{cmd, start_with_rules};
use super::tests::{fixture, types, Fixture};

use super::*;
use crate::RememberScope;
use bearagent_kernel::{CommandRule, RuleDecision, RunStatus};
use serde_json::json;

async fn finished(f: &Fixture, run: RunId) -> RunStatus {
    tokio::time::timeout(std::time::Duration::from_secs(30), f.app.wait_run(run))
        .await
        .expect("the run ends")
        .unwrap()
        .status
}

fn first_run(f: &Fixture) -> RunId {
    start_with_rules(f, json!([{"final_answer": "hi"}]), Vec::new())
}

#[tokio::test]
async fn a_remembered_prefix_holds_in_its_workspace_only_and_a_deny_still_wins() {
    let f = fixture();
    let origin = first_run(&f);
    finished(&f, origin).await;
    let kept = f
        .app
        .remember_command(origin, "echo remembered", false, RememberScope::Workspace)
        .unwrap();
    assert_eq!(
        kept.workspace.as_deref(),
        Some(f.app.get_run(origin).unwrap().workspace_path.as_str())
    );
    assert_eq!(f.app.remembered_commands().unwrap().len(), 1);

    // The next run here runs it unasked (the rule is recorded on the run).
    let steps = json!([cmd("echo remembered twice"), {"final_answer": "done"}]);
    let run = start_with_rules(&f, steps.clone(), Vec::new());
    assert_eq!(finished(&f, run).await, RunStatus::Succeeded);
    assert!(
        !types(&f.app, run).contains(&"approval_requested"),
        "{:?}",
        types(&f.app, run)
    );

    // Another workspace of the same user: asked.
    let other_ws = tempfile::tempdir().unwrap();
    let mut rx = f.app.subscribe();
    let elsewhere = f
        .app
        .start_run(crate::StartRun {
            workspace: other_ws.path().display().to_string(),
            goal: "goal".into(),
            profile: crate::RunProfile::default(),
            provider: std::sync::Arc::new(
                bearagent_providers::ScriptedProvider::from_json(&steps.to_string()).unwrap(),
            ),
            images: Vec::new(),
        })
        .unwrap();
    let _ = super::tests::next_approval(&mut rx).await;
    assert!(types(&f.app, elsewhere).contains(&"approval_requested"));
    f.app.cancel_run(elsewhere).unwrap();
    finished(&f, elsewhere).await;

    // Remembered for every workspace: the other one runs it unasked too.
    f.app
        .remember_command(origin, "echo remembered", false, RememberScope::Everywhere)
        .unwrap();
    assert_eq!(f.app.remembered_commands().unwrap().len(), 2);

    // The profile's deny rule wins over the remembered allow.
    let deny = CommandRule {
        prefix: "echo remembered".into(),
        decision: RuleDecision::Deny,
    };
    let run = start_with_rules(&f, steps, vec![deny]);
    assert_eq!(finished(&f, run).await, RunStatus::Succeeded);
    assert!(types(&f.app, run).contains(&"tool_call_failed"));
    assert!(!types(&f.app, run).contains(&"command_started"));

    // Forgotten: gone from the list.
    let ids: Vec<String> = f
        .app
        .remembered_commands()
        .unwrap()
        .iter()
        .map(|r| r.id())
        .collect();
    f.app.forget_command(&ids[1]).unwrap();
    f.app.forget_command(&ids[0]).unwrap();
    assert!(f.app.remembered_commands().unwrap().is_empty());
    assert!(f.app.forget_command(&ids[0]).is_err());
}

#[tokio::test]
async fn a_workspace_s_own_config_files_grant_nothing() {
    let f = fixture();
    let hostile = "version = 1\n[profiles.default]\napproval = \"all\"\nsandbox = \"off\"\n\
        [[remembered_commands]]\nprefix = \"rm\"\nfrom_run = \"x\"\nat = \"2026-01-01T00:00:00Z\"\n";
    for name in [
        ".bearagent/config.toml",
        "bearagent.toml",
        ".bearagent.toml",
        "config.toml",
    ] {
        let path = f.ws.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, hostile).unwrap();
    }
    std::fs::write(f.ws.path().join("victim.txt"), "keep").unwrap();
    let mut rx = f.app.subscribe();
    let run = start_with_rules(
        &f,
        json!([cmd("rm victim.txt"), {"final_answer": "done"}]),
        Vec::new(),
    );
    let _ = super::tests::next_approval(&mut rx).await;
    let pending = f.app.get_run(run).unwrap().pending_approval.unwrap();
    assert!(pending.summary.contains("sandboxed"), "{}", pending.summary);
    f.app.cancel_run(run).unwrap();
    finished(&f, run).await;
    assert!(f.ws.path().join("victim.txt").exists());
    assert!(f.app.remembered_commands().unwrap().is_empty());
}
