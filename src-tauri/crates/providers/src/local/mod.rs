//! Finding local model servers (llama.cpp's llama-server, Ollama, LM
//! Studio, vLLM) on the usual loopback ports, and learning from each what
//! it says about its models: the context window it runs with, whether the
//! chat template takes tools — and, just as plainly, what it does not say.
//! Every port is probed at once under one short deadline; a server that
//! answers oddly is an error for that server, never a panic.

mod fetch;
mod ollama;
mod servers;
mod types;
mod values;

pub use fetch::{CONNECT_TIMEOUT, MAX_BODY_BYTES};
pub use types::{DetectError, Detection, LocalModel, LocalServer, ProbeFailure, ServerKind};

use std::time::Duration;
use tokio::time::Instant;

/// The ports the common servers listen on by default.
pub const DEFAULT_PORTS: [u16; 4] = [8080, 11434, 1234, 8000];

/// The whole detection's deadline when nothing else is asked for.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(300);

/// Where to look and how long to wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectOptions {
    /// Loopback ports, probed as `http://127.0.0.1:PORT`.
    pub ports: Vec<u16>,
    /// Further base URLs (any host), probed as given.
    pub urls: Vec<String>,
    /// The deadline of the whole detection.
    pub budget: Duration,
}

impl Default for DetectOptions {
    fn default() -> Self {
        Self {
            ports: DEFAULT_PORTS.to_vec(),
            urls: Vec::new(),
            budget: DEFAULT_BUDGET,
        }
    }
}

impl DetectOptions {
    /// The default ports plus `ports` and `urls`, each once.
    pub fn with_extra(ports: &[u16], urls: &[String]) -> Self {
        let mut options = Self::default();
        for port in ports {
            if !options.ports.contains(port) {
                options.ports.push(*port);
            }
        }
        options.urls = urls.to_vec();
        options
    }

    fn base_urls(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .ports
            .iter()
            .map(|p| format!("http://127.0.0.1:{p}"))
            .collect();
        for url in &self.urls {
            let url = url.trim().trim_end_matches('/').to_owned();
            if !all.contains(&url) {
                all.push(url);
            }
        }
        all
    }
}

/// Probes every address of `options` at once, within its budget.
pub async fn detect(options: &DetectOptions) -> Detection {
    let started = Instant::now();
    let deadline = started + options.budget;
    let probes = options
        .base_urls()
        .into_iter()
        .map(|url| async move { (url.clone(), probe_until(&url, deadline).await) });
    let mut detection = Detection {
        servers: Vec::new(),
        failures: Vec::new(),
        elapsed_ms: 0,
    };
    for (base_url, outcome) in futures::future::join_all(probes).await {
        match outcome {
            Ok(server) => detection.servers.push(server),
            Err(DetectError::Unreachable { .. }) => {}
            Err(e) => detection.failures.push(ProbeFailure {
                base_url,
                error: e.to_string(),
            }),
        }
    }
    detection.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    detection
}

/// What the server at `base_url` is and offers, within `budget`.
pub async fn probe(base_url: &str, budget: Duration) -> Result<LocalServer, DetectError> {
    probe_until(
        base_url.trim().trim_end_matches('/'),
        Instant::now() + budget,
    )
    .await
}

async fn probe_until(base_url: &str, deadline: Instant) -> Result<LocalServer, DetectError> {
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(DetectError::InvalidUrl {
            url: base_url.to_owned(),
        });
    }
    let budget = deadline.saturating_duration_since(Instant::now());
    let client = fetch::client(budget)?;
    let get = |path: &'static str| {
        let client = &client;
        async move { fetch::json(client, &format!("{base_url}{path}"), None, deadline).await }
    };
    let (props, tags, lm, models) = tokio::join!(
        get("/props"),
        get("/api/tags"),
        get("/api/v0/models"),
        get("/v1/models")
    );
    let answers = servers::Answers {
        props,
        tags,
        lm,
        models,
    };
    servers::identify(&client, base_url, answers, deadline).await
}

#[cfg(test)]
mod tests;
