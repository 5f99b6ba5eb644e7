//! Commands through the application API. Given a scripted model that runs
//! commands, when the user decides, then these events and files.

use super::tests::{fixture, next_approval, types, Fixture};
use super::*;
use crate::{Decision, RunProfile, StartRun};
use bearagent_kernel::{
    ApprovalMode, ApprovalScope, CommandRule, EventPayload, EventSeq, RuleDecision, RunStatus,
};
use bearagent_providers::ScriptedProvider;
use serde_json::json;
use std::sync::Arc;

pub(super) fn cmd(command: &str) -> serde_json::Value {
    json!({"tool_call": {"tool_name": "run_command", "arguments": {"command": command}}})
}

pub(super) fn start_with_rules(
    f: &Fixture,
    steps: serde_json::Value,
    rules: Vec<CommandRule>,
) -> RunId {
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AskWrites,
        ..RunProfile::default()
    };
    profile.commands.rules = rules;
    f.app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "goal".into(),
            profile,
            provider: Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap()),
            images: Vec::new(),
        })
        .unwrap()
}

fn deny(prefix: &str) -> CommandRule {
    CommandRule {
        prefix: prefix.into(),
        decision: RuleDecision::Deny,
    }
}

#[tokio::test]
async fn always_allowing_a_prefix_lets_later_commands_run_unasked_but_never_past_a_deny() {
    let f = fixture();
    std::fs::write(f.ws.path().join("victim.txt"), "keep").unwrap();
    let mut rx = f.app.subscribe();
    let steps = json!([
        cmd("echo one"),
        cmd("echo two"),
        cmd("echo three && rm victim.txt"),
        {"final_answer": "done"}
    ]);
    let run = start_with_rules(&f, steps, vec![deny("rm")]);
    let call = next_approval(&mut rx).await;
    let p = f.app.get_run(run).unwrap();
    let summary = p.pending_approval.unwrap().summary;
    assert!(summary.contains("sandboxed, no network"), "{summary}");
    assert!(summary.contains("no rule matches `echo one`"), "{summary}");
    // A prefix with shell syntax is refused before anything is decided.
    let bad = Decision {
        approve: true,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: Some("echo; rm".into()),
        network: false,
    };
    assert!(f.app.decide_approval(run, &call, bad).is_err());
    let good = Decision {
        approve: true,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: Some("echo".into()),
        network: false,
    };
    f.app.decide_approval(run, &call, good).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    let t = types(&f.app, run);
    assert_eq!(t.iter().filter(|t| **t == "approval_requested").count(), 1);
    assert_eq!(t.iter().filter(|t| **t == "command_started").count(), 2);
    assert_eq!(
        std::fs::read_to_string(f.ws.path().join("victim.txt")).unwrap(),
        "keep"
    );
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let granted = events.iter().find_map(|e| {
        if let EventPayload::ApprovalGranted { allowed_prefix, .. } = &e.payload {
            Some(allowed_prefix.clone())
        } else {
            None
        }
    });
    assert_eq!(granted, Some(Some("echo".to_owned())));
    let rules: Vec<String> = events
        .iter()
        .filter_map(|e| {
            if let EventPayload::CommandStarted { rule, .. } = &e.payload {
                Some(rule.clone())
            } else {
                None
            }
        })
        .collect();
    assert!(rules[1].contains("rule `echo` → allow"), "{rules:?}");
}

#[tokio::test]
async fn a_command_s_output_is_stored_and_its_files_become_artifacts() {
    let f = fixture();
    std::fs::write(f.ws.path().join("old.txt"), "old").unwrap();
    let steps = json!([
        cmd("for i in 1 2 3 4 5; do echo line; done; echo new > new.txt; rm old.txt; exit 2"),
        {"final_answer": "done"}
    ]);
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        ..RunProfile::default()
    };
    profile.commands.rules = vec![];
    let run = f
        .app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "goal".into(),
            profile,
            provider: Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap()),
            images: Vec::new(),
        })
        .unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let (call_id, exit_code, changed) = events
        .iter()
        .find_map(|e| {
            if let EventPayload::CommandFinished {
                call_id,
                exit_code,
                changed_files,
                ..
            } = &e.payload
            {
                Some((call_id.clone(), *exit_code, *changed_files))
            } else {
                None
            }
        })
        .unwrap();
    assert_eq!((exit_code, changed), (Some(2), 2));
    let output = f.app.command_output(run, call_id.as_str()).unwrap();
    assert_eq!(String::from_utf8(output).unwrap(), "line\n".repeat(5));
    assert!(f.app.command_output(run, "no-such-call").is_err());
    let artifacts: Vec<String> = f
        .app
        .artifacts(run)
        .unwrap()
        .into_iter()
        .map(|a| a.record.path)
        .collect();
    assert_eq!(artifacts, ["new.txt", "old.txt"]);
    // The model was told the exit code and saw the output.
    let failed = events.iter().find_map(|e| {
        if let EventPayload::ToolCallFailed { result } = &e.payload {
            Some(result.content.clone())
        } else {
            None
        }
    });
    assert!(failed.unwrap().starts_with("exit code 2"));
}

