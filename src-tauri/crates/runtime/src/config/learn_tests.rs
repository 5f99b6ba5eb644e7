use super::*;
use bearagent_providers::local::{LocalModel, ServerKind};

fn server(
    kind: ServerKind,
    url: &str,
    models: &[(&str, Option<u64>, Option<bool>)],
) -> LocalServer {
    LocalServer {
        kind,
        base_url: url.to_owned(),
        models: models
            .iter()
            .map(|(id, window, tools)| LocalModel {
                id: (*id).to_owned(),
                context_window: *window,
                trained_window: None,
                tools: *tools,
                not_learned: Vec::new(),
            })
            .collect(),
    }
}

#[test]
fn only_a_declared_local_chat_server_is_asked() {
    let http = HttpProviderConfig::new("l", Protocol::OpenAiChat, "http://127.0.0.1:8080", "m");
    let mut entry = ProviderEntry {
        protocol: Protocol::OpenAiChat,
        base_url: "http://127.0.0.1:8080".into(),
        model: "m".into(),
        key: KeySource::Unset,
        tool_mode: ToolMode::Native,
        price: None,
        context_window: None,
        vision: None,
        server: None,
    };
    assert!(!should_learn(&http, Some(&entry)) && !should_learn(&http, None));
    entry.server = Some(bearagent_providers::local::ServerKind::Ollama);
    assert!(should_learn(&http, Some(&entry)));
    let responses =
        HttpProviderConfig::new("r", Protocol::OpenAiResponses, "http://127.0.0.1:8080", "m");
    assert!(!should_learn(&responses, Some(&entry)));
    assert_eq!(
        server_root("http://127.0.0.1:11434/v1/"),
        "http://127.0.0.1:11434"
    );
}

#[test]
fn what_was_learned_sets_the_window_and_the_tool_mode() {
    let llama = server(
        ServerKind::LlamaCpp,
        "http://127.0.0.1:8080",
        &[("q", Some(8192), Some(false))],
    );
    let learned = learned_from("http://127.0.0.1:8080", "whatever", Ok(llama));
    assert_eq!(
        (learned.context_window, learned.tools),
        (Some(8192), Some(false))
    );
    assert_eq!(learned.server.as_deref(), Some("llama.cpp"));
    let mut http = HttpProviderConfig::new("l", Protocol::OpenAiChat, "http://127.0.0.1:8080", "q");
    apply(&mut http, learned.clone(), &ProviderOverrides::default());
    assert_eq!(
        (http.context_window, http.tool_mode),
        (Some(8192), ToolMode::JsonText)
    );
    let mut forced =
        HttpProviderConfig::new("l", Protocol::OpenAiChat, "http://127.0.0.1:8080", "q");
    let native = ProviderOverrides {
        tool_mode: Some(ToolMode::Native),
        ..Default::default()
    };
    apply(&mut forced, learned.clone(), &native);
    assert_eq!(forced.tool_mode, ToolMode::Native);
    let mut stated =
        HttpProviderConfig::new("l", Protocol::OpenAiChat, "http://127.0.0.1:8080", "q");
    stated.context_window = Some(2048);
    apply(&mut stated, learned, &ProviderOverrides::default());
    assert_eq!(
        stated.context_window,
        Some(2048),
        "a window the config states wins"
    );

    let failed = learned_from(
        "http://127.0.0.1:9",
        "m",
        Err(DetectError::Unreachable { url: "u".into() }),
    );
    assert_eq!((failed.server, failed.context_window), (None, None));
    assert!(failed.not_learned[0].contains("could not be read"));
    let two = server(
        ServerKind::Ollama,
        "http://127.0.0.1:11434",
        &[("a", Some(1), None), ("b", None, None)],
    );
    let missing = learned_from("u", "c", Ok(two));
    assert!(
        missing.not_learned[0].contains("not among the server's models (a, b)"),
        "{missing:?}"
    );
}

