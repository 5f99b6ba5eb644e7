//! End-to-end: `bearagent providers detect` finds a fake llama.cpp server
//! on a free loopback port given with `--port`, and `--add` writes it into
//! the config as a provider in one step.
#![allow(
    clippy::disallowed_methods,
    reason = "tests, benches and examples write their own fixtures"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpListener;

/// A llama-server look-alike on a free port, answering from a thread
/// until the test process ends.
fn fake_llama_cpp() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut socket in listener.incoming().flatten() {
            let mut buf = [0u8; 8192];
            let n = socket.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).into_owned();
            let (status, body) = match head.split(' ').nth(1).unwrap_or("") {
                "/props" => (
                    200,
                    json!({
                        "default_generation_settings": { "n_ctx": 12288 },
                        "model_path": "/models/tiny-coder.gguf",
                        "chat_template": "{% if tools %}{{ tools }}{% endif %}{{ messages }}"
                    }),
                ),
                "/v1/models" => (
                    200,
                    json!({ "data": [{ "id": "tiny-coder", "meta": { "n_ctx_train": 32768 } }] }),
                ),
                _ => (404, json!({ "error": "not found" })),
            };
            let body = body.to_string();
            let reply = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(reply.as_bytes());
        }
    });
    port
}

#[test]
fn detect_lists_a_llama_cpp_server_on_the_given_port_and_adds_it() {
    let env = support::env();
    let port = fake_llama_cpp();
    let url = format!("http://127.0.0.1:{port}");
    let out = env.bearagent(&[
        "providers",
        "detect",
        "--json",
        "--port",
        &port.to_string(),
        "--timeout-ms",
        "2000",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let server = found["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["base_url"] == url.as_str())
        .unwrap_or_else(|| panic!("{url} not in {found}"));
    assert_eq!(server["kind"], "llama.cpp");
    let model = &server["models"][0];
    assert_eq!(
        (
            model["id"].as_str(),
            model["context_window"].as_u64(),
            model["trained_window"].as_u64(),
            model["tools"].as_bool()
        ),
        (Some("tiny-coder"), Some(12288), Some(32768), Some(true))
    );
    println!("detection took {} ms", found["elapsed_ms"]);

    let human = env.bearagent(&[
        "providers",
        "detect",
        "--port",
        &port.to_string(),
        "--timeout-ms",
        "2000",
    ]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains(&format!("llama.cpp at {url}"))
            && text.contains("tiny-coder — window 12288 tokens (trained 32768), tools: yes"),
        "{text}"
    );

    let add = env.bearagent(&[
        "providers",
        "detect",
        "--url",
        &url,
        "--add",
        "tiny",
        "--model",
        "tiny-coder",
        "--timeout-ms",
        "2000",
    ]);
    assert!(
        add.status.success(),
        "{}",
        String::from_utf8_lossy(&add.stderr)
    );
    assert!(String::from_utf8_lossy(&add.stdout).contains("added provider tiny"));
    let config = std::fs::read_to_string(env.home.path().join("config.toml")).unwrap();
    for line in [
        format!("base_url = \"{url}\""),
        "model = \"tiny-coder\"".into(),
        "context_window = 12288".into(),
        "server = \"llama.cpp\"".into(),
    ] {
        assert!(config.contains(&line), "{line} not in {config}");
    }
    assert!(
        !config.contains("tool_mode"),
        "native is the default: {config}"
    );
    let check = env.bearagent(&["config", "check"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let again = env.bearagent(&[
        "providers",
        "detect",
        "--url",
        &url,
        "--add",
        "tiny",
        "--timeout-ms",
        "2000",
    ]);
    assert_eq!(
        again.status.code(),
        Some(2),
        "an existing provider is not replaced"
    );
}
