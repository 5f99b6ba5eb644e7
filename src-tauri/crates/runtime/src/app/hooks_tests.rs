//! Hooks in runs. Given the user's hooks (scripts in their hooks folder,
//! which the sandbox otherwise hides) or a workspace's, when a scripted
//! model acts, then the hooks decide, the model reads what they say, and
//! untrusted project hooks never run.

use super::commands_tests::cmd;
use super::tests::{fixture, types, Fixture};
use super::*;
use crate::{RunProfile, StartRun};
use bearagent_kernel::{ApprovalMode, EventPayload, HookDecision, HookEvent, RunStatus};
use bearagent_providers::ScriptedProvider;
use serde_json::json;

/// Writes `script` (Python) into the user's hooks folder and `hooks` (TOML
/// tables naming it as `{script}`) into their config file.
fn user_hook(f: &Fixture, name: &str, script: &str, hooks: &str) {
    let dir = f.app.config_path().parent().unwrap().join("hooks");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, script).unwrap();
    let config = format!(
        "version = 1\n{}",
        hooks.replace("{script}", &format!("python3 {}", path.display()))
    );
    std::fs::write(f.app.config_path(), config).unwrap();
}

fn start(f: &Fixture, steps: serde_json::Value) -> RunId {
    f.app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "goal".into(),
            profile: RunProfile {
                approval_mode: ApprovalMode::AllowAll,
                ..RunProfile::default()
            },
            provider: Arc::new(ScriptedProvider::from_json(&steps.to_string()).unwrap()),
            images: Vec::new(),
        })
        .unwrap()
}

async fn finished(f: &Fixture, run: RunId) -> bearagent_kernel::RunProjection {
    tokio::time::timeout(std::time::Duration::from_secs(60), f.app.wait_run(run))
        .await
        .expect("the run ends")
        .unwrap()
}

fn hook_runs(f: &Fixture, run: RunId) -> Vec<(HookEvent, HookDecision, Option<String>)> {
    f.app
        .list_events(run, bearagent_kernel::EventSeq(0), 1000)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.payload {
            EventPayload::HookRan {
                hook,
                decision,
                reason,
                ..
            } => Some((hook, decision, reason)),
            _ => None,
        })
        .collect()
}

fn results(f: &Fixture, run: RunId) -> Vec<String> {
    f.app
        .list_events(run, bearagent_kernel::EventSeq(0), 1000)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.payload {
            EventPayload::ToolCallCompleted { result, .. }
            | EventPayload::ToolCallFailed { result } => Some(result.content),
            _ => None,
        })
        .collect()
}

const NO_CURL: &str = r#"
import json, sys
data = json.load(sys.stdin)
if "curl" in data["tool_input"].get("command", ""):
    print("curl is not allowed in this project", file=sys.stderr)
    sys.exit(2)
"#;

#[tokio::test]
async fn a_pre_tool_use_hook_refuses_curl_with_its_reason_and_lets_the_rest_run() {
    let f = fixture();
    user_hook(
        &f,
        "no_curl.py",
        NO_CURL,
        "[[hooks.PreToolUse]]\nmatcher = \"run_command\"\ncommand = \"{script}\"\ntimeout_secs = 20\n",
    );
    let steps = json!([
        cmd("curl https://example.com"),
        cmd("echo allowed"),
        {"final_answer": "done"}
    ]);
    let run = start(&f, steps);
    assert_eq!(finished(&f, run).await.status, RunStatus::Succeeded);
    let hooks = hook_runs(&f, run);
    assert_eq!(hooks.len(), 2, "{hooks:?}");
    assert_eq!(hooks[0].1, HookDecision::Deny);
    assert_eq!(hooks[1].1, HookDecision::Proceed);
    let results = results(&f, run);
    assert_eq!(
        results[0],
        "refused by a PreToolUse hook: curl is not allowed in this project"
    );
    assert!(results[1].contains("allowed"), "{results:?}");
    assert!(results[1].contains("exit code 0"), "{results:?}");
}

