//! Learn, never guess (issue 53): a local provider's server is asked for
//! its window and tool support before the run and `RunCreated` records
//! it; a fixed part larger than the window is refused before any model
//! call; a usage report far below the request's estimate fails the run.

use super::*;
use crate::{RunProfile, StartRun};
use bearagent_kernel::{
    EventEnvelope, EventPayload, EventSeq, FixedClock, RunId, RunStatus, Timestamp,
};
use bearagent_providers::{ModelRequest, ModelStream, ProviderInfo, ScriptedProvider};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Fixture {
    home: tempfile::TempDir,
    ws: tempfile::TempDir,
    app: Arc<Application>,
}

fn fixture() -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let app = Arc::new(Application::open(home.path(), Arc::new(clock)).unwrap());
    Fixture { home, ws, app }
}

fn start(f: &Fixture, provider: Arc<dyn ModelProvider>) -> RunId {
    f.app
        .start_run(StartRun {
            workspace: f.ws.path().display().to_string(),
            goal: "goal".into(),
            profile: RunProfile::default(),
            provider,
            images: Vec::new(),
        })
        .unwrap()
}

fn events(f: &Fixture, run: RunId) -> Vec<EventEnvelope> {
    f.app.list_events(run, EventSeq(0), 1000).unwrap()
}

