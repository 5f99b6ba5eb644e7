//! The network for one command: given a sandbox whose network is off and a
//! server on the host's loopback, when the user approves a command with the
//! network (or an `allow-network` rule decides it), then that command
//! reaches the server and the others do not.

use super::commands_tests::{cmd, start_with_rules};
use super::tests::{fixture, next_approval, Fixture};
use super::*;
use crate::{Decision, RunProfile};
use bearagent_kernel::{
    ApprovalScope, CommandRule, EventPayload, EventSeq, RuleDecision, RunStatus,
};
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpListener;

/// An HTTP server on the host's loopback answering every request with
/// `from-the-host`; its port. A sandbox without the network has its own
/// loopback and cannot reach it.
fn host_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 1024];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 13\r\n\r\nfrom-the-host");
        }
    });
    port
}

fn fetch(port: u16) -> String {
    format!("curl -sS --max-time 5 http://127.0.0.1:{port}/")
}

/// A run with `rules` whose profile keeps the network off (the default).
fn start(f: &Fixture, steps: serde_json::Value, rules: Vec<CommandRule>) -> RunId {
    assert!(
        !RunProfile::default().commands.network,
        "the default keeps the network off"
    );
    start_with_rules(f, steps, rules)
}

fn approve(network: bool, allow_prefix: Option<&str>) -> Decision {
    Decision {
        approve: true,
        scope: ApprovalScope::Once,
        reason: None,
        by: "user".into(),
        allow_prefix: allow_prefix.map(str::to_owned),
        network,
    }
}

/// Per command: whether it had the network, and what the model was told.
fn commands(f: &Fixture, run: RunId) -> Vec<(bool, String)> {
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let mut network = Vec::new();
    let mut results = Vec::new();
    for e in &events {
        match &e.payload {
            EventPayload::CommandStarted { network: n, .. } => network.push(*n),
            EventPayload::ToolCallCompleted { result, .. }
            | EventPayload::ToolCallFailed { result } => results.push(result.content.clone()),
            _ => {}
        }
    }
    network.into_iter().zip(results).collect()
}

fn rule(prefix: &str, decision: RuleDecision) -> CommandRule {
    CommandRule {
        prefix: prefix.into(),
        decision,
    }
}

#[tokio::test]
async fn approving_with_the_network_opens_it_for_that_command_only() {
    let f = fixture();
    let port = host_server();
    let mut rx = f.app.subscribe();
    let steps = json!([cmd(&fetch(port)), cmd(&fetch(port)), {"final_answer": "done"}]);
    let run = start(&f, steps, Vec::new());
    let first = next_approval(&mut rx).await;
    f.app
        .decide_approval(run, &first, approve(true, None))
        .unwrap();
    let second = next_approval(&mut rx).await;
    f.app
        .decide_approval(run, &second, approve(false, None))
        .unwrap();
    assert_eq!(
        f.app.wait_run(run).await.unwrap().status,
        RunStatus::Succeeded
    );
    let ran = commands(&f, run);
    assert_eq!(ran.len(), 2, "{ran:?}");
    assert!(ran[0].0, "the first command had the network");
    assert!(ran[0].1.contains("from-the-host"), "{}", ran[0].1);
    assert!(!ran[0].1.contains("network off"), "{}", ran[0].1);
    assert!(!ran[1].0, "the grant did not carry over");
    assert!(!ran[1].1.contains("from-the-host"), "{}", ran[1].1);
    assert!(
        ran[1].1.contains("network off in the sandbox"),
        "{}",
        ran[1].1
    );
    let granted: Vec<bool> = f
        .app
        .list_events(run, EventSeq(0), 1000)
        .unwrap()
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::ApprovalGranted { network, .. } => Some(*network),
            _ => None,
        })
        .collect();
    assert_eq!(granted, [true, false]);
}

#[tokio::test]
async fn an_allow_network_rule_runs_unasked_with_the_network_but_not_a_mixed_line() {
    let f = fixture();
    let port = host_server();
    let steps = json!([
        cmd(&fetch(port)),
        cmd(&format!("echo hi && {}", fetch(port))),
        {"final_answer": "done"}
    ]);
    let rules = vec![
        rule("curl", RuleDecision::AllowNetwork),
        rule("echo", RuleDecision::Allow),
    ];
    let run = start(&f, steps, rules);
    assert_eq!(
        f.app.wait_run(run).await.unwrap().status,
        RunStatus::Succeeded
    );
    let ran = commands(&f, run);
    assert!(ran[0].0 && ran[0].1.contains("from-the-host"), "{ran:?}");
    // `echo` is only allowed: the line as a whole does not get the network.
    assert!(!ran[1].0 && !ran[1].1.contains("from-the-host"), "{ran:?}");
}

#[tokio::test]
async fn a_prefix_approved_with_the_network_becomes_an_allow_network_rule_for_the_run() {
    let f = fixture();
    let port = host_server();
    let mut rx = f.app.subscribe();
    let steps = json!([cmd(&fetch(port)), cmd(&fetch(port)), {"final_answer": "done"}]);
    let run = start(&f, steps, Vec::new());
    let first = next_approval(&mut rx).await;
    f.app
        .decide_approval(run, &first, approve(true, Some("curl -sS")))
        .unwrap();
    assert_eq!(
        f.app.wait_run(run).await.unwrap().status,
        RunStatus::Succeeded
    );
    let ran = commands(&f, run);
    assert!(
        ran.iter()
            .all(|(n, out)| *n && out.contains("from-the-host")),
        "{ran:?}"
    );
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let asked = events
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::ApprovalRequested { .. }))
        .count();
    assert_eq!(asked, 1);
    let second_rule = events.iter().rev().find_map(|e| match &e.payload {
        EventPayload::CommandStarted { rule, .. } => Some(rule.clone()),
        _ => None,
    });
    assert_eq!(
        second_rule.as_deref(),
        Some("rule `curl -sS` → allow-network")
    );
}

#[tokio::test]
async fn the_network_cannot_go_with_a_denial() {
    let f = fixture();
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([cmd("true"), {"final_answer": "done"}]),
        Vec::new(),
    );
    let call = next_approval(&mut rx).await;
    let bad = Decision {
        approve: false,
        ..approve(true, None)
    };
    assert!(f.app.decide_approval(run, &call, bad).is_err());
    f.app.cancel_run(run).unwrap();
}
