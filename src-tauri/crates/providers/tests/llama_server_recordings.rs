//! Replays every real llama-server stream in `tests/fixtures/llama_server`
//! (Qwen2.5-Coder 0.5B and 1.5B, recorded with
//! `scripts/record-local-model-streams.py`) from a loopback HTTP server
//! through the Chat Completions adapter, then reads the reply as the loop
//! does. A native-mode reply that prints a tool call is that call, never an
//! answer; a JSON-text reply is an action or invalid output with a reason.
//! Each recording's reading is listed below, so a parser change that loses
//! one fails here.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_providers::json_text::parse_reply;
use bearagent_providers::{find_text_calls, Protocol, TextCalls, ToolSchema};
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::server::{Reply, TestServer};
use support::{collect, config, provider, simple_request};

/// How a recording's reply must read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// Native mode: the tool call(s) printed as text, naming these tools.
    Calls(&'static [&'static str]),
    /// Native mode: a plain answer (no call-shaped text).
    Answer,
    /// Native mode: call-shaped but not takeable (an unknown tool, broken
    /// JSON): invalid output, the model asked again with the reason.
    Reask,
    /// JSON-text mode: a valid action (a tool call or a final answer).
    Action,
    /// JSON-text mode: invalid output, fed back to the model.
    Invalid,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llama_server")
}

/// The recordings, by file stem, sorted.
fn stems() -> Vec<String> {
    let mut stems: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".sse").map(str::to_owned)
        })
        .collect();
    stems.sort();
    stems
}

/// The tools the recorded request offered (native mode; none in JSON-text).
fn tools_of(request: &Value) -> Vec<ToolSchema> {
    let tools = request["tools"].as_array().cloned().unwrap_or_default();
    tools
        .iter()
        .map(|t| ToolSchema {
            name: t["function"]["name"].as_str().unwrap().to_owned(),
            description: t["function"]["description"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            parameters: t["function"]["parameters"].clone(),
        })
        .collect()
}

/// Every tool the JSON-text recordings could name (their requests carry
/// the tools in the system prompt instead).
fn read_reply(text: &str, tools: &[ToolSchema]) -> (Reading, Vec<String>) {
    if tools.is_empty() {
        return match parse_reply(text) {
            Ok(_) => (Reading::Action, Vec::new()),
            Err(_) => (Reading::Invalid, Vec::new()),
        };
    }
    match find_text_calls(text, tools) {
        TextCalls::None => (Reading::Answer, Vec::new()),
        TextCalls::Calls(calls) => (
            Reading::Calls(&[]),
            calls.iter().map(|c| c.name.clone()).collect(),
        ),
        TextCalls::Invalid { error, .. } => (Reading::Reask, vec![error.to_string()]),
    }
}

/// What each recording must read as (README.md in the folder says what
/// the model sent). 003 names a file as its tool and 005 adds a field the
/// protocol does not have (006, 007: mangled escapes): re-asked, never an
/// answer.
fn expected(number: &str) -> Reading {
    use Reading::*;
    match number {
        "001" | "016" | "019" | "023" => Calls(&["read_file"]),
        "002" => Calls(&["edit_file"]),
        "004" | "017" | "024" => Calls(&["run_command"]),
        "015" | "021" | "025" => Calls(&["list_dir"]),
        "020" | "022" | "026" => Calls(&["write_file"]),
        "003" => Reask,
        "005" | "006" | "007" => Invalid,
        "008" | "010" | "011" | "012" | "013" | "014" => Action,
        "009" | "018" => Answer,
        other => panic!("recording {other} has no expected reading: add it here"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_llama_server_stream_reads_as_the_call_or_answer_it_is() {
    let stems = stems();
    assert!(
        stems.len() >= 20,
        "expected the recordings, found {}",
        stems.len()
    );
    let (mut report, mut wrong) = (Vec::new(), Vec::new());
    for stem in &stems {
        let sse = std::fs::read(dir().join(format!("{stem}.sse"))).unwrap();
        let request: Value = serde_json::from_str(
            &std::fs::read_to_string(dir().join(format!("{stem}.request.json"))).unwrap(),
        )
        .unwrap();
        let server = TestServer::start(vec![Reply::sse_bytes(sse)]).await;
        let p = provider(config(Protocol::OpenAiChat, &server.base_url(), None));
        let got = collect(p.as_ref(), simple_request()).await;
        assert!(got.error.is_none(), "{stem}: {:?}", got.error);
        assert!(got.tool_calls.is_empty(), "{stem}: native tool calls");
        let tools = tools_of(&request);
        let (reading, names) = read_reply(&got.text, &tools);
        report.push(format!("{stem}: {reading:?} {names:?}"));
        let number = &stem[..3];
        let fits = match (expected(number), reading) {
            (Reading::Calls(want), Reading::Calls(_)) => !names.is_empty() && names == want,
            (want, got) => want == got,
        };
        if !fits {
            wrong.push(format!(
                "{stem}: read as {reading:?} {names:?}, expected {:?}",
                expected(number)
            ));
        }
    }
    println!("{}", report.join("\n"));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