fn failure(f: &Fixture, run: RunId) -> String {
    events(f, run)
        .iter()
        .find_map(|e| match &e.payload {
            EventPayload::RunFailed { reason } => Some(reason.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("not failed: {:?}", events(f, run)))
}

/// A scripted model that passes for a declared local server, so its
/// usage is judged.
struct Unscripted(ScriptedProvider);

impl ModelProvider for Unscripted {
    fn info(&self) -> ProviderInfo {
        ProviderInfo {
            scripted: false,
            learned: Some(bearagent_kernel::LearnedModel {
                server: Some("ollama".into()),
                base_url: "http://127.0.0.1:11434".into(),
                context_window: None,
                trained_window: None,
                tools: Some(true),
                not_learned: vec!["context window: not loaded".into()],
            }),
            ..self.0.info()
        }
    }
    fn stream(&self, request: ModelRequest) -> ModelStream {
        self.0.stream(request)
    }
}

fn agents_md(f: &Fixture, bytes: usize) {
    let line = "Always explain every change you make in plain words before making it.\n";
    std::fs::write(
        f.ws.path().join("AGENTS.md"),
        line.repeat(bytes / line.len()),
    )
    .unwrap();
}

#[tokio::test]
async fn a_fixed_part_larger_than_the_window_is_refused_before_any_model_call() {
    let f = fixture();
    agents_md(&f, 12_000);
    let steps = json!([{ "final_answer": "never asked" }]);
    let model = ScriptedProvider::from_json(&steps.to_string())
        .unwrap()
        .with_context_window(2_000);
    let run = start(&f, Arc::new(model.clone()));
    let p = f.app.wait_run(run).await.unwrap();
    assert!(
        matches!(p.status, RunStatus::Failed { .. }),
        "{:?}",
        p.status
    );
    let reason = failure(&f, run);
    assert!(
        reason.contains("fixed part") && reason.contains("window (2000 tokens)"),
        "{reason}"
    );
    assert!(reason.contains("project instructions ~"), "{reason}");
    assert!(model.calls().is_empty(), "no model call was made");
    assert!(!events(&f, run)
        .iter()
        .any(|e| matches!(e.payload, EventPayload::ModelCallRequested { .. })));
}

#[tokio::test]
async fn a_usage_far_below_the_estimate_fails_the_run_naming_the_cut() {
    let f = fixture();
    agents_md(&f, 9_000);
    let cut = json!([{ "final_answer": "blind", "usage": { "input": 300, "output": 5 } }]);
    let model = ScriptedProvider::from_json(&cut.to_string()).unwrap();
    let run = start(&f, Arc::new(Unscripted(model)));
    let p = f.app.wait_run(run).await.unwrap();
    assert!(
        matches!(p.status, RunStatus::Failed { .. }),
        "{:?}",
        p.status
    );
    let estimated = events(&f, run)
        .iter()
        .find_map(|e| match &e.payload {
            EventPayload::ModelCallRequested {
                estimated_tokens, ..
            } => *estimated_tokens,
            _ => None,
        })
        .unwrap();
    let reason = failure(&f, run);
    assert!(
        reason.contains(&format!(
            "reported 300 prompt tokens for a request estimated at ~{estimated} tokens"
        )),
        "{reason}"
    );
    assert!(reason.contains("cut the prompt silently"), "{reason}");
    assert_eq!(p.usage.input, 300, "the call's tokens are counted");

    // The same report from a provider not declared a local server is
    // not judged (runs recorded before the check replay unchanged).
    let model = ScriptedProvider::from_json(&cut.to_string()).unwrap();
    let plain = start(&f, Arc::new(model));
    assert_eq!(
        f.app.wait_run(plain).await.unwrap().status,
        RunStatus::Succeeded
    );
    // An honest report of the same request goes on.
    let honest =
        json!([{ "final_answer": "ok", "usage": { "input": estimated * 3 / 4, "output": 5 } }]);
    let model = ScriptedProvider::from_json(&honest.to_string()).unwrap();
    let run = start(&f, Arc::new(Unscripted(model)));
    assert_eq!(
        f.app.wait_run(run).await.unwrap().status,
        RunStatus::Succeeded
    );
}

/// A loopback server answering like llama-server: `/props`, `/v1/models`.
async fn fake_llama(n_ctx: u64, template: &'static str) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                let path = head.split(' ').nth(1).unwrap_or("");
                let (status, body) = match path {
                    "/props" => (
                        200,
                        json!({ "default_generation_settings": { "n_ctx": n_ctx }, "chat_template": template }),
                    ),
                    "/v1/models" => (200, json!({ "data": [{ "id": "qwen-local" }] })),
                    _ => (404, json!({ "error": "no" })),
                };
                let body = body.to_string();
                let reply = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    (url, task)
}

fn configure(f: &Fixture, text: &str) {
    std::fs::write(f.home.path().join("config.toml"), text).unwrap();
}

#[tokio::test]
async fn a_local_provider_learns_its_window_and_the_run_records_it() {
    let f = fixture();
    let (url, server) = fake_llama(6144, "{{ messages }}").await;
    configure(
        &f,
        &format!(
            "version = 1\n[providers.local]\nprotocol = \"openai-chat\"\nbase_url = \"{url}/v1\"\nmodel = \"qwen-local\"\nkey = \"none\"\nserver = \"llama.cpp\"\n\
             [providers.stated]\nprotocol = \"openai-chat\"\nbase_url = \"{url}\"\nmodel = \"qwen-local\"\nkey = \"none\"\ncontext_window = 1000\nserver = \"llama.cpp\"\n\
             [providers.undeclared]\nprotocol = \"openai-chat\"\nbase_url = \"{url}\"\nmodel = \"qwen-local\"\nkey = \"none\"\n"
        ),
    );
    let provider = f
        .app
        .provider_for_run("local", &ProviderOverrides::default())
        .await
        .unwrap();
    let info = provider.info();
    assert_eq!(info.context_window, 6144);
    assert_eq!(
        provider.tool_mode(),
        bearagent_kernel::ToolMode::JsonText,
        "the template takes no tools"
    );
    let learned = info.learned.clone().unwrap();
    assert_eq!(
        (
            learned.server.as_deref(),
            learned.context_window,
            learned.tools
        ),
        (Some("llama.cpp"), Some(6144), Some(false))
    );
    assert_eq!(learned.base_url, url);
    let stated = f
        .app
        .provider_for_run("stated", &ProviderOverrides::default())
        .await
        .unwrap();
    assert_eq!(
        stated.info().context_window,
        1000,
        "a window the config states wins"
    );
    assert_eq!(
        stated.info().learned.and_then(|l| l.context_window),
        Some(6144)
    );
    let undeclared = f
        .app
        .provider_for_run("undeclared", &ProviderOverrides::default())
        .await
        .unwrap();
    assert_eq!(
        undeclared.info().learned,
        None,
        "only a declared local server is asked"
    );

    let run = start(&f, provider);
    f.app.wait_run(run).await.unwrap();
    match &events(&f, run)[0].payload {
        EventPayload::RunCreated {
            learned: recorded,
            config_versions,
            ..
        } => {
            assert_eq!(recorded.as_ref(), Some(&learned));
            assert_eq!(config_versions["tool_mode"], "json-text");
        }
        other => panic!("{other:?}"),
    }
    server.abort();
}

#[tokio::test]
async fn a_detected_server_is_added_as_a_provider_in_one_step() {
    let f = fixture();
    let (url, server) = fake_llama(8192, "{% if tools %}{{ tools }}{% endif %}").await;
    let options = DetectOptions {
        ports: Vec::new(),
        urls: vec![url.clone()],
        budget: Duration::from_secs(2),
    };
    let added = f
        .app
        .add_detected_provider("found", None, &options)
        .await
        .unwrap();
    let entry = &f.app.config().unwrap().providers["found"];
    assert_eq!(entry, &added.entry);
    assert_eq!(
        (
            entry.base_url.as_str(),
            entry.model.as_str(),
            entry.context_window
        ),
        (url.as_str(), "qwen-local", Some(8192))
    );
    assert_eq!(entry.tool_mode, bearagent_providers::ToolMode::Native);
    assert_eq!(
        entry.server,
        Some(bearagent_providers::local::ServerKind::LlamaCpp)
    );
    let again = f
        .app
        .add_detected_provider("found", None, &options)
        .await
        .unwrap_err();
    assert!(again.to_string().contains("exists already"), "{again}");
    let none = DetectOptions {
        urls: Vec::new(),
        ..options
    };
    let err = f
        .app
        .add_detected_provider("other", None, &none)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no local model server"), "{err}");
    server.abort();
}

/// A loopback server answering like Ollama: the model `qwen-local` is not
/// loaded (`/api/ps` lists nothing) and was trained for 32768 tokens;
/// `/api/chat` streams one short NDJSON answer. The chat bodies it got are
/// kept.
async fn fake_ollama() -> (
    String,
    Arc<std::sync::Mutex<Vec<serde_json::Value>>>,
    tokio::task::JoinHandle<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let chats = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = chats.clone();
    let task = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let (path, body) = read_request(&mut socket).await;
                let (status, kind, reply) = ollama_reply(&path, &body);
                if path == "/api/chat" {
                    kept.lock().unwrap().push(body);
                }
                let head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    reply.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(reply.as_bytes()).await;
            });
        }
    });
    (url, chats, task)
}

