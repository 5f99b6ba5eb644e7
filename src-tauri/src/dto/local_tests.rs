use super::*;
use bearagent_runtime::config::{KeySource, NamedKeySource, ProviderEntry};
use bearagent_runtime::{Protocol, ToolMode};
use serde_json::json;

fn server() -> LocalServer {
    LocalServer {
        kind: ServerKind::LlamaCpp,
        base_url: "http://127.0.0.1:8080".into(),
        models: vec![LocalModel {
            id: "qwen2.5-coder-7b".into(),
            context_window: Some(32_768),
            trained_window: Some(131_072),
            tools: None,
            not_learned: vec!["tool support: the server did not say".into()],
        }],
    }
}

#[test]
fn a_detection_crosses_with_camel_case_fields_and_the_config_spelling_of_kinds() {
    let detection = Detection {
        servers: vec![server()],
        failures: vec![ProbeFailure {
            base_url: "http://127.0.0.1:8000".into(),
            error: "http://127.0.0.1:8000 did not answer in time".into(),
        }],
        elapsed_ms: 6,
    };
    let view = LocalDetectionView::from(detection);
    assert_eq!(
        serde_json::to_value(&view).unwrap(),
        json!({
            "servers": [{
                "kind": "llama.cpp",
                "baseUrl": "http://127.0.0.1:8080",
                "models": [{
                    "id": "qwen2.5-coder-7b",
                    "contextWindow": 32768,
                    "trainedWindow": 131072,
                    "tools": null,
                    "notLearned": ["tool support: the server did not say"],
                }],
            }],
            "failures": [{
                "baseUrl": "http://127.0.0.1:8000",
                "error": "http://127.0.0.1:8000 did not answer in time",
            }],
            "elapsedMs": 6,
        })
    );
}

#[test]
fn every_server_kind_keeps_its_config_spelling() {
    for kind in [
        ServerKind::LlamaCpp,
        ServerKind::Ollama,
        ServerKind::LmStudio,
        ServerKind::Vllm,
        ServerKind::OpenAiCompatible,
    ] {
        assert_eq!(
            serde_json::to_value(LocalServerKindView::from(kind)).unwrap(),
            json!(kind.as_str())
        );
    }
}

#[test]
fn an_added_provider_names_its_entry_and_tool_mode() {
    let added = AddedProvider {
        name: "local".into(),
        server: server(),
        entry: ProviderEntry {
            protocol: Protocol::OpenAiChat,
            base_url: "http://127.0.0.1:8080".into(),
            model: "qwen2.5-coder-7b".into(),
            key: KeySource::Named(NamedKeySource::None),
            tool_mode: ToolMode::JsonText,
            price: None,
            context_window: Some(32_768),
            vision: None,
            server: Some(ServerKind::LlamaCpp),
        },
    };
    assert_eq!(
        serde_json::to_value(AddedLocalProviderView::from(added)).unwrap(),
        json!({
            "name": "local",
            "kind": "llama.cpp",
            "baseUrl": "http://127.0.0.1:8080",
            "model": "qwen2.5-coder-7b",
            "contextWindow": 32768,
            "toolMode": "json-text",
        })
    );
}
