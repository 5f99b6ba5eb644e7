//! The last hop's body read into an outcome: binary refused before a byte
//! is read, text read up to the cap while it streams (the rest is never
//! read), hashed and converted; and what the cache may keep of it.

use crate::web::body::{self, BodyKind, CappedBody};
use crate::web::cache::{self, Storable, Validators};
use crate::web::hop::{header_str, root_cause, Reply};
use crate::web::outcome::{millis, FetchError, FetchOutcome};
use bearagent_kernel::Timestamp;
use reqwest::header::{HeaderMap, CACHE_CONTROL, CONTENT_TYPE, DATE, ETAG, EXPIRES, LAST_MODIFIED};
use reqwest::Response;
use std::time::Instant;

/// An outcome read from the network, with what the cache needs.
pub(crate) struct Read {
    pub outcome: FetchOutcome,
    /// None: the headers forbid keeping it.
    pub fresh_ms: Option<u64>,
    pub validators: Validators,
}

/// How long the headers let an answer be reused; None for no-store.
pub(crate) fn freshness(headers: &HeaderMap, now: Timestamp) -> Option<u64> {
    let get = |name: &reqwest::header::HeaderName| header_str(headers, name.as_str());
    let cc = get(&CACHE_CONTROL);
    let expires = get(&EXPIRES);
    let date = get(&DATE);
    match cache::storable(cc.as_deref(), expires.as_deref(), date.as_deref(), now) {
        Storable::NoStore => None,
        Storable::FreshFor { ms } => Some(ms),
    }
}

/// Read the reply's body into an outcome.
pub(crate) async fn read_reply(
    requested: &str,
    reply: Reply,
    cap: u64,
    started: Instant,
    now: Timestamp,
) -> Result<Read, FetchError> {
    let Reply {
        url,
        redirects,
        mut response,
    } = reply;
    let headers = response.headers().clone();
    let content_type = header_str(&headers, CONTENT_TYPE.as_str());
    let mut kind = body::kind_of(content_type.as_deref());
    let not_text = |what: &str| FetchError::NotText {
        url: url.to_string(),
        content_type: what.to_owned(),
    };
    if kind == BodyKind::Binary {
        return Err(not_text(content_type.as_deref().unwrap_or("binary")));
    }
    let hint = response.content_length();
    let capped = read_capped(&mut response, cap, hint).await?;
    if kind == BodyKind::Unknown {
        if body::looks_binary(&capped.bytes) {
            return Err(not_text("binary content (no Content-Type)"));
        }
        kind = BodyKind::Text;
    }
    let bytes = u64::try_from(capped.bytes.len()).unwrap_or(u64::MAX);
    let truncated = capped.cut || hint.is_some_and(|total| total > bytes);
    let outcome = FetchOutcome {
        requested_url: requested.to_owned(),
        final_url: url.to_string(),
        redirects,
        status: response.status().as_u16(),
        content_type,
        bytes,
        total_bytes: hint.or((!truncated).then_some(bytes)),
        truncated,
        sha256: body::sha256_hex(&capped.bytes),
        text: body::to_text(kind, &capped.bytes),
        body: capped.bytes,
        elapsed_ms: millis(started.elapsed()),
        from_cache: false,
        revalidated: false,
        cross_host_redirect: None,
    };
    Ok(Read {
        outcome,
        fresh_ms: freshness(&headers, now),
        validators: Validators {
            etag: header_str(&headers, ETAG.as_str()),
            last_modified: header_str(&headers, LAST_MODIFIED.as_str()),
        },
    })
}

/// Chunks until the cap; the connection is dropped with the rest unread.
async fn read_capped(
    response: &mut Response,
    cap: u64,
    hint: Option<u64>,
) -> Result<CappedBody, FetchError> {
    let limit = usize::try_from(cap).unwrap_or(usize::MAX);
    let mut body = CappedBody::default();
    while let Some(chunk) = response.chunk().await.map_err(body_error)? {
        if body.push(&chunk, limit) {
            continue;
        }
        // Exactly at the cap: without a length, one more chunk tells
        // whether anything was left.
        if !body.cut && hint.is_none() {
            let more = response.chunk().await.map_err(body_error)?;
            body.cut = more.is_some_and(|more| !more.is_empty());
        }
        break;
    }
    Ok(body)
}

fn body_error(e: reqwest::Error) -> FetchError {
    FetchError::Http {
        detail: format!("reading the body: {}", root_cause(&e)),
    }
}

/// A redirect to another host, handed back unfollowed: no body is read.
pub(crate) fn cross_host(
    requested: &str,
    reply: Reply,
    to: String,
    started: Instant,
) -> FetchOutcome {
    FetchOutcome {
        requested_url: requested.to_owned(),
        final_url: reply.url.to_string(),
        redirects: reply.redirects,
        status: reply.response.status().as_u16(),
        content_type: None,
        bytes: 0,
        total_bytes: None,
        truncated: false,
        sha256: body::sha256_hex(&[]),
        body: Vec::new(),
        text: String::new(),
        elapsed_ms: millis(started.elapsed()),
        from_cache: false,
        revalidated: false,
        cross_host_redirect: Some(to),
    }
}