#[tokio::test]
async fn a_post_tool_use_hook_sees_the_response_and_the_model_reads_its_feedback_after_the_results()
{
    let f = fixture();
    let script = r#"
import json, sys
data = json.load(sys.stdin)
if "hello-from-tool" in data["tool_response"]["content"]:
    print("saw " + data["tool_name"], file=sys.stderr)
    sys.exit(2)
"#;
    user_hook(
        &f,
        "post.py",
        script,
        "[[hooks.PostToolUse]]\ncommand = \"{script}\"\n",
    );
    std::fs::write(f.ws.path().join("a.txt"), "hello-from-tool\n").unwrap();
    let two_reads = json!({"tool_calls": [
        {"tool_name": "read_file", "arguments": {"path": "a.txt"}},
        {"tool_name": "list_dir", "arguments": {"path": "."}}
    ]});
    let run = start(&f, json!([two_reads, {"final_answer": "done"}]));
    assert_eq!(finished(&f, run).await.status, RunStatus::Succeeded);
    let hooks = hook_runs(&f, run);
    assert_eq!(hooks[0].1, HookDecision::Block, "{hooks:?}");
    assert_eq!(hooks[0].2.as_deref(), Some("saw read_file"));
    // The second model call reads both results, then the hook's word.
    let events = f
        .app
        .list_events(run, bearagent_kernel::EventSeq(0), 1000)
        .unwrap();
    let second = events
        .iter()
        .filter(|e| matches!(e.payload, EventPayload::ModelCallRequested { .. }))
        .nth(1)
        .unwrap()
        .seq;
    let history = f.app.model_context(run, second).unwrap().request.history;
    let tail: Vec<String> = history
        .iter()
        .rev()
        .take(3)
        .map(|item| format!("{item:?}"))
        .collect();
    assert!(
        tail[0].contains("[PostToolUse hook] saw read_file"),
        "{tail:?}"
    );
    assert!(tail[1].contains("ToolResult"), "{tail:?}");
    assert!(tail[2].contains("ToolResult"), "{tail:?}");
}

#[tokio::test]
async fn a_stop_hook_that_blocks_once_makes_the_run_take_one_more_turn() {
    let f = fixture();
    let script = r#"
import json, sys
data = json.load(sys.stdin)
if not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "also say goodbye"}))
"#;
    user_hook(
        &f,
        "stop.py",
        script,
        "[[hooks.Stop]]\ncommand = \"{script}\"\n",
    );
    let steps = json!([{"final_answer": "first"}, {"final_answer": "goodbye"}]);
    let run = start(&f, steps);
    let p = finished(&f, run).await;
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(p.final_answer.as_deref(), Some("goodbye"));
    let hooks = hook_runs(&f, run);
    let decisions: Vec<_> = hooks.iter().map(|h| h.1).collect();
    assert_eq!(decisions, [HookDecision::Block, HookDecision::Proceed]);
    assert_eq!(p.model_calls, 2);
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}

#[tokio::test]
async fn a_stop_hook_that_always_blocks_is_bounded() {
    let f = fixture();
    user_hook(
        &f,
        "never.py",
        "import sys\nprint('never done', file=sys.stderr)\nsys.exit(2)\n",
        "[[hooks.Stop]]\ncommand = \"{script}\"\n",
    );
    let answers: Vec<_> = (0..10)
        .map(|i| json!({"final_answer": format!("a{i}")}))
        .collect();
    let run = start(&f, json!(answers));
    let p = finished(&f, run).await;
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(
        p.model_calls as usize,
        crate::run::hook_step::MAX_STOP_BLOCKS + 1
    );
}

#[tokio::test]
async fn a_hook_that_hangs_is_killed_at_its_timeout_and_the_call_is_asked_about() {
    let f = fixture();
    user_hook(
        &f,
        "hang.py",
        "import time\ntime.sleep(120)\n",
        "[[hooks.PreToolUse]]\ncommand = \"{script}\"\ntimeout_secs = 1\n",
    );
    let mut rx = f.app.subscribe();
    let started = std::time::Instant::now();
    let run = start(&f, json!([cmd("echo hi"), {"final_answer": "done"}]));
    let call = super::tests::next_approval(&mut rx).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let hooks = f
        .app
        .list_events(run, bearagent_kernel::EventSeq(0), 1000)
        .unwrap();
    let timed_out = hooks.iter().any(|e| {
        matches!(
            e.payload,
            EventPayload::HookRan {
                timed_out: true,
                decision: HookDecision::Ask,
                ..
            }
        )
    });
    assert!(timed_out, "{:?}", types(&f.app, run));
    f.app
        .decide_approval(
            run,
            &call,
            crate::Decision {
                approve: false,
                scope: bearagent_kernel::ApprovalScope::Once,
                reason: None,
                by: "user".into(),
                allow_prefix: None,
                network: false,
            },
        )
        .unwrap();
    finished(&f, run).await;
}