#[test]
fn a_detected_server_becomes_an_entry_with_its_window_and_tool_mode() {
    let servers = [
        server(
            ServerKind::LlamaCpp,
            "http://127.0.0.1:8080",
            &[("q", Some(8192), Some(true))],
        ),
        server(
            ServerKind::Ollama,
            "http://127.0.0.1:11434",
            &[("a", None, Some(false))],
        ),
    ];
    let (s, entry) = entry_for(&servers, None, "x").unwrap();
    assert_eq!(s.kind, ServerKind::LlamaCpp);
    assert_eq!(
        (entry.model.as_str(), entry.context_window, entry.tool_mode),
        ("q", Some(8192), ToolMode::Native)
    );
    let (_, entry) = entry_for(&servers, Some("a"), "x").unwrap();
    assert_eq!(
        (
            entry.protocol,
            entry.base_url.as_str(),
            entry.context_window,
            entry.tool_mode
        ),
        (
            Protocol::OllamaChat,
            "http://127.0.0.1:11434",
            None,
            ToolMode::JsonText
        ),
        "Ollama is spoken to in its own API, its window chosen each run"
    );
    assert!(entry_for(&servers, Some("zz"), "x")
        .unwrap_err()
        .to_string()
        .contains("they offer: q, a"));
    assert!(matches!(
        entry_for(&[], None, "ports 8080"),
        Err(AddError::NothingFound(_))
    ));
}

#[test]
fn an_ollama_provider_always_learns_and_asks_for_the_capped_trained_window() {
    let http = HttpProviderConfig::new("o", Protocol::OllamaChat, "http://127.0.0.1:11434", "q");
    assert!(should_learn(&http, None), "no `server =` needed");
    let mut model = server(
        ServerKind::Ollama,
        "http://127.0.0.1:11434",
        &[("q", None, Some(true))],
    );
    model.models[0].trained_window = Some(131_072);
    model.models[0].not_learned = vec!["context window: not loaded".into()];
    let learned = learned_from("http://127.0.0.1:11434", "q", Ok(model.clone()));
    let mut ollama = http.clone();
    apply(&mut ollama, learned.clone(), &ProviderOverrides::default());
    assert_eq!(ollama.context_window, Some(OLLAMA_DEFAULT_WINDOW));
    let recorded = ollama.learned.unwrap();
    assert_eq!(recorded.context_window, Some(OLLAMA_DEFAULT_WINDOW));
    assert!(
        recorded.not_learned.is_empty(),
        "{:?}",
        recorded.not_learned
    );
    // A small trained window is taken whole; a loaded one as it runs.
    model.models[0].trained_window = Some(8192);
    let mut small = http.clone();
    let learned_small = learned_from("u", "q", Ok(model.clone()));
    apply(&mut small, learned_small, &ProviderOverrides::default());
    assert_eq!(small.context_window, Some(8192));
    model.models[0].context_window = Some(40_960);
    let mut loaded = http.clone();
    apply(
        &mut loaded,
        learned_from("u", "q", Ok(model)),
        &ProviderOverrides::default(),
    );
    assert_eq!(loaded.context_window, Some(40_960));
    // The OpenAI-compatible path keeps what was learned as it was.
    let mut compat = HttpProviderConfig::new("c", Protocol::OpenAiChat, "http://h", "q");
    apply(&mut compat, learned, &ProviderOverrides::default());
    assert_eq!(compat.context_window, None);
}

/// Loaded smaller by another client (Ollama's 4 k default): the run asks
/// for 16 k, since it sends num_ctx itself.
#[test]
fn an_ollama_model_loaded_with_a_small_window_is_asked_for_sixteen_k() {
    let http = HttpProviderConfig::new("o", Protocol::OllamaChat, "http://127.0.0.1:11434", "q");
    let mut model = server(
        ServerKind::Ollama,
        "http://127.0.0.1:11434",
        &[("q", Some(4096), Some(true))],
    );
    model.models[0].trained_window = Some(131_072);
    let mut ollama = http.clone();
    apply(
        &mut ollama,
        learned_from("u", "q", Ok(model)),
        &ProviderOverrides::default(),
    );
    assert_eq!(ollama.context_window, Some(OLLAMA_DEFAULT_WINDOW));
}
