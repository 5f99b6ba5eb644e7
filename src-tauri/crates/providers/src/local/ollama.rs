//! Ollama: `/api/tags` names the models, `/api/show` tells each one's
//! trained window, template and capabilities, `/api/ps` the window a
//! loaded model runs with. Its OpenAI-compatible API cannot set `num_ctx`;
//! the provider speaking its own API (`ollama-chat`) sends one, chosen from
//! what is learned here.

use super::fetch;
use super::types::{DetectError, LocalModel};
use super::values::{count, id_of};
use serde_json::{json, Value};
use tokio::time::Instant;

pub(super) async fn models(
    client: &reqwest::Client,
    base_url: &str,
    names: Vec<String>,
    deadline: Instant,
) -> Vec<LocalModel> {
    let ps_url = format!("{base_url}/api/ps");
    let show_url = format!("{base_url}/api/show");
    let shows = names.iter().map(|name| {
        let body = json!({ "model": name });
        let url = &show_url;
        async move { fetch::json(client, url, Some(&body), deadline).await }
    });
    let (ps, shows) = tokio::join!(
        fetch::json(client, &ps_url, None, deadline),
        futures::future::join_all(shows)
    );
    let ps = ps.ok();
    names
        .into_iter()
        .zip(shows)
        .map(|(name, show)| model(name, show, ps.as_ref()))
        .collect()
}

fn model(name: String, show: Result<Value, DetectError>, ps: Option<&Value>) -> LocalModel {
    let mut not_learned = Vec::new();
    let show = match show {
        Ok(show) => show,
        Err(e) => {
            not_learned.push(format!("details: {e}"));
            Value::Null
        }
    };
    let running = ps.and_then(|ps| loaded_window(ps, &name));
    let context_window = running.or_else(|| num_ctx(&show));
    if context_window.is_none() {
        not_learned.push(
            "context window: Ollama reports the num_ctx it runs the model with (OLLAMA_CONTEXT_LENGTH \
             or the Modelfile) only once the model is loaded; the ollama-chat provider then sends \
             the trained window, capped, and its OpenAI API cannot set one — or set context_window"
                .to_owned(),
        );
    }
    let tools = tool_support(&show);
    if tools.is_none() {
        not_learned.push("tool support: /api/show gave no capabilities or template".to_owned());
    }
    LocalModel {
        id: name,
        context_window,
        trained_window: trained_window(&show),
        tools,
        not_learned,
    }
}

/// `model_info["<arch>.context_length"]`.
fn trained_window(show: &Value) -> Option<u64> {
    let info = show.get("model_info")?.as_object()?;
    let arch = info.get("general.architecture").and_then(Value::as_str);
    if let Some(n) = arch.and_then(|a| count(info.get(&format!("{a}.context_length")))) {
        return Some(n);
    }
    info.iter()
        .find(|(k, _)| k.ends_with(".context_length"))
        .and_then(|(_, v)| count(Some(v)))
}

/// `num_ctx N` among the Modelfile's parameters.
fn num_ctx(show: &Value) -> Option<u64> {
    let parameters = show.get("parameters")?.as_str()?;
    parameters.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next()? == "num_ctx").then(|| words.next()?.parse().ok())?
    })
}

/// The window `/api/ps` says a loaded model runs with.
fn loaded_window(ps: &Value, name: &str) -> Option<u64> {
    ps.get("models")?.as_array()?.iter().find_map(|m| {
        let named = [m.get("name"), m.get("model")]
            .into_iter()
            .flatten()
            .filter_map(id_of)
            .any(|n| n == name);
        named.then(|| count(m.get("context_length")))?
    })
}

fn tool_support(show: &Value) -> Option<bool> {
    if let Some(caps) = show.get("capabilities").and_then(Value::as_array) {
        return Some(caps.iter().any(|c| c == "tools"));
    }
    let template = show.get("template")?.as_str()?;
    (!template.trim().is_empty()).then(|| template.contains(".Tools"))
}
