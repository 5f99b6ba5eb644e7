//! One capped JSON request to a local server: a deadline for the whole
//! exchange, a short connect timeout, a body cap, and every failure a
//! `DetectError` naming the URL — never a panic, whatever the server sends.

use super::types::DetectError;
use serde_json::Value;
use std::time::Duration;
use tokio::time::Instant;

/// The largest body a probe reads (a chat template and a model's metadata
/// fit many times over).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The longest a probe waits for a TCP connection on loopback.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(150);

pub(super) fn client(budget: Duration) -> Result<reqwest::Client, DetectError> {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT.min(budget))
        .timeout(budget)
        .no_proxy()
        .user_agent(concat!("bearagent/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| DetectError::Transport {
            url: String::new(),
            message: e.to_string(),
        })
}

/// GET `url` (POST with `body`), as JSON, before `deadline`.
pub(super) async fn json(
    client: &reqwest::Client,
    url: &str,
    body: Option<&Value>,
    deadline: Instant,
) -> Result<Value, DetectError> {
    let exchange = async {
        let request = match body {
            Some(body) => client.post(url).json(body),
            None => client.get(url),
        };
        let response = request.send().await.map_err(|e| classify(url, &e))?;
        let status = response.status();
        if !status.is_success() {
            return Err(DetectError::Status {
                url: url.to_owned(),
                status: status.as_u16(),
            });
        }
        let bytes = capped(url, response).await?;
        serde_json::from_slice(&bytes).map_err(|e| DetectError::BadJson {
            url: url.to_owned(),
            message: e.to_string(),
        })
    };
    match tokio::time::timeout_at(deadline, exchange).await {
        Ok(result) => result,
        Err(_) => Err(DetectError::Timeout {
            url: url.to_owned(),
        }),
    }
}

/// The body, refused past [`MAX_BODY_BYTES`] (read chunk by chunk, so a
/// huge or endless body costs at most the cap).
async fn capped(url: &str, mut response: reqwest::Response) -> Result<Vec<u8>, DetectError> {
    if response
        .content_length()
        .is_some_and(|n| n > MAX_BODY_BYTES as u64)
    {
        return Err(too_large(url));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| classify(url, &e))? {
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(too_large(url));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn too_large(url: &str) -> DetectError {
    DetectError::TooLarge {
        url: url.to_owned(),
        limit: MAX_BODY_BYTES,
    }
}

fn classify(url: &str, e: &reqwest::Error) -> DetectError {
    let url = url.to_owned();
    if e.is_connect() {
        DetectError::Unreachable { url }
    } else if e.is_timeout() {
        DetectError::Timeout { url }
    } else {
        DetectError::Transport {
            url,
            message: e.to_string(),
        }
    }
}