#[tokio::test]
async fn untrusted_project_hooks_never_run_and_the_run_says_so_once() {
    let f = fixture();
    let dir = f.ws.path().join(".bearagent");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("hooks.toml"),
        "[[hooks.SessionStart]]\ncommand = \"touch marker\"\n[[hooks.Stop]]\ncommand = \"touch marker2\"\n",
    )
    .unwrap();
    let run = start(&f, json!([{"final_answer": "done"}]));
    finished(&f, run).await;
    assert!(!f.ws.path().join("marker").exists());
    assert!(!f.ws.path().join("marker2").exists());
    let told = types(&f.app, run)
        .iter()
        .filter(|t| **t == "hooks_not_trusted")
        .count();
    assert_eq!(told, 1);

    let ws = f.ws.path().canonicalize().unwrap().display().to_string();
    let shown = f.app.project_hooks(&ws).unwrap().unwrap();
    f.app.trust_project_hooks(&ws, &shown.sha256).unwrap();
    let run = start(&f, json!([{"final_answer": "done"}]));
    finished(&f, run).await;
    assert!(
        f.ws.path().join("marker").exists(),
        "{:?}",
        types(&f.app, run)
    );
    assert!(!types(&f.app, run).contains(&"hooks_not_trusted"));
}

const ALLOW_ALL: &str = r#"
import json
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "allow", "permissionDecisionReason": "trusted by my hook"}}))
"#;

#[tokio::test]
async fn a_hooks_allow_answers_the_policys_question_but_never_loosens_a_deny_rule() {
    let f = fixture();
    user_hook(
        &f,
        "allow.py",
        ALLOW_ALL,
        "[[hooks.PreToolUse]]\ncommand = \"{script}\"\n",
    );
    let steps = json!([
        {"tool_call": {"tool_name": "write_file", "arguments": {"path": "w.txt", "content": "x"}}},
        cmd("rm -f nothing"),
        {"final_answer": "done"}
    ]);
    let mut profile = RunProfile {
        approval_mode: ApprovalMode::AskAll,
        ..RunProfile::default()
    };
    profile.commands.rules = vec![bearagent_kernel::CommandRule {
        prefix: "rm".into(),
        decision: bearagent_kernel::RuleDecision::Deny,
    }];
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
    assert_eq!(finished(&f, run).await.status, RunStatus::Succeeded);
    assert!(!types(&f.app, run).contains(&"approval_requested"));
    assert_eq!(
        std::fs::read_to_string(f.ws.path().join("w.txt")).unwrap(),
        "x"
    );
    let results = results(&f, run);
    assert!(results[1].starts_with("refused by policy"), "{results:?}");
    // The deny rule was decided before any hook: only the write's ran.
    assert_eq!(hook_runs(&f, run).len(), 1);
}

#[tokio::test]
async fn a_user_prompt_submit_hook_can_block_the_goal() {
    let f = fixture();
    let script = "import json, sys\nif 'secret' in json.load(sys.stdin)['prompt']:\n    print('no secrets in goals', file=sys.stderr)\n    sys.exit(2)\n";
    user_hook(
        &f,
        "prompt.py",
        script,
        "[[hooks.UserPromptSubmit]]\ncommand = \"{script}\"\n",
    );
    let run = f
        .app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "print the secret".into(),
            profile: RunProfile::default(),
            provider: Arc::new(ScriptedProvider::from_json("[{\"final_answer\": \"x\"}]").unwrap()),
            images: Vec::new(),
        })
        .unwrap();
    let p = finished(&f, run).await;
    assert_eq!(p.model_calls, 0);
    let RunStatus::Failed { reason } = p.status else {
        panic!("expected a failed run, got {:?}", p.status);
    };
    assert!(reason.contains("no secrets in goals"), "{reason}");
}

