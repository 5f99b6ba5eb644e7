//! Tool calls a model printed as text (issue 53): given a scripted model
//! that writes its call as text, the run takes the call it meant, runs it
//! and goes on; a call-shaped reply that names no tool is fed back, never
//! recorded as the answer; a model that keeps doing it is switched to
//! JSON-text mode; and JSON-text mode takes an action in a ```json fence.

use super::tests::{fixture, start_recorded, types, Fixture};
use super::*;
use bearagent_kernel::{EventEnvelope, EventSeq};
use bearagent_kernel::{HistoryItem, ModelErrorClass, RunStatus, TextCallDialect, ToolMode};
use bearagent_providers::{json_text_provider, ScriptedProvider};
use bearagent_tools::ApprovalMode;
use serde_json::json;

/// What Qwen2.5-Coder 0.5B answered through llama-server.
const BARE: &str = r#"{"name": "read_file", "arguments": {"path": "question.txt"}}"#;
/// What Qwen2.5-Coder 1.5B answered: a sentence, then a fence.
const FENCED: &str = "I will read the question first.\n\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"question.txt\"}}\n```";

fn answer(text: &str) -> serde_json::Value {
    json!({ "final_answer": text })
}

fn with_question() -> Fixture {
    let f = fixture();
    std::fs::write(f.ws.path().join("question.txt"), "What is 6 x 7?").unwrap();
    f
}

fn events(f: &Fixture, run: RunId) -> Vec<EventEnvelope> {
    f.app.list_events(run, EventSeq(0), 1000).unwrap()
}

/// A run of `steps` spoken to in JSON-text mode from its start.
fn start_in_json_text(f: &Fixture, steps: serde_json::Value) -> RunId {
    let model = ScriptedProvider::from_json(&steps.to_string()).unwrap();
    f.app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "answer question.txt".into(),
            profile: RunProfile::default(),
            provider: json_text_provider(Arc::new(model)),
            images: Vec::new(),
        })
        .unwrap()
}

fn requested_from_text(events: &[EventEnvelope]) -> Vec<(String, Option<TextCallDialect>)> {
    events
        .iter()
        .filter_map(|e| match &e.payload {
            EventPayload::ToolCallRequested {
                call,
                parsed_from_text,
            } => Some((call.tool_name.to_string(), *parsed_from_text)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_call_written_as_text_runs_and_the_run_goes_on_with_its_result() {
    let f = with_question();
    let steps = json!([answer(BARE), answer("6 x 7 is 42.")]);
    let (run, model) = start_recorded(&f, steps, ApprovalMode::AllowAll);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(p.final_answer.as_deref(), Some("6 x 7 is 42."));
    let events = events(&f, run);
    assert_eq!(
        requested_from_text(&events),
        [("read_file".to_owned(), Some(TextCallDialect::BareJson))]
    );
    let read = events.iter().find_map(|e| match &e.payload {
        EventPayload::ToolCallCompleted { result, .. } => Some(result.content.clone()),
        _ => None,
    });
    assert!(read.unwrap().contains("What is 6 x 7?"));
    // The model's next request holds the call and its result, paired.
    let second = &model.calls()[1];
    let call_id = second.history.iter().find_map(|item| match item {
        HistoryItem::ToolCall(c) if c.tool_name.as_str() == "read_file" => Some(c.call_id.clone()),
        _ => None,
    });
    let call_id = call_id.expect("the call is in the history");
    assert!(second.history.iter().any(|item| matches!(
        item,
        HistoryItem::ToolResult(r) if r.call_id == call_id && r.content.contains("6 x 7")
    )));
    bearagent_kernel::validate_history(&second.history).unwrap();
    // The record re-drives to the same events.
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}

#[tokio::test]
async fn a_fenced_call_after_a_sentence_is_taken_too() {
    let f = with_question();
    let steps = json!([answer(FENCED), answer("42")]);
    let (run, _) = start_recorded(&f, steps, ApprovalMode::AllowAll);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.final_answer.as_deref(), Some("42"));
    assert_eq!(
        requested_from_text(&events(&f, run)),
        [("read_file".to_owned(), Some(TextCallDialect::FencedJson))]
    );
}

#[tokio::test]
async fn a_text_call_naming_no_tool_is_fed_back_and_never_becomes_the_answer() {
    let f = with_question();
    let unknown = "<tool_call>\n{\"name\": \"cat\", \"arguments\": {\"path\": \"question.txt\"}}\n</tool_call>";
    let steps = json!([answer(unknown), answer("The answer is 42.")]);
    let (run, model) = start_recorded(&f, steps, ApprovalMode::AllowAll);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.final_answer.as_deref(), Some("The answer is 42."));
    let events = events(&f, run);
    let failed = events.iter().find_map(|e| match &e.payload {
        EventPayload::ModelCallFailed {
            class: ModelErrorClass::InvalidOutput,
            message,
            ..
        } => Some(message.clone()),
        _ => None,
    });
    let failed = failed.expect("the reply was refused as invalid output");
    assert!(failed.contains("`cat`, which is not a tool"), "{failed}");
    assert!(failed.contains("read_file"), "{failed}");
    // The model was told, in the next request.
    let told = model.calls()[1].history.iter().any(|item| {
        matches!(item, HistoryItem::Message(m) if m.content.contains("`cat`, which is not a tool"))
    });
    assert!(told);
    assert!(requested_from_text(&events).is_empty());
}

#[tokio::test]
async fn text_calls_naming_no_tool_count_as_invalid_output_and_fail_the_run() {
    let f = with_question();
    let unknown = r#"[TOOL_CALLS][{"name": "shell", "arguments": {"command": "ls"}}]"#;
    let steps = json!([answer(unknown), answer(unknown), answer(unknown)]);
    let (run, _) = start_recorded(&f, steps, ApprovalMode::AllowAll);
    let p = f.app.wait_run(run).await.unwrap();
    assert!(
        matches!(&p.status, RunStatus::Failed { reason } if reason.contains("invalid model output")),
        "{:?}",
        p.status
    );
    assert!(!types(&f.app, run).contains(&"run_succeeded"));
}

#[tokio::test]
async fn a_model_whose_text_calls_cannot_be_used_is_switched_to_json_text() {
    let f = with_question();
    let unknown = r#"[TOOL_CALLS][{"name": "shell", "arguments": {"command": "ls"}}]"#;
    let json_answer = r#"{"type": "final_answer", "content": "42"}"#;
    let steps = json!([answer(unknown), answer(unknown), answer(json_answer)]);
    let (run, model) = start_recorded(&f, steps, ApprovalMode::AllowAll);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded, "{:?}", p.last_error);
    assert_eq!(p.final_answer.as_deref(), Some("42"));
    let events = events(&f, run);
    let switched = events.iter().find_map(|e| match &e.payload {
        EventPayload::ToolModeSwitched { from, to, .. } => Some((*from, *to)),
        _ => None,
    });
    assert_eq!(switched, Some((ToolMode::Native, ToolMode::JsonText)));
    // The third request went out in JSON-text mode: no native tools, the
    // reply format in the prompt.
    let third = &model.calls()[2];
    assert!(third.tools.is_empty());
    assert!(third.system.contains("Reply with exactly one JSON object"));
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}

/// Measured with Qwen2.5-Coder 0.5B through llama-server: its bare-JSON
/// calls were taken, then the switch to JSON text made it fail three
/// replies in a row. Calls that parse keep the run in its mode.
#[tokio::test]
async fn a_model_whose_text_calls_parse_stays_in_native_mode() {
    let f = with_question();
    let steps = json!([answer(BARE), answer(FENCED), answer("42")]);
    let (run, model) = start_recorded(&f, steps, ApprovalMode::AllowAll);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded, "{:?}", p.last_error);
    assert_eq!(p.final_answer.as_deref(), Some("42"));
    let t = types(&f.app, run);
    assert!(!t.contains(&"tool_mode_switched"), "{t:?}");
    assert_eq!(requested_from_text(&events(&f, run)).len(), 2);
    assert!(!model.calls()[2].tools.is_empty());
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}

