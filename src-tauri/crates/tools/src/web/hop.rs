//! The hops of one fetch: each checked against the floor and sent through
//! the client that fits its host, redirects followed by hand within the
//! same host (a redirect to another host is handed back, not followed), a
//! conditional request when the cache holds a stale copy.

use crate::web::cache::Validators;
use crate::web::floor::FloorExceptions;
use crate::web::outcome::{millis, FetchError, Redirect};
use crate::web::resolve::{find_in_chain, LookupFailed, Refused};
use crate::web::target;
use reqwest::header::{HeaderMap, ACCEPT, IF_MODIFIED_SINCE, IF_NONE_MATCH, LOCATION};
use reqwest::{Response, StatusCode, Url};
use std::time::Duration;

/// What an agent reads best first; anything else is still accepted (and
/// refused later if it is not text).
const ACCEPT_VALUE: &str =
    "text/html, text/markdown;q=0.95, text/plain;q=0.9, application/json;q=0.9, */*;q=0.1";

/// Everything a hop needs from the fetcher.
pub(crate) struct Route<'a> {
    pub checked: &'a reqwest::Client,
    pub exempt: &'a reqwest::Client,
    pub exceptions: &'a FloorExceptions,
    pub plain_http: bool,
    pub max_redirects: usize,
    pub connect_timeout: Duration,
}

/// The cache's stale copy: asked about at the URL it came from.
#[derive(Debug, Clone)]
pub(crate) struct Conditional {
    pub final_url: String,
    pub validators: Validators,
}

/// The response of the last hop and the chain that led there.
pub(crate) struct Reply {
    pub url: Url,
    pub redirects: Vec<Redirect>,
    pub response: Response,
}

pub(crate) enum Answer {
    Reply(Reply),
    /// The last hop redirects to another host: `to`, not followed.
    CrossHost {
        reply: Reply,
        to: String,
    },
    /// The server confirmed the cache's copy; its headers may renew it.
    NotModified {
        headers: HeaderMap,
    },
}

/// Follow `start` to an answer.
pub(crate) async fn follow(
    route: &Route<'_>,
    start: Url,
    conditional: Option<&Conditional>,
) -> Result<Answer, FetchError> {
    let mut url = start;
    let mut redirects = Vec::new();
    loop {
        let cond = conditional.filter(|c| c.final_url == url.as_str());
        let response = send(route, &url, cond).await?;
        let status = response.status();
        if status == StatusCode::NOT_MODIFIED && cond.is_some() {
            let headers = response.headers().clone();
            return Ok(Answer::NotModified { headers });
        }
        let location = match status.is_redirection() {
            true => header_str(response.headers(), LOCATION.as_str()),
            false => None,
        };
        let Some(location) = location else {
            return Ok(Answer::Reply(Reply {
                url,
                redirects,
                response,
            }));
        };
        let next = target::redirect_target(&url, &location, route.plain_http, route.exceptions)?;
        if !target::same_host(&url, &next) {
            let reply = Reply {
                url,
                redirects,
                response,
            };
            let to = next.to_string();
            return Ok(Answer::CrossHost { reply, to });
        }
        if redirects.len() >= route.max_redirects {
            return Err(FetchError::TooManyRedirects {
                limit: route.max_redirects,
            });
        }
        redirects.push(Redirect {
            from: url.to_string(),
            to: next.to_string(),
            status: status.as_u16(),
        });
        url = next;
    }
}

/// One GET: the floor first, then the client for this host.
async fn send(
    route: &Route<'_>,
    url: &Url,
    cond: Option<&Conditional>,
) -> Result<Response, FetchError> {
    let exempt = target::is_exempt(url, route.exceptions);
    target::check_hop(url, exempt)?;
    let client = if exempt { route.exempt } else { route.checked };
    let mut request = client.get(url.clone()).header(ACCEPT, ACCEPT_VALUE);
    if let Some(cond) = cond {
        if let Some(etag) = &cond.validators.etag {
            request = request.header(IF_NONE_MATCH, etag);
        }
        if let Some(at) = &cond.validators.last_modified {
            request = request.header(IF_MODIFIED_SINCE, at);
        }
    }
    request
        .send()
        .await
        .map_err(|e| classify(&e, url, route.connect_timeout))
}

/// A header as text (a value that is not text counts as absent).
pub(crate) fn header_str(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// reqwest's error as ours: the floor's refusal and a failed DNS lookup
/// travel inside it from our resolver.
pub(crate) fn classify(err: &reqwest::Error, url: &Url, connect_timeout: Duration) -> FetchError {
    if let Some(r) = find_in_chain::<Refused>(err) {
        return FetchError::Blocked {
            address: r.address.clone(),
            reason: r.reason,
        };
    }
    if let Some(l) = find_in_chain::<LookupFailed>(err) {
        return FetchError::Offline {
            detail: l.to_string(),
        };
    }
    if err.is_timeout() {
        return FetchError::Timeout {
            after_ms: millis(connect_timeout),
        };
    }
    let detail = root_cause(err);
    if err.is_connect() {
        if let Some(io) = find_in_chain::<std::io::Error>(err) {
            use std::io::ErrorKind::{HostUnreachable, NetworkDown, NetworkUnreachable};
            if matches!(
                io.kind(),
                NetworkUnreachable | HostUnreachable | NetworkDown
            ) {
                return FetchError::Offline { detail };
            }
        }
        return FetchError::Unreachable {
            host: url.host_str().unwrap_or_default().to_owned(),
            detail,
        };
    }
    FetchError::Http { detail }
}

/// The innermost message: reqwest's outer ones only repeat the URL.
pub(crate) fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut current = err;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}
