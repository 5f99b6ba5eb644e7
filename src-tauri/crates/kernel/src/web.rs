//! Web fetches in a run (issue 55): the per-domain rules a run was created
//! with (recorded, so a replay decides as the run did) and what a fetch
//! recorded (`WebFetched`, `WebFetchFailed`).

use crate::ids::ContentHash;
use serde::{Deserialize, Serialize};

/// What a domain rule does with a fetch of a host it names.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WebRuleDecision {
    Allow,
    Ask,
    Deny,
}

/// `{ domain = "docs.rs", decision = "allow" }`: `domain` is a host,
/// `*.example.com` (its subdomains) or `*` (every host).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebRule {
    pub domain: String,
    pub decision: WebRuleDecision,
}

/// One same-host redirect a fetch followed.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebRedirect {
    pub from: String,
    pub to: String,
    pub status: u16,
}

/// Where the URL of a fetch came from, as the run's record showed it when
/// the call was decided.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebUrlOrigin {
    /// In the goal or a follow-up message (this run's or an ancestor's).
    UserWritten,
    /// In a page fetched earlier in the thread.
    FromFetchedPage,
    /// Neither: the model wrote it.
    ModelMade,
}

impl WebUrlOrigin {
    /// How the CLI and the UI word it.
    pub fn describe(self) -> &'static str {
        match self {
            WebUrlOrigin::UserWritten => "from your message",
            WebUrlOrigin::FromFetchedPage => "from a fetched page",
            WebUrlOrigin::ModelMade => "written by the model",
        }
    }
}

/// What a `web_fetch` that got an answer recorded. The raw bytes kept are
/// the blob `body` (what a replay serves); `sha256` is their hex digest as
/// the fetcher computed it. A status of 400 and above is an error result.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebFetchRecord {
    /// As asked, normalised (fragment dropped, HTTP upgraded).
    pub requested_url: String,
    pub final_url: String,
    /// Same-host redirects followed, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redirects: Vec<WebRedirect>,
    pub status: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Bytes kept (at most the cap).
    pub bytes: u64,
    /// The full size when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<u64>,
    pub truncated: bool,
    pub sha256: String,
    pub body: ContentHash,
    pub elapsed_ms: u64,
    /// Answered from the app's cache (fresh, or confirmed by a 304).
    pub from_cache: bool,
    /// A redirect to another host, not followed: the model may fetch it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_host_redirect: Option<String>,
    /// Where the URL came from when the call was decided.
    pub origin: WebUrlOrigin,
}

/// A `web_fetch` that got no answer: refused by the floor (`blocked`),
/// the network (`offline`, `unreachable`, `timeout`), not text, …
/// `code` is stable (never parse `message`).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebFailure {
    pub url: String,
    pub code: String,
    pub message: String,
    pub origin: WebUrlOrigin,
}

impl WebFetchRecord {
    /// The one-line wording of a fetch, shared by the CLI's timeline and
    /// the exported report: the URLs, the status, the size, the origin.
    pub fn line(&self) -> String {
        use crate::units::human_bytes;
        let mut line = format!(
            "fetched {} ({})",
            self.requested_url,
            self.origin.describe()
        );
        if self.final_url != self.requested_url {
            line.push_str(&format!(" → {}", self.final_url));
        }
        if !self.redirects.is_empty() {
            line.push_str(&format!(" after {} redirect(s)", self.redirects.len()));
        }
        line.push_str(&format!(": {}, {}", self.status, human_bytes(self.bytes)));
        if self.truncated {
            let of = self
                .total_bytes
                .map_or_else(|| "more".to_owned(), human_bytes);
            line.push_str(&format!(" (truncated, of {of})"));
        }
        let short = self.sha256.get(..12).unwrap_or(&self.sha256);
        line.push_str(&format!(", sha256 {short}…, {} ms", self.elapsed_ms));
        if self.from_cache {
            line.push_str(", from the cache");
        }
        if let Some(to) = &self.cross_host_redirect {
            line.push_str(&format!("; redirects to another host, not followed: {to}"));
        }
        line
    }
}

impl WebFailure {
    /// The one-line wording of a failed fetch.
    pub fn line(&self) -> String {
        format!(
            "fetch of {} ({}) failed [{}]: {}",
            self.url,
            self.origin.describe(),
            self.code,
            self.message
        )
    }
}