#[tokio::test]
async fn runs_with_hooks_replay_identically() {
    let f = fixture();
    std::fs::write(f.ws.path().join("notes.txt"), "marker\n").unwrap();
    user_hook(
        &f,
        "stop.py",
        "import json, sys\ndata = json.load(sys.stdin)\nif not data['stop_hook_active']:\n    print(json.dumps({'decision': 'block', 'reason': 'again'}))\n",
        "[[hooks.PostToolUse]]\nmatcher = \"read_file\"\ncommand = \"{script}\"\n[[hooks.Stop]]\ncommand = \"{script}\"\n",
    );
    let steps = json!([
        {"tool_call": {"tool_name": "read_file", "arguments": {"path": "notes.txt"}}},
        {"final_answer": "first"},
        {"final_answer": "second"}
    ]);
    let run = start(&f, steps);
    finished(&f, run).await;
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(
        replayed.divergence,
        None,
        "{replayed:?} {:?}",
        types(&f.app, run)
    );
}

#[tokio::test]
async fn a_hook_runs_in_the_workspace_without_the_network_or_the_users_environment() {
    let f = fixture();
    // Planted in this process's environment: the hook must not see it.
    std::env::set_var("BEARAGENT_HOOK_TEST_SECRET", "sk-planted-4d2f");
    let script = r#"
import json, os, socket, sys
data = json.load(sys.stdin)
try:
    socket.create_connection(("127.0.0.53", 53), timeout=2).close()
    net = "reached"
except OSError as e:
    net = "blocked"
secret = os.environ.get("BEARAGENT_HOOK_TEST_SECRET", "absent")
with open("hook-probe.txt", "w") as f:
    f.write(f"{os.getcwd()}|{net}|{secret}|{os.environ.get('CLAUDE_PROJECT_DIR')}")
"#;
    user_hook(
        &f,
        "probe.py",
        script,
        "[[hooks.SessionStart]]\ncommand = \"{script}\"\n",
    );
    let run = start(&f, json!([{"final_answer": "done"}]));
    finished(&f, run).await;
    let ws = f.ws.path().canonicalize().unwrap().display().to_string();
    let probe = std::fs::read_to_string(f.ws.path().join("hook-probe.txt")).unwrap();
    assert_eq!(probe, format!("{ws}|blocked|absent|{ws}"));
}

#[tokio::test]
async fn a_hooks_write_is_recorded_as_the_hooks_and_not_as_a_change_from_outside() {
    let f = fixture();
    // Writes, then stays long enough for the watcher to report the write.
    let script = r#"
import json, os, sys, time
data = json.load(sys.stdin)
with open(os.path.join(data["cwd"], data["tool_input"]["path"]), "a") as f:
    f.write("formatted\n")
time.sleep(0.5)
"#;
    user_hook(
        &f,
        "fmt.py",
        script,
        "[[hooks.PostToolUse]]\nmatcher = \"write_file\"\ncommand = \"{script}\"\n",
    );
    let write = json!({"tool_call": {"tool_name": "write_file",
        "arguments": {"path": "mine.txt", "content": "mine\n"}}});
    let run = start(
        &f,
        json!([write, {"final_answer": "done", "delay_ms": 800}]),
    );
    assert_eq!(finished(&f, run).await.status, RunStatus::Succeeded);
    let events = f
        .app
        .list_events(run, bearagent_kernel::EventSeq(0), 1000)
        .unwrap();
    let by_hook = events.iter().any(|e| {
        matches!(&e.payload, EventPayload::ArtifactRecorded { path, by_hook: Some(_), .. }
            if path == "mine.txt")
    });
    assert!(by_hook, "{:?}", types(&f.app, run));
    let observed: Vec<&EventPayload> = events
        .iter()
        .map(|e| &e.payload)
        .filter(|p| matches!(p, EventPayload::ExternalChangeObserved { .. }))
        .collect();
    assert!(observed.is_empty(), "{observed:?}");
    let text = std::fs::read_to_string(f.ws.path().join("mine.txt")).unwrap();
    assert_eq!(text, "mine\nformatted\n");
}