#[tokio::test]
async fn cancelling_a_run_stops_its_running_command() {
    let f = fixture();
    let steps = json!([cmd("sleep 30"), {"final_answer": "never"}]);
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        ..RunProfile::default()
    };
    profile.commands.max_timeout_secs = 60;
    let mut rx = f.app.subscribe();
    let run = f
        .app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "goal".into(),
            profile,
            provider: Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap()),
            images: Vec::new(),
        })
        .unwrap();
    loop {
        if let crate::LiveEvent::Committed(e) = rx.recv().await.unwrap() {
            if matches!(e.payload, EventPayload::CommandStarted { .. }) {
                break;
            }
        }
    }
    let started = std::time::Instant::now();
    f.app.cancel_run(run).unwrap();
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Cancelled);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let t = types(&f.app, run);
    assert!(t.contains(&"command_finished"), "{t:?}");
    // Cancelled mid-command, it replays to the same end.
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}

#[tokio::test]
async fn event_pages_say_exactly_whether_more_follow() {
    let f = fixture();
    let steps = json!([{"final_answer": "done"}]);
    let run = start_with_rules(&f, steps, vec![]);
    let p = f.app.wait_run(run).await.unwrap();
    let total = p.last_seq.0;
    assert!(total > 3);
    // A page that ends exactly at the last event: nothing more.
    let (events, more) = f.app.event_page(run, EventSeq(0), total as u32).unwrap();
    assert_eq!((events.len() as u64, more), (total, false));
    let (_, more) = f
        .app
        .event_page(run, EventSeq(0), (total - 1) as u32)
        .unwrap();
    assert!(more);
    // A limit beyond the store's page cap is capped, and still exact.
    let (events, more) = f.app.event_page(run, EventSeq(1), u32::MAX).unwrap();
    assert_eq!((events.len() as u64, more), (total - 1, false));
    let (events, more) = f.app.event_page(run, EventSeq(total), 10).unwrap();
    assert!(events.is_empty() && !more);
}

/// The Markdown export of a run with a price, a command and a file it
/// wrote, pinned as a snapshot (ids, times and temp paths filtered).
#[tokio::test]
async fn the_markdown_export_reads_as_expected() {
    let f = fixture();
    let steps = json!([
        {"tool_call": {"tool_name": "run_command", "arguments": {"command": "echo made > made.txt; echo done"}},
         "usage": {"input": 1000, "output": 100}},
        {"final_answer": "Made made.txt.", "usage": {"input": 1200, "output": 20}}
    ]);
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AllowAll,
        ..RunProfile::default()
    };
    profile.commands.rules = vec![CommandRule {
        prefix: "echo".into(),
        decision: RuleDecision::Allow,
    }];
    let price = bearagent_kernel::Price::from_usd_per_mtok(3.0, 15.0, None).unwrap();
    let provider = ScriptedProvider::from_json(&steps.to_string())
        .unwrap()
        .with_price(price);
    let run = f
        .app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "make a file".into(),
            profile,
            provider: Arc::new(provider),
            images: Vec::new(),
        })
        .unwrap();
    f.app.wait_run(run).await.unwrap();
    let out = tempfile::tempdir().unwrap();
    let exported = f.app.export_run(run, out.path()).unwrap();
    let md = std::fs::read_to_string(&exported.markdown).unwrap();
    let ws = f.ws.path().display().to_string();
    insta::with_settings!({filters => vec![
        (ws.as_str(), "[workspace]"),
        (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "[id]"),
        (r"\d+ ms", "[n] ms"),
    ]}, {
        insta::assert_snapshot!(md);
    });
}
