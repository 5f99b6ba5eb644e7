//! Reading each server's answers: which kind it is (the most specific
//! answer wins: Ollama's tags, llama.cpp's props, LM Studio's v0 models,
//! then `/v1/models`), and what it says about windows and tools. Every
//! field is read defensively: a missing or odd one is "not learned".

use super::types::{DetectError, LocalModel, LocalServer, ServerKind};
use super::values::{count, id_of};
use serde_json::{json, Value};
use tokio::time::Instant;

/// Models read from one list at most (a server listing more is odd).
const MAX_MODELS: usize = 64;

/// The four first answers of a server, each a JSON value or why not.
pub(super) struct Answers {
    pub props: Result<Value, DetectError>,
    pub tags: Result<Value, DetectError>,
    pub lm: Result<Value, DetectError>,
    pub models: Result<Value, DetectError>,
}

pub(super) async fn identify(
    client: &reqwest::Client,
    base_url: &str,
    answers: Answers,
    deadline: Instant,
) -> Result<LocalServer, DetectError> {
    let server = |kind, models| LocalServer {
        kind,
        base_url: base_url.to_owned(),
        models,
    };
    if let Some(names) = answers.tags.as_ref().ok().and_then(ollama_names) {
        let models = super::ollama::models(client, base_url, names, deadline).await;
        return Ok(server(ServerKind::Ollama, models));
    }
    if let Some(props) = answers.props.as_ref().ok().filter(|p| is_llama_props(p)) {
        let listed = answers.models.as_ref().ok().and_then(model_list);
        return Ok(server(ServerKind::LlamaCpp, llama_models(props, listed)));
    }
    if let Some(list) = answers.lm.as_ref().ok().and_then(model_list) {
        return Ok(server(ServerKind::LmStudio, lm_studio_models(&list)));
    }
    if let Some(list) = answers.models.as_ref().ok().and_then(model_list) {
        let vllm = list
            .iter()
            .any(|m| m.get("max_model_len").is_some() || m["owned_by"] == "vllm");
        return Ok(if vllm {
            server(ServerKind::Vllm, vllm_models(&list))
        } else {
            server(ServerKind::OpenAiCompatible, generic_models(&list))
        });
    }
    Err(why_not(base_url, answers))
}

/// The most telling failure among the four answers.
fn why_not(base_url: &str, answers: Answers) -> DetectError {
    let all = [answers.models, answers.props, answers.tags, answers.lm];
    if all
        .iter()
        .all(|a| matches!(a, Err(DetectError::Unreachable { .. })))
    {
        return DetectError::Unreachable {
            url: base_url.to_owned(),
        };
    }
    let telling = all.into_iter().find_map(|a| match a {
        Err(
            e @ (DetectError::Timeout { .. }
            | DetectError::TooLarge { .. }
            | DetectError::BadJson { .. }
            | DetectError::Transport { .. }),
        ) => Some(e),
        _ => None,
    });
    telling.unwrap_or_else(|| DetectError::Unrecognised {
        url: base_url.to_owned(),
    })
}

fn ollama_names(tags: &Value) -> Option<Vec<String>> {
    let models = tags.get("models")?.as_array()?;
    Some(
        models
            .iter()
            .filter_map(|m| id_of(m.get("name").or_else(|| m.get("model"))?))
            .take(MAX_MODELS)
            .collect(),
    )
}

/// `data` of an OpenAI-style list (`/v1/models`, `/api/v0/models`).
fn model_list(v: &Value) -> Option<Vec<Value>> {
    let data = v.get("data")?.as_array()?;
    Some(data.iter().take(MAX_MODELS).cloned().collect())
}

fn is_llama_props(props: &Value) -> bool {
    [
        "default_generation_settings",
        "n_ctx",
        "chat_template",
        "model_path",
    ]
    .iter()
    .any(|k| props.get(k).is_some())
}

fn llama_models(props: &Value, listed: Option<Vec<Value>>) -> Vec<LocalModel> {
    let window = count(props.pointer("/default_generation_settings/n_ctx"))
        .or_else(|| count(props.get("n_ctx")));
    let tools = match props.pointer("/chat_template_caps/supports_tools") {
        Some(Value::Bool(b)) => Some(*b),
        _ => props
            .get("chat_template")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .map(|t| t.contains("tools")),
    };
    let mut not_learned = Vec::new();
    if window.is_none() {
        not_learned.push("context window: /props gave no n_ctx".to_owned());
    }
    if tools.is_none() {
        not_learned.push("tool support: /props gave no chat template".to_owned());
    }
    let entries: Vec<(String, Option<u64>)> = match listed {
        Some(list) if !list.is_empty() => list
            .iter()
            .filter_map(|m| Some((id_of(m.get("id")?)?, count(m.pointer("/meta/n_ctx_train")))))
            .collect(),
        _ => llama_id(props).map(|id| (id, None)).into_iter().collect(),
    };
    entries
        .into_iter()
        .map(|(id, trained_window)| LocalModel {
            id,
            context_window: window,
            trained_window,
            tools,
            not_learned: not_learned.clone(),
        })
        .collect()
}

/// The model's name from `/props`: its alias, else its file's name.
fn llama_id(props: &Value) -> Option<String> {
    if let Some(alias) = props.get("model_alias").and_then(id_of) {
        return Some(alias);
    }
    let path = props.get("model_path")?.as_str()?;
    let file = path.rsplit(['/', '\\']).next()?;
    id_of(&json!(file))
}

fn lm_studio_models(list: &[Value]) -> Vec<LocalModel> {
    list.iter()
        .filter(|m| m["type"] != "embeddings")
        .filter_map(|m| {
            let id = id_of(m.get("id")?)?;
            let trained_window = count(m.get("max_context_length"));
            let context_window = count(m.get("loaded_context_length"));
            let tools = m
                .get("capabilities")
                .and_then(Value::as_array)
                .map(|caps| caps.iter().any(|c| c == "tool_use"));
            let mut not_learned = Vec::new();
            if context_window.is_none() {
                not_learned.push(
                    "context window: the model is not loaded; LM Studio loads it with the \
                     length set in the app, which it reports only once loaded"
                        .to_owned(),
                );
            }
            if tools.is_none() {
                not_learned.push("tool support: LM Studio did not list capabilities".to_owned());
            }
            Some(LocalModel {
                id,
                context_window,
                trained_window,
                tools,
                not_learned,
            })
        })
        .collect()
}

fn vllm_models(list: &[Value]) -> Vec<LocalModel> {
    list.iter()
        .filter_map(|m| {
            let context_window = count(m.get("max_model_len"));
            let mut not_learned = vec!["tool support: vLLM needs --enable-auto-tool-choice and a \
                 --tool-call-parser, which it does not report"
                .to_owned()];
            if context_window.is_none() {
                not_learned.push("context window: no max_model_len".to_owned());
            }
            Some(LocalModel {
                id: id_of(m.get("id")?)?,
                context_window,
                trained_window: None,
                tools: None,
                not_learned,
            })
        })
        .collect()
}

fn generic_models(list: &[Value]) -> Vec<LocalModel> {
    list.iter()
        .filter_map(|m| {
            Some(LocalModel {
                id: id_of(m.get("id")?)?,
                context_window: None,
                trained_window: None,
                tools: None,
                not_learned: vec![
                    "context window: /v1/models does not say".to_owned(),
                    "tool support: /v1/models does not say".to_owned(),
                ],
            })
        })
        .collect()
}
