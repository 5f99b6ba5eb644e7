//! MCP tools in runs, against the official reference server
//! (`@modelcontextprotocol/server-everything`). Given a config with the
//! server and a scripted model that calls its tools, when the run goes,
//! then these events, results and approvals.

use super::tests::{fixture, next_approval, types, Fixture};
use super::*;
use crate::{Decision, RunProfile, StartRun};
use bearagent_kernel::{ApprovalMode, ApprovalScope, EventPayload, EventSeq, RunStatus};
use bearagent_providers::ScriptedProvider;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

fn with_everything(f: &Fixture, extra: &str) {
    let bin = bearagent_mcp::testkit::everything_bin();
    let config = format!(
        "version = 1\n[mcp_servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n{extra}",
        bin.display().to_string()
    );
    std::fs::write(f._home.path().join("config.toml"), config).unwrap();
}

fn call(tool: &str, arguments: serde_json::Value) -> serde_json::Value {
    json!({"tool_call": {"tool_name": tool, "arguments": arguments}})
}

fn start(f: &Fixture, steps: serde_json::Value, mode: ApprovalMode) -> RunId {
    start_with(
        f,
        steps,
        RunProfile {
            approval_mode: mode,
            ..RunProfile::default()
        },
    )
}

fn start_with(f: &Fixture, steps: serde_json::Value, profile: RunProfile) -> RunId {
    f.app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "use the MCP tools".into(),
            profile,
            provider: Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap()),
            images: Vec::new(),
        })
        .unwrap()
}

async fn finished(f: &Fixture, run: RunId) -> bearagent_kernel::RunProjection {
    tokio::time::timeout(Duration::from_secs(60), f.app.wait_run(run))
        .await
        .expect("the run ends")
        .unwrap()
}

