//! Detection of local model servers against real loopback HTTP servers
//! that answer like llama.cpp, Ollama, LM Studio and vLLM — and like
//! hostile ones (a huge body, broken JSON, no answer at all).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use bearagent_providers::local::{detect, probe, DetectOptions, Detection, ServerKind};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::server::{read_request, RawRequest};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// What a route answers: status, body, and how long it waits first.
struct Answer {
    status: u16,
    body: Vec<u8>,
    delay: Duration,
    /// No content-length: the body ends when the connection closes.
    unframed: bool,
}

fn ok(body: Value) -> Answer {
    Answer {
        status: 200,
        body: body.to_string().into_bytes(),
        delay: Duration::ZERO,
        unframed: false,
    }
}

fn not_found() -> Answer {
    Answer {
        status: 404,
        body: br#"{"error":"not found"}"#.to_vec(),
        delay: Duration::ZERO,
        unframed: false,
    }
}

type Routes = Arc<dyn Fn(&str, &Value) -> Answer + Send + Sync>;

/// A loopback HTTP server answering by path (and, for POST, JSON body).
struct Fake {
    url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Fake {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(routes: impl Fn(&str, &Value) -> Answer + Send + Sync + 'static) -> Fake {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let routes: Routes = Arc::new(routes);
    let task = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let routes = routes.clone();
            tokio::spawn(async move {
                let _ = answer(socket, routes).await;
            });
        }
    });
    Fake { url, task }
}

async fn answer(mut socket: TcpStream, routes: Routes) -> std::io::Result<()> {
    let Some(RawRequest { path, body, .. }) = read_request(&mut socket).await? else {
        return Ok(());
    };
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = routes(&path, &request);
    tokio::time::sleep(reply.delay).await;
    let mut head = format!(
        "HTTP/1.1 {} Fake\r\ncontent-type: application/json\r\nconnection: close\r\n",
        reply.status
    );
    if !reply.unframed {
        head.push_str(&format!("content-length: {}\r\n", reply.body.len()));
    }
    head.push_str("\r\n");
    socket.write_all(head.as_bytes()).await?;
    socket.write_all(&reply.body).await?;
    socket.flush().await?;
    socket.shutdown().await
}

async fn llama_cpp() -> Fake {
    serve(|path, _| match path {
        "/props" => ok(json!({
            "default_generation_settings": { "n_ctx": 8192, "params": { "temperature": 0.8 } },
            "total_slots": 1,
            "model_path": "/models/qwen2.5-coder-7b-instruct-q4_k_m.gguf",
            "chat_template": "{%- if tools %}<tools>{{ tools | tojson }}</tools>{%- endif %}",
            "build_info": "b6000"
        })),
        "/v1/models" => ok(json!({ "object": "list", "data": [
            { "id": "qwen2.5-coder-7b", "object": "model", "meta": { "n_ctx_train": 32768 } }
        ]})),
        _ => not_found(),
    })
    .await
}

async fn ollama() -> Fake {
    serve(|path, body| match path {
        "/api/tags" => ok(json!({ "models": [
            { "name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b" },
            { "name": "llama3:8b" }, { "name": "gemma:2b" }
        ]})),
        "/api/ps" => ok(json!({ "models": [
            { "name": "gemma:2b", "model": "gemma:2b", "context_length": 4096 }
        ]})),
        "/api/show" => match body["model"].as_str() {
            Some("qwen2.5-coder:7b") => ok(json!({
                "template": "{{ if .Tools }}…{{ end }}",
                "parameters": "stop \"<|im_end|>\"\nnum_ctx 16384",
                "capabilities": ["completion", "tools"],
                "model_info": { "general.architecture": "qwen2", "qwen2.context_length": 32768 }
            })),
            Some("llama3:8b") => ok(json!({
                "template": "{{ .Prompt }}",
                "capabilities": ["completion"],
                "model_info": { "general.architecture": "llama", "llama.context_length": 8192 }
            })),
            Some("gemma:2b") => ok(json!({ "template": "{{ .Prompt }}" })),
            _ => not_found(),
        },
        "/v1/models" => ok(json!({ "data": [{ "id": "qwen2.5-coder:7b" }] })),
        _ => not_found(),
    })
    .await
}

