//! `web_fetch`: one web page as raw text (HTML converted to Markdown),
//! fetched by the backend through [`Fetcher`] — never from inside the
//! command sandbox, never summarised by a model on the way.
//!
//! Its spec says `ReadOnly`, so the policy alone would let any URL through
//! under the `reads` mode, and a URL the model assembled can carry data
//! out: the runtime's route (`run/web_step.rs`) first classifies the URL
//! ([`KnownUrls`](crate::web::KnownUrls)) and applies the domain rules
//! ([`decide`](crate::web::decide)); then it runs the call with
//! [`WebFetch::run`].

use super::common::{make_spec, own_args};
use crate::args::Args;
use crate::authorization::AuthorizedCall;
use crate::error::ArgumentError;
use crate::spec::{Effect, PreparedCall, Tool, ToolSpec};
use crate::web::{self, FetchError, FetchOutcome, FetchRequest, Fetcher};
use crate::workspace::WorkspaceRoot;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

pub const NAME: &str = "web_fetch";

/// The prepared arguments (the URL normalised, `max_bytes` defaulted).
#[derive(Debug, Serialize, Deserialize)]
pub struct FetchArgs {
    pub url: String,
    pub max_bytes: u64,
}

pub struct WebFetch {
    spec: ToolSpec,
}

impl WebFetch {
    pub fn new() -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "The http(s) URL to fetch, exactly as the user wrote it or as it appeared in a page fetched earlier. http is upgraded to https."},
                "max_bytes": {"type": "integer", "minimum": 1, "maximum": web::MAX_MAX_BYTES, "description": "Keep at most this many bytes of the body. Default 1048576 (1 MiB)."}
            },
            "required": ["url"],
            "additionalProperties": false
        });
        Self {
            spec: make_spec(
                NAME,
                "Fetch one web page (GET) and return it as text: HTML converted to Markdown, text and JSON as they are; \
                 binary content is refused. Redirects are followed within the same host only; a redirect to another host \
                 is returned for you to fetch. A body over max_bytes is cut, with a '[truncated: N of M bytes]' line. \
                 URLs the user did not write and no fetched page contained need the user's approval.",
                parameters,
                Effect::ReadOnly,
            ),
        }
    }
}

impl Default for WebFetch {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for WebFetch {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(
        &self,
        args: &Map<String, Value>,
        _ws: &WorkspaceRoot,
    ) -> Result<PreparedCall, ArgumentError> {
        let args = Args::new(args, &["url", "max_bytes"])?;
        let raw = args.required_str("url")?;
        let url = web::parse_url(raw).map_err(|e| match e {
            FetchError::InvalidUrl { reason, .. } => ArgumentError::invalid("url", reason),
            other => ArgumentError::invalid("url", other.to_string()),
        })?;
        let max_bytes = args.uint_or("max_bytes", web::DEFAULT_MAX_BYTES, 1, web::MAX_MAX_BYTES)?;
        // The full URL, never shortened: it is what the user approves.
        let summary = format!("fetch {url}");
        let normalised = FetchArgs {
            url: url.to_string(),
            max_bytes,
        };
        Ok(PreparedCall::read_only(
            self.spec.name.clone(),
            summary,
            json!(normalised),
        ))
    }
}

impl FetchArgs {
    /// The arguments of a call `web_fetch` prepared (None for another
    /// tool's call).
    pub fn of(call: &PreparedCall) -> Option<FetchArgs> {
        if call.tool().as_str() != NAME {
            return None;
        }
        FetchArgs::deserialize(call.args()).ok()
    }
}

/// How one fetch went, and the text the model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebFetchRun {
    pub outcome: Result<FetchOutcome, FetchError>,
    pub for_model: String,
}

impl WebFetchRun {
    /// No answer, or a status of 400 and above.
    pub fn is_error(&self) -> bool {
        self.outcome.as_ref().map_or(true, FetchOutcome::is_error)
    }
}

impl WebFetch {
    /// The one way a fetch runs: the authorised call, through the run's
    /// fetcher (its floor exceptions, timeouts and cache). The authorisation
    /// is spent here. Cancelling drops the request at once.
    pub async fn run(
        &self,
        call: AuthorizedCall,
        fetcher: &Fetcher,
        cancel: CancellationToken,
    ) -> WebFetchRun {
        let outcome = match own_args::<FetchArgs>(&self.spec, &call) {
            Ok(args) => {
                let req = FetchRequest {
                    url: args.url,
                    max_bytes: Some(args.max_bytes),
                    plain_http: false,
                };
                tokio::select! {
                    biased; // a cancel already given wins over a fetch
                    () = cancel.cancelled() => Err(FetchError::Cancelled),
                    result = fetcher.fetch(&req) => result,
                }
            }
            Err(e) => Err(FetchError::InvalidUrl {
                url: String::new(),
                reason: e.to_string(),
            }),
        };
        let for_model = match &outcome {
            Ok(out) => out.for_model(),
            Err(e) => format!("web_fetch failed: {e}"),
        };
        WebFetchRun { outcome, for_model }
    }
}

#[cfg(test)]
#[path = "web_fetch_tests.rs"]
mod tests;