fn results(f: &Fixture, run: RunId) -> Vec<(bool, String)> {
    f.app
        .list_events(run, EventSeq(0), 1000)
        .unwrap()
        .into_iter()
        .filter_map(|e| {
            if let EventPayload::ToolCallCompleted { result, .. } = e.payload {
                Some((false, result.content))
            } else if let EventPayload::ToolCallFailed { result } = e.payload {
                Some((true, result.content))
            } else {
                None
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_and_get_sum_round_trip_and_the_server_and_its_tools_are_recorded() {
    let f = fixture();
    with_everything(&f, "");
    let run = start(
        &f,
        json!([
            call("everything__echo", json!({"message": "hello from the model"})),
            call("everything__get-sum", json!({"a": 2, "b": 40})),
            {"final_answer": "done"}
        ]),
        ApprovalMode::AskWrites,
    );
    let p = finished(&f, run).await;
    assert_eq!(p.status, RunStatus::Succeeded, "{:?}", results(&f, run));
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let Some(EventPayload::McpServerStarted {
        server,
        server_name,
        tools,
        ..
    }) = events
        .iter()
        .map(|e| &e.payload)
        .find(|p| matches!(p, EventPayload::McpServerStarted { .. }))
    else {
        panic!("no McpServerStarted in {:?}", types(&f.app, run));
    };
    assert_eq!(server, "everything");
    assert_eq!(server_name, "mcp-servers/everything");
    assert!(tools
        .iter()
        .any(|t| t.name == "everything__echo" && t.tool == "echo"));
    // Both read-only by their annotations: nothing asked in `reads` mode.
    assert!(!types(&f.app, run).contains(&"approval_requested"));
    let results = results(&f, run);
    assert!(results[0].1.contains("hello from the model"), "{results:?}");
    assert!(results[1].1.contains("42"), "{results:?}");
    assert!(!results[0].0 && !results[1].0);
    // "What the model saw" rebuilds the tool list from the events.
    let requested = events
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::ModelCallRequested { .. }))
        .map(|e| e.seq)
        .next_back()
        .unwrap();
    let seen = f.app.model_context(run, requested).unwrap().request;
    let names: Vec<&str> = seen.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"everything__get-sum"), "{names:?}");
    assert!(names.contains(&"read_file"), "{names:?}");
    let sum = seen
        .tools
        .iter()
        .find(|t| t.name == "everything__get-sum")
        .unwrap();
    assert!(sum.parameters.get("$schema").is_none());
    assert_eq!(sum.parameters["required"], json!(["a", "b"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_never_sees_bearagents_keys_or_the_users_environment() {
    let f = fixture();
    with_everything(&f, "env = { PASSED = \"on purpose\" }\n");
    std::env::set_var("OPENAI_API_KEY", "sk-must-not-leak-1234");
    std::env::set_var("BEARAGENT_TEST_PRIVATE", "private-value-5678");
    let run = start(
        &f,
        json!([call("everything__get-env", json!({})), {"final_answer": "done"}]),
        ApprovalMode::AskWrites,
    );
    let p = finished(&f, run).await;
    assert_eq!(p.status, RunStatus::Succeeded);
    let env = &results(&f, run)[0].1;
    assert!(env.contains("on purpose"), "{env}");
    assert!(env.contains("PATH"), "{env}");
    assert!(!env.contains("sk-must-not-leak-1234"), "{env}");
    assert!(!env.contains("OPENAI_API_KEY"), "{env}");
    assert!(!env.contains("private-value-5678"), "{env}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_running_tool_streams_progress_and_completes() {
    let f = fixture();
    with_everything(&f, "");
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([
            call("everything__trigger-long-running-operation", json!({"duration": 1, "steps": 3})),
            {"final_answer": "done"}
        ]),
        ApprovalMode::AskWrites,
    );
    let mut progress = String::new();
    // One waiter for the whole loop: it holds the run's task handle.
    let done = finished(&f, run);
    tokio::pin!(done);
    let p = loop {
        tokio::select! {
            ev = rx.recv() => {
                if let Ok(crate::live::LiveEvent::CommandOutput { run_id, text, .. }) = ev {
                    assert_eq!(run_id, run);
                    progress.push_str(&text);
                }
            }
            p = &mut done => break p,
        }
    };
    assert_eq!(p.status, RunStatus::Succeeded);
    while let Ok(ev) = rx.try_recv() {
        if let crate::live::LiveEvent::CommandOutput { text, .. } = ev {
            progress.push_str(&text);
        }
    }
    assert!(progress.contains("[1/3]"), "{progress:?}");
    assert!(progress.contains("[3/3]"), "{progress:?}");
    assert!(
        results(&f, run)[0]
            .1
            .contains("Long running operation completed"),
        "{:?}",
        results(&f, run)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_run_cancels_a_long_running_call_at_once() {
    let f = fixture();
    with_everything(&f, "");
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([
            call("everything__trigger-long-running-operation", json!({"duration": 30, "steps": 30})),
            {"final_answer": "never"}
        ]),
        ApprovalMode::AskWrites,
    );
    // Cancel once the server has reported progress, i.e. the call runs.
    loop {
        if let Ok(crate::live::LiveEvent::CommandOutput { .. }) = rx.recv().await {
            break;
        }
    }
    let began = std::time::Instant::now();
    f.app.cancel_run(run).unwrap();
    let p = finished(&f, run).await;
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "{:?}",
        began.elapsed()
    );
    assert_eq!(p.status, RunStatus::Cancelled);
    let results = results(&f, run);
    assert!(
        results[0].0 && results[0].1.contains("cancelled"),
        "{results:?}"
    );
    // An MCP call cancelled: replayed from the record, no server started.
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_not_marked_read_only_asks_and_a_profile_rule_decides() {
    let f = fixture();
    with_everything(&f, "");
    let mut rx = f.app.subscribe();
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AskWrites,
        ..RunProfile::default()
    };
    profile.mcp_rules.insert(
        "everything.get-sum".into(),
        bearagent_kernel::RuleDecision::Deny,
    );
    let run = start_with(
        &f,
        json!([
            call("everything__toggle-simulated-logging", json!({})),
            call("everything__get-sum", json!({"a": 1, "b": 2})),
            {"final_answer": "done"}
        ]),
        profile,
    );
    let asked = next_approval(&mut rx).await;
    let pending = f.app.get_run(run).unwrap().pending_approval.unwrap();
    assert!(
        pending
            .summary
            .contains("server everything does not mark `toggle-simulated-logging` read-only"),
        "{}",
        pending.summary
    );
    f.app
        .decide_approval(
            run,
            &asked,
            Decision {
                approve: true,
                scope: ApprovalScope::Once,
                reason: None,
                by: "user".into(),
                allow_prefix: None,
                network: false,
            },
        )
        .unwrap();
    let p = finished(&f, run).await;
    assert_eq!(p.status, RunStatus::Succeeded);
    let results = results(&f, run);
    assert!(!results[0].0, "{results:?}");
    assert!(results[1].0, "{results:?}");
    assert!(
        results[1]
            .1
            .contains("rule mcp_rules.\"everything.get-sum\" = deny"),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_is_reported_and_the_run_goes_on() {
    let f = fixture();
    std::fs::write(
        f._home.path().join("config.toml"),
        "version = 1\n[mcp_servers.broken]\ncommand = \"bearagent-no-such-program\"\n\
         [mcp_servers.secretive]\ncommand = \"node\"\nenv = { TOKEN = { env = \"BEARAGENT_UNSET_VAR_FOR_TEST\" } }\n",
    )
    .unwrap();
    let run = start(
        &f,
        json!([
            call("broken__anything", json!({})),
            call("list_dir", json!({})),
            {"final_answer": "done"}
        ]),
        ApprovalMode::AskWrites,
    );
    let p = finished(&f, run).await;
    assert_eq!(p.status, RunStatus::Succeeded);
    let reasons: Vec<(String, String)> = f
        .app
        .list_events(run, EventSeq(0), 1000)
        .unwrap()
        .into_iter()
        .filter_map(|e| {
            if let EventPayload::McpServerUnavailable { server, reason } = e.payload {
                Some((server, reason))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert_eq!(reasons[0].0, "broken");
    assert!(reasons[0].1.contains("not found"), "{reasons:?}");
    assert_eq!(reasons[1].0, "secretive");
    assert!(
        reasons[1].1.contains("BEARAGENT_UNSET_VAR_FOR_TEST"),
        "{reasons:?}"
    );
    let results = results(&f, run);
    assert!(
        results[0].0 && results[0].1.contains("unknown tool"),
        "{results:?}"
    );
    assert!(!results[1].0, "{results:?}");
}

/// Pids of processes whose environment carries `marker` (our server).
fn pids_with_env(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .map(|env| env.split(|b| *b == 0).any(|kv| kv == marker.as_bytes()))
                .unwrap_or(false)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_mid_call_is_reported_and_no_longer_offered() {
    let f = fixture();
    let marker = format!("BEARAGENT_TEST_MARKER={}", RunId::new());
    let (key, value) = marker.split_once('=').unwrap();
    with_everything(&f, &format!("env = {{ {key} = \"{value}\" }}\n"));
    let mut rx = f.app.subscribe();
    let run = start(
        &f,
        json!([
            call("everything__trigger-long-running-operation", json!({"duration": 30, "steps": 30})),
            call("list_dir", json!({})),
            {"final_answer": "went on without it"}
        ]),
        ApprovalMode::AskWrites,
    );
    // The call runs once progress arrives; then the server is killed.
    loop {
        if let Ok(crate::live::LiveEvent::CommandOutput { .. }) = rx.recv().await {
            break;
        }
    }
    let pids = pids_with_env(&marker);
    assert!(!pids.is_empty(), "the server's process was not found");
    for pid in pids {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    let p = finished(&f, run).await;
    assert_eq!(p.status, RunStatus::Succeeded);
    let results = results(&f, run);
    assert!(
        results[0].0 && results[0].1.contains("everything"),
        "{results:?}"
    );
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    assert!(events.iter().any(|e| matches!(
        &e.payload,
        EventPayload::McpServerUnavailable { server, .. } if server == "everything"
    )));
    // The next request no longer offers the server's tools.
    let last_request = events
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::ModelCallRequested { .. }))
        .map(|e| e.seq)
        .next_back()
        .unwrap();
    let seen = f.app.model_context(run, last_request).unwrap().request;
    assert!(!seen
        .tools
        .iter()
        .any(|t| t.name.starts_with("everything__")));
    assert!(seen.tools.iter().any(|t| t.name == "list_dir"));
}

/// Starts a run whose model is `provider` (kept by the caller to read
/// what the model was sent).
fn start_seen(f: &Fixture, provider: Arc<dyn bearagent_providers::ModelProvider>) -> RunId {
    f.app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "look at the picture".into(),
            profile: RunProfile {
                approval_mode: ApprovalMode::AllowAll,
                ..RunProfile::default()
            },
            provider,
            images: Vec::new(),
        })
        .unwrap()
}

fn tiny_image_steps() -> String {
    json!([call("everything__get-tiny-image", json!({})), {"final_answer": "seen"}]).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_a_tool_returns_reaches_a_vision_model_as_an_image_and_a_text_model_as_a_note() {
    let f = fixture();
    with_everything(&f, "");
    let seeing = ScriptedProvider::from_json(&tiny_image_steps()).unwrap();
    let run = start_seen(&f, Arc::new(seeing.clone()));
    assert_eq!(finished(&f, run).await.status, RunStatus::Succeeded);
    let events = f.app.list_events(run, EventSeq(0), 1000).unwrap();
    let image = events
        .iter()
        .find_map(|e| match &e.payload {
            EventPayload::ToolCallCompleted { result, .. } => result.images.first().cloned(),
            _ => None,
        })
        .expect("the tool's image is recorded on its result");
    assert_eq!(image.media_type, bearagent_kernel::ImageType::Png);
    assert_eq!(image.name, "everything image 1");
    let second = &seeing.calls()[1];
    let sent = second
        .history
        .iter()
        .find_map(|item| match item {
            bearagent_kernel::HistoryItem::ToolResult(r) => Some(r),
            _ => None,
        })
        .unwrap();
    assert_eq!(sent.images, vec![image.clone()]);
    assert!(second.images[&image.blob].starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(f.app.run_image(run, &image.blob).unwrap().image, image);

    // A model that does not read images is told the image was there.
    let blind = ScriptedProvider::from_json(&tiny_image_steps())
        .unwrap()
        .without_vision();
    let run = start_seen(&f, Arc::new(blind.clone()));
    assert_eq!(finished(&f, run).await.status, RunStatus::Succeeded);
    let second = &blind.calls()[1];
    assert!(second.images.is_empty());
    let told = serde_json::to_string(&*second.history).unwrap();
    assert!(
        told.contains("not shown: this model does not read images"),
        "{told}"
    );
}