/// `qwen-cut` answers like an Ollama that cut the prompt to a small
/// num_ctx: it says it read 50 tokens.
fn ollama_reply(path: &str, body: &serde_json::Value) -> (u16, &'static str, String) {
    let json = "application/json";
    match path {
        "/api/tags" => (
            200,
            json,
            json!({ "models": [{ "name": "qwen-local" }, { "name": "qwen-cut" }] }).to_string(),
        ),
        "/api/ps" => (200, json, json!({ "models": [] }).to_string()),
        "/api/show" => (
            200,
            json,
            json!({
                "capabilities": ["completion", "tools"],
                "model_info": { "general.architecture": "qwen2", "qwen2.context_length": 32768 }
            })
            .to_string(),
        ),
        "/api/chat" => {
            let read = if body["model"] == "qwen-cut" {
                50
            } else {
                12000
            };
            let lines = [
                json!({"model": "qwen-local", "message": {"role": "assistant", "content": "all done"}, "done": false}),
                json!({"model": "qwen-local", "message": {"role": "assistant", "content": ""}, "done": true,
                    "done_reason": "stop", "prompt_eval_count": read, "eval_count": 3}),
            ];
            let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
            (200, "application/x-ndjson", body)
        }
        _ => (404, json, json!({ "error": "no" }).to_string()),
    }
}

/// The path and JSON body (Null when none) of one request.
async fn read_request(socket: &mut tokio::net::TcpStream) -> (String, serde_json::Value) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return (String::new(), serde_json::Value::Null);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let path = head.split(' ').nth(1).unwrap_or("").to_owned();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = socket.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(serde_json::Value::Null);
    (path, body)
}

#[tokio::test]
async fn an_ollama_provider_sends_the_window_it_learned_as_num_ctx_and_records_it() {
    let f = fixture();
    let (url, chats, server) = fake_ollama().await;
    configure(
        &f,
        &format!(
            "version = 1\n[providers.ollama]\nprotocol = \"ollama-chat\"\nbase_url = \"{url}\"\nmodel = \"qwen-local\"\nkey = \"none\"\n"
        ),
    );
    let provider = f
        .app
        .provider_for_run("ollama", &ProviderOverrides::default())
        .await
        .unwrap();
    let info = provider.info();
    let chosen = bearagent_providers::OLLAMA_DEFAULT_WINDOW;
    assert_eq!(info.context_window, chosen, "the trained 32768, capped");
    let learned = info.learned.clone().unwrap();
    assert_eq!(
        (
            learned.server.as_deref(),
            learned.context_window,
            learned.trained_window
        ),
        (Some("ollama"), Some(chosen), Some(32768))
    );
    assert_eq!(provider.tool_mode(), bearagent_kernel::ToolMode::Native);

    let run = start(&f, provider);
    let p = f.app.wait_run(run).await.unwrap();
    assert_eq!(p.status, RunStatus::Succeeded, "{:?}", events(&f, run));
    let sent = chats.lock().unwrap().clone();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["options"]["num_ctx"], chosen);
    assert!(!sent[0]["tools"].as_array().unwrap().is_empty());
    match &events(&f, run)[0].payload {
        EventPayload::RunCreated {
            learned: recorded, ..
        } => {
            assert_eq!(recorded.as_ref(), Some(&learned));
        }
        other => panic!("{other:?}"),
    }

    // The silent-cut check holds for Ollama's own API too.
    agents_md(&f, 9_000);
    let overrides = ProviderOverrides {
        model: Some("qwen-cut".into()),
        ..Default::default()
    };
    let cut = f.app.provider_for_run("ollama", &overrides).await.unwrap();
    let run = start(&f, cut);
    f.app.wait_run(run).await.unwrap();
    let reason = failure(&f, run);
    assert!(reason.contains("reported 50 prompt tokens"), "{reason}");
    server.abort();
}
