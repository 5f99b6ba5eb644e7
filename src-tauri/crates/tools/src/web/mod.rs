//! `web_fetch`'s core: a GET you can audit and that cannot be steered into
//! leaking (issue 55). The backend runs it, never the command sandbox.
//!
//! - [`floor`]: addresses no rule lifts (loopback, private, link-local,
//!   metadata), checked after DNS on every hop, on the very addresses
//!   connected to; only hosts the user's config lists pass.
//! - [`fetch`]: the [`Fetcher`] — HTTPS (HTTP upgraded), same-host
//!   redirects by hand, timeouts, a byte cap while streaming, HTML to
//!   Markdown, a typed [`FetchOutcome`] or [`FetchError`].
//! - [`cache`]: per-URL, Cache-Control/ETag aware, on an injected clock.
//! - [`provenance`]: where a URL came from (the user, a fetched page, the
//!   model) and the per-domain rules, as pure functions for the runtime.

mod body;
pub mod cache;
pub mod fetch;
pub mod floor;
mod hop;
pub mod outcome;
pub mod provenance;
mod read;
pub mod resolve;
pub mod rules;
mod target;

pub use body::html_to_markdown;
pub use fetch::{FetchConfig, FetchRequest, Fetcher, DEFAULT_MAX_BYTES, MAX_MAX_BYTES};
pub use floor::{check_ip, check_name, BadException, FloorExceptions, FloorReason};
pub use outcome::{FetchError, FetchOutcome, Redirect};
pub use provenance::{extract_urls, KnownUrls, UrlOrigin};
pub use resolve::{Lookup, SystemLookup};
pub use rules::{decide, DomainRule, DomainRules, RuleAction, RuleError, WebDecision};
pub use target::parse_url;
