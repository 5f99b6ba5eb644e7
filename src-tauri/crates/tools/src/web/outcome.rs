//! What a fetch produced, or why it produced nothing. The outcome carries
//! every fact the fetch event records (URLs, redirect chain, status, sizes,
//! sha256, the raw body) and the text the model is shown.

use crate::web::floor::FloorReason;

/// One hop that answered with a redirect we followed (same host only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub from: String,
    pub to: String,
    pub status: u16,
}

/// A fetch that got an answer. Statuses of 400 and above are outcomes too
/// (the page is recorded like any other); [`FetchOutcome::is_error`] says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOutcome {
    /// As asked, after normalisation (fragment dropped, HTTP upgraded).
    pub requested_url: String,
    pub final_url: String,
    pub redirects: Vec<Redirect>,
    pub status: u16,
    pub content_type: Option<String>,
    /// Bytes kept (at most the cap).
    pub bytes: u64,
    /// The full size when known: from Content-Length, or counted when the
    /// whole body was read.
    pub total_bytes: Option<u64>,
    pub truncated: bool,
    /// Hex sha256 of `body`.
    pub sha256: String,
    /// The raw bytes kept, exactly as received.
    pub body: Vec<u8>,
    /// `body` as text: HTML converted to Markdown, text and JSON as they are.
    pub text: String,
    pub elapsed_ms: u64,
    /// Answered from the cache (fresh, or revalidated by a 304).
    pub from_cache: bool,
    /// The cache's copy was confirmed by the server (304 Not Modified).
    pub revalidated: bool,
    /// A redirect to another host, returned instead of followed.
    pub cross_host_redirect: Option<String>,
}

impl FetchOutcome {
    /// The server answered with a status of 400 or more.
    pub fn is_error(&self) -> bool {
        self.status >= 400
    }

    /// The one-line note on a cut body: `truncated: N of M bytes`.
    pub fn truncation_note(&self) -> Option<String> {
        if !self.truncated {
            return None;
        }
        Some(match self.total_bytes {
            Some(total) => format!("truncated: {} of {total} bytes", self.bytes),
            None => format!(
                "truncated: {} of more than {} bytes",
                self.bytes, self.bytes
            ),
        })
    }

    /// What the model is shown: a short header of facts, then the text as
    /// it is (no summary, no model in the middle).
    pub fn for_model(&self) -> String {
        let mut head = format!("URL: {}\nstatus: {}", self.final_url, self.status);
        if self.final_url != self.requested_url {
            head.push_str(&format!("\nrequested: {}", self.requested_url));
        }
        for r in &self.redirects {
            head.push_str(&format!("\nredirect {}: {} -> {}", r.status, r.from, r.to));
        }
        if let Some(to) = &self.cross_host_redirect {
            head.push_str(&format!(
                "\nredirects to another host, not followed: {to}\n(fetch that URL to follow it)"
            ));
        }
        if let Some(ct) = &self.content_type {
            head.push_str(&format!("\ncontent-type: {ct}"));
        }
        if let Some(note) = self.truncation_note() {
            head.push_str(&format!("\n[{note}]"));
        }
        if self.revalidated {
            head.push_str("\n[from cache, confirmed unchanged by the server]");
        } else if self.from_cache {
            head.push_str("\n[from cache]");
        }
        format!("{head}\n\n{}", self.text)
    }
}

/// Why a fetch produced no answer. Never a panic: every failure is one of
/// these, with a message that says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("invalid URL `{url}`: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error(
        "refused: {address} is {reason}; fetches never reach it unless your config lists the host"
    )]
    Blocked {
        address: String,
        reason: FloorReason,
    },
    #[error("offline: {detail}")]
    Offline { detail: String },
    #[error("cannot connect to {host}: {detail}")]
    Unreachable { host: String, detail: String },
    #[error("timed out after {after_ms} ms")]
    Timeout { after_ms: u64 },
    #[error("more than {limit} redirects")]
    TooManyRedirects { limit: usize },
    #[error("HTTP error: {detail}")]
    Http { detail: String },
    #[error("not text: {url} is {content_type}; only HTML, text and JSON are fetched")]
    NotText { url: String, content_type: String },
    #[error("cancelled")]
    Cancelled,
}

impl FetchError {
    /// A short stable code for events and the UI (never parse messages).
    pub fn code(&self) -> &'static str {
        match self {
            FetchError::InvalidUrl { .. } => "invalid_url",
            FetchError::Blocked { .. } => "blocked",
            FetchError::Offline { .. } => "offline",
            FetchError::Unreachable { .. } => "unreachable",
            FetchError::Timeout { .. } => "timeout",
            FetchError::TooManyRedirects { .. } => "too_many_redirects",
            FetchError::Http { .. } => "http",
            FetchError::NotText { .. } => "not_text",
            FetchError::Cancelled => "cancelled",
        }
    }
}

/// Whole milliseconds, saturating.
pub(crate) fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