async fn lm_studio() -> Fake {
    serve(|path, _| match path {
        "/api/v0/models" => ok(json!({ "object": "list", "data": [
            { "id": "qwen2.5-7b-instruct", "type": "llm", "state": "loaded",
              "max_context_length": 32768, "loaded_context_length": 4096,
              "capabilities": ["tool_use"] },
            { "id": "text-embedding-nomic", "type": "embeddings", "max_context_length": 2048 },
            { "id": "phi-3", "type": "llm", "state": "not-loaded", "max_context_length": 4096 }
        ]})),
        "/v1/models" => ok(json!({ "data": [{ "id": "qwen2.5-7b-instruct" }] })),
        _ => not_found(),
    })
    .await
}

async fn vllm() -> Fake {
    serve(|path, _| match path {
        "/v1/models" => ok(json!({ "object": "list", "data": [
            { "id": "Qwen/Qwen2.5-Coder-7B-Instruct", "owned_by": "vllm", "max_model_len": 24576 }
        ]})),
        _ => not_found(),
    })
    .await
}

fn only(urls: &[&Fake], budget: Duration) -> DetectOptions {
    DetectOptions {
        ports: Vec::new(),
        urls: urls.iter().map(|f| f.url.clone()).collect(),
        budget,
    }
}

fn server<'a>(found: &'a Detection, fake: &Fake) -> &'a bearagent_providers::local::LocalServer {
    found
        .servers
        .iter()
        .find(|s| s.base_url == fake.url)
        .unwrap_or_else(|| panic!("{} not found in {found:#?}", fake.url))
}

#[tokio::test]
async fn each_server_is_found_with_its_window_and_tool_support() {
    let (llama, ollama, lm, vllm) = (
        llama_cpp().await,
        ollama().await,
        lm_studio().await,
        vllm().await,
    );
    let found = detect(&only(
        &[&llama, &ollama, &lm, &vllm],
        Duration::from_secs(3),
    ))
    .await;
    assert!(found.failures.is_empty(), "{found:#?}");

    let l = server(&found, &llama);
    assert_eq!(l.kind, ServerKind::LlamaCpp);
    let m = &l.models[0];
    assert_eq!(
        (m.id.as_str(), m.context_window, m.trained_window, m.tools),
        ("qwen2.5-coder-7b", Some(8192), Some(32768), Some(true))
    );
    assert!(m.not_learned.is_empty(), "{m:?}");

    let o = server(&found, &ollama);
    assert_eq!(o.kind, ServerKind::Ollama);
    let by_id = |id: &str| o.models.iter().find(|m| m.id == id).unwrap().clone();
    let qwen = by_id("qwen2.5-coder:7b");
    assert_eq!(
        (qwen.context_window, qwen.trained_window, qwen.tools),
        (Some(16384), Some(32768), Some(true))
    );
    let llama3 = by_id("llama3:8b");
    assert_eq!(
        (llama3.context_window, llama3.trained_window, llama3.tools),
        (None, Some(8192), Some(false))
    );
    assert!(
        llama3.not_learned.iter().any(|n| n.contains("num_ctx")),
        "{llama3:?}"
    );
    let gemma = by_id("gemma:2b");
    assert_eq!(
        (gemma.context_window, gemma.tools),
        (Some(4096), Some(false)),
        "loaded: /api/ps says"
    );

    let s = server(&found, &lm);
    assert_eq!(s.kind, ServerKind::LmStudio);
    assert_eq!(s.models.len(), 2, "embeddings are not chat models: {s:?}");
    assert_eq!(
        (
            s.models[0].context_window,
            s.models[0].trained_window,
            s.models[0].tools
        ),
        (Some(4096), Some(32768), Some(true))
    );
    assert_eq!(
        (s.models[1].context_window, s.models[1].tools),
        (None, None)
    );
    assert!(s.models[1]
        .not_learned
        .iter()
        .any(|n| n.contains("not loaded")));

    let v = server(&found, &vllm);
    assert_eq!(v.kind, ServerKind::Vllm);
    assert_eq!(
        (v.models[0].context_window, v.models[0].tools),
        (Some(24576), None)
    );
    assert!(v.models[0].not_learned.iter().any(|n| n.contains("tool")));
}