#[tokio::test]
async fn json_text_mode_takes_an_action_in_a_fence() {
    let f = with_question();
    let fenced = "```json\n{\"type\": \"tool_call\", \"call_id\": \"c1\", \"tool_name\": \"read_file\", \"arguments\": {\"path\": \"question.txt\"}}\n```";
    let done = "Here it is:\n{\"type\": \"final_answer\", \"content\": \"42\"}";
    let steps = json!([answer(fenced), answer(done)]);
    let run = start_in_json_text(&f, steps);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(p.final_answer.as_deref(), Some("42"));
    let t = types(&f.app, run);
    assert!(t.contains(&"tool_call_completed"));
    assert!(!t.contains(&"model_call_failed"));
}

/// What Qwen2.5-Coder 0.5B did through llama-server once switched to JSON
/// text: a final answer whose content is its tool call. The call is taken;
/// the run never ends with it as the answer.
#[tokio::test]
async fn json_text_mode_takes_a_call_wrapped_in_a_final_answer() {
    let f = with_question();
    let wrapped = json!({"type": "final_answer", "content": format!("\n{FENCED}")}).to_string();
    let done = r#"{"type": "final_answer", "content": "42"}"#;
    let steps = json!([answer(&wrapped), answer(done)]);
    let run = start_in_json_text(&f, steps);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded);
    assert_eq!(p.final_answer.as_deref(), Some("42"));
    let events = events(&f, run);
    assert_eq!(
        requested_from_text(&events),
        [("read_file".to_owned(), Some(TextCallDialect::FencedJson))]
    );
    let replayed = f.app.replay_run(run).await.unwrap();
    assert_eq!(replayed.divergence, None, "{replayed:?}");
}

#[tokio::test]
async fn an_answer_that_only_repeats_the_goal_is_re_asked_never_the_answer() {
    let f = with_question();
    // start_recorded's goal is "goal": said back, differently spaced.
    let steps = json!([answer("  Goal. "), answer("The goal is done.")]);
    let (run, model) = start_recorded(&f, steps, ApprovalMode::AllowAll);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.final_answer.as_deref(), Some("The goal is done."));
    let refused = events(&f, run).iter().any(|e| {
        matches!(&e.payload, EventPayload::ModelCallFailed {
            class: ModelErrorClass::InvalidOutput, message, ..
        } if message.contains("only repeats the task"))
    });
    assert!(refused);
    assert_eq!(model.calls().len(), 2);
}
