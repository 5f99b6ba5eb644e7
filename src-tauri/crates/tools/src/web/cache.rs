//! Per-URL cache of successful fetches, in memory. Honours Cache-Control
//! (`no-store`, `no-cache`, `max-age`) and Expires; otherwise an answer is
//! fresh for 15 minutes. A stale answer with an ETag or Last-Modified is
//! revalidated (a 304 refreshes it). Time comes from an injected [`Clock`]
//! so tests move it instead of sleeping.

use crate::web::outcome::FetchOutcome;
use bearagent_kernel::{Clock, Timestamp};
use std::collections::HashMap;
use std::sync::Arc;

/// Freshness when the server says nothing.
pub const DEFAULT_FRESH_MS: u64 = 15 * 60 * 1000;

/// What the response headers allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storable {
    NoStore,
    /// Fresh for this long (0: revalidate on every use).
    FreshFor {
        ms: u64,
    },
}

/// Read Cache-Control, then Expires (against Date, else `now`).
pub fn storable(
    cache_control: Option<&str>,
    expires: Option<&str>,
    date: Option<&str>,
    now: Timestamp,
) -> Storable {
    if let Some(cc) = cache_control {
        let mut max_age = None;
        for directive in cc.split(',').map(|d| d.trim().to_ascii_lowercase()) {
            if directive == "no-store" {
                return Storable::NoStore;
            }
            if directive == "no-cache" {
                return Storable::FreshFor { ms: 0 };
            }
            if let Some(v) = directive.strip_prefix("max-age=") {
                // An unreadable max-age means "stale" (RFC 9111 4.2.1).
                max_age = Some(v.trim_matches('"').parse::<u64>().unwrap_or(0));
            }
        }
        if let Some(secs) = max_age {
            return Storable::FreshFor {
                ms: secs.saturating_mul(1000),
            };
        }
    }
    if let Some(expires) = expires {
        let base = date.and_then(http_date_ms).unwrap_or(now.unix_millis());
        // An unreadable Expires (often "0" or "-1") means already expired.
        let ms = http_date_ms(expires).map_or(0, |at| at.saturating_sub(base).max(0));
        return Storable::FreshFor {
            ms: u64::try_from(ms).unwrap_or(0),
        };
    }
    Storable::FreshFor {
        ms: DEFAULT_FRESH_MS,
    }
}

fn http_date_ms(s: &str) -> Option<i64> {
    let at = httpdate::parse_http_date(s.trim()).ok()?;
    let ms = at.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis();
    i64::try_from(ms).ok()
}

/// The validators a stale entry offers for a conditional request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

struct Entry {
    outcome: FetchOutcome,
    /// The cap the body was read with: a later call asking for more than a
    /// cut body holds must fetch again.
    cap: u64,
    stored_at: Timestamp,
    fresh_ms: u64,
    validators: Validators,
}

/// What the cache holds for a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Fresh(Box<FetchOutcome>),
    /// Stale but revalidatable: ask the server with these validators at
    /// `final_url`.
    Stale {
        final_url: String,
        validators: Validators,
    },
    Miss,
}

/// Bounded by entry count and by the body bytes held; the oldest entry
/// goes first.
pub struct WebCache {
    clock: Arc<dyn Clock>,
    entries: HashMap<String, Entry>,
    max_entries: usize,
    max_total_bytes: u64,
}

impl WebCache {
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self::with_limits(clock, 256, 64 * 1024 * 1024)
    }

    pub fn with_limits(clock: Arc<dyn Clock>, max_entries: usize, max_total_bytes: u64) -> Self {
        Self {
            clock,
            entries: HashMap::new(),
            max_entries,
            max_total_bytes,
        }
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// The entry for `url` when it can answer a call capped at `cap`.
    pub fn lookup(&self, url: &str, cap: u64) -> Lookup {
        let Some(entry) = self.entries.get(url) else {
            return Lookup::Miss;
        };
        if entry.outcome.truncated && cap > entry.cap {
            return Lookup::Miss; // the held body is shorter than asked
        }
        let age = self.clock.now().millis_since(entry.stored_at);
        if age < entry.fresh_ms {
            return Lookup::Fresh(Box::new(entry.outcome.clone()));
        }
        if entry.validators.is_empty() {
            return Lookup::Miss;
        }
        Lookup::Stale {
            final_url: entry.outcome.final_url.clone(),
            validators: entry.validators.clone(),
        }
    }

    /// A 304 for `url`: fresh again for `fresh_ms`; returns the held answer.
    pub fn refresh(&mut self, url: &str, fresh_ms: u64) -> Option<FetchOutcome> {
        let now = self.clock.now();
        let entry = self.entries.get_mut(url)?;
        entry.stored_at = now;
        entry.fresh_ms = fresh_ms;
        Some(entry.outcome.clone())
    }

    /// Keep a successful answer (the caller checked it is storable).
    pub fn store(
        &mut self,
        url: &str,
        outcome: FetchOutcome,
        cap: u64,
        fresh_ms: u64,
        validators: Validators,
    ) {
        let entry = Entry {
            outcome,
            cap,
            stored_at: self.clock.now(),
            fresh_ms,
            validators,
        };
        self.entries.insert(url.to_owned(), entry);
        self.evict();
    }

    /// Forget `url` (a no-store answer replaced it).
    pub fn forget(&mut self, url: &str) {
        self.entries.remove(url);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn evict(&mut self) {
        loop {
            let total: u64 = self.entries.values().map(|e| e.outcome.bytes).sum();
            if self.entries.len() <= self.max_entries && total <= self.max_total_bytes {
                return;
            }
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.stored_at)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(key) => self.entries.remove(&key),
                None => return,
            };
        }
    }
}

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