#[tokio::test]
async fn hostile_servers_are_errors_per_server_and_the_slow_one_times_out_in_budget() {
    let huge = serve(|path, _| match path {
        "/v1/models" => Answer {
            unframed: true,
            ..ok(json!({ "data": vec!["x".repeat(1000); 3000] }))
        },
        _ => not_found(),
    })
    .await;
    let broken = serve(|path, _| match path {
        "/v1/models" => Answer {
            body: b"{\"data\": [".to_vec(),
            ..ok(json!(null))
        },
        "/props" => ok(json!("a string, not props")),
        _ => not_found(),
    })
    .await;
    let odd = serve(|path, _| match path {
        "/api/tags" => ok(json!({ "models": 7 })),
        "/v1/models" => ok(json!({ "data": [{ "id": 5 }, { "id": "" }, { "id": "ok-model" }] })),
        _ => not_found(),
    })
    .await;
    let slow = serve(|_, _| Answer {
        delay: Duration::from_secs(10),
        ..ok(json!({}))
    })
    .await;
    let llama = llama_cpp().await;
    let budget = Duration::from_millis(300);
    let started = Instant::now();
    let found = detect(&only(&[&huge, &broken, &odd, &slow, &llama], budget)).await;
    let took = started.elapsed();
    println!(
        "detection with five servers, one slow: {} ms",
        took.as_millis()
    );
    assert!(took < Duration::from_millis(800), "took {took:?}");
    let failure = |fake: &Fake| {
        found
            .failures
            .iter()
            .find(|f| f.base_url == fake.url)
            .map(|f| f.error.clone())
            .unwrap_or_else(|| panic!("no failure for {}: {found:#?}", fake.url))
    };
    assert!(failure(&huge).contains("more than"), "{}", failure(&huge));
    assert!(
        failure(&broken).contains("did not answer JSON"),
        "{}",
        failure(&broken)
    );
    assert!(failure(&slow).contains("in time"), "{}", failure(&slow));
    let o = server(&found, &odd);
    assert_eq!(o.kind, ServerKind::OpenAiCompatible);
    assert_eq!(o.models.len(), 1);
    assert_eq!(o.models[0].id, "ok-model");
    assert_eq!(server(&found, &llama).models[0].context_window, Some(8192));
}

#[tokio::test]
async fn detection_is_quick_with_nothing_listening_and_with_one_server() {
    let free = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let nothing = DetectOptions {
        ports: vec![free, free.wrapping_add(1)],
        urls: vec![],
        budget: Duration::from_millis(300),
    };
    let started = Instant::now();
    let found = detect(&nothing).await;
    let empty = started.elapsed();
    assert!(
        found.servers.is_empty() && found.failures.is_empty(),
        "{found:#?}"
    );
    let llama = llama_cpp().await;
    let started = Instant::now();
    let found = detect(&only(&[&llama], Duration::from_millis(300))).await;
    let one = started.elapsed();
    assert_eq!(found.servers.len(), 1, "{found:#?}");
    println!(
        "detection time: nothing listening {} ms, one llama.cpp server {} ms",
        empty.as_millis(),
        one.as_millis()
    );
    assert!(
        empty < Duration::from_millis(300) && one < Duration::from_millis(300),
        "{empty:?} {one:?}"
    );
}

#[tokio::test]
async fn probing_one_address_names_why_it_fails() {
    let err = probe("ftp://127.0.0.1:1", Duration::from_millis(100))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not an http"), "{err}");
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let err = probe(&format!("http://{free}"), Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("nothing answers"), "{err}");
    let llama = llama_cpp().await;
    let found = probe(&format!("{}/", llama.url), Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(
        found.model(Some("qwen2.5-coder-7b")).unwrap().tools,
        Some(true)
    );
    assert!(found.model(Some("other")).is_none());
}
