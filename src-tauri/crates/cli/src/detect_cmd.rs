//! `bearagent providers detect`: the local model servers on this machine,
//! their models, windows and tool support — and, with `--add NAME`, one
//! of them written into the config as a provider.

use crate::args::ProviderDetectArgs;
use crate::exit::{self, Exit};
use bearagent_providers::local::{DetectOptions, Detection, LocalModel};
use bearagent_providers::Protocol;
use bearagent_runtime::{AddedProvider, Application, ToolMode};
use serde_json::json;
use std::time::Duration;

pub async fn detect(app: &Application, args: ProviderDetectArgs) -> Exit {
    let mut options = DetectOptions::with_extra(&args.ports, &args.urls);
    options.budget = Duration::from_millis(args.timeout_ms.max(1));
    if let Some(name) = &args.add {
        return match app
            .add_detected_provider(name, args.model.as_deref(), &options)
            .await
        {
            Ok(added) => {
                print_added(&added, args.json);
                Exit::Succeeded
            }
            Err(e) => exit::report(&e),
        };
    }
    let found = app.detect_local_providers(&options).await;
    if args.json {
        match serde_json::to_string(&found) {
            Ok(text) => println!("{text}"),
            Err(e) => return exit::usage(e),
        }
    } else {
        print_detection(&found, &options);
    }
    Exit::Succeeded
}

fn print_detection(found: &Detection, options: &DetectOptions) {
    if found.servers.is_empty() {
        println!(
            "no local model server found (looked at ports {:?}{})",
            options.ports,
            if options.urls.is_empty() {
                String::new()
            } else {
                format!(" and {}", options.urls.join(", "))
            }
        );
    }
    for server in &found.servers {
        println!("{} at {}", server.kind, server.base_url);
        if server.models.is_empty() {
            println!("  (no models listed)");
        }
        for model in &server.models {
            println!("  {}", model_line(model));
            for note in &model.not_learned {
                println!("    not learned: {note}");
            }
        }
    }
    for failure in &found.failures {
        println!("could not read {}: {}", failure.base_url, failure.error);
    }
    println!("({} ms)", found.elapsed_ms);
}

fn model_line(model: &LocalModel) -> String {
    let window = match (model.context_window, model.trained_window) {
        (Some(w), Some(t)) if t != w => format!("window {w} tokens (trained {t})"),
        (Some(w), _) => format!("window {w} tokens"),
        (None, Some(t)) => format!("window unknown (trained {t})"),
        (None, None) => "window unknown".to_owned(),
    };
    let tools = match model.tools {
        Some(true) => "tools: yes",
        Some(false) => "tools: no (JSON-text mode)",
        None => "tools: unknown",
    };
    format!("{} — {window}, {tools}", model.id)
}

fn print_added(added: &AddedProvider, as_json: bool) {
    let e = &added.entry;
    let mode = match e.tool_mode {
        ToolMode::Native => "native",
        ToolMode::JsonText => "json-text",
    };
    if as_json {
        let line = json!({
            "added": added.name,
            "server": added.server.kind,
            "protocol": e.protocol,
            "base_url": e.base_url,
            "model": e.model,
            "context_window": e.context_window,
            "tool_mode": mode,
        });
        println!("{line}");
        return;
    }
    let window = match (e.context_window, e.protocol) {
        (Some(w), _) => format!("{w} tokens"),
        // Ollama's own API takes the window with each request.
        (None, Protocol::OllamaChat) => "learned before each run and sent as num_ctx".to_owned(),
        (None, _) => "not learned (the model family's default applies)".to_owned(),
    };
    println!(
        "added provider {}: {} at {} ({}), model {}, window {window}, tool mode {mode}",
        added.name, added.server.kind, e.base_url, e.protocol, e.model
    );
    println!(
        "use it: bearagent run --provider {} --workspace DIR \"GOAL\"",
        added.name
    );
}
