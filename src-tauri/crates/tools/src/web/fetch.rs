//! The fetcher: one GET, run by the backend (never from inside the command
//! sandbox), through the floor, redirects followed by hand within one host,
//! inside a total timeout, the body capped while it streams, answered from
//! the cache when it can.

use crate::web::body::{self, BodyKind};
use crate::web::cache::{Lookup as CacheLookup, WebCache};
use crate::web::floor::FloorExceptions;
use crate::web::hop::{self, Answer, Conditional};
use crate::web::outcome::{millis, FetchError, FetchOutcome};
use crate::web::read;
use crate::web::resolve::{FloorResolver, Lookup, SystemLookup};
use crate::web::target;
use bearagent_kernel::Clock;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Default cap on the bytes kept from one body.
pub const DEFAULT_MAX_BYTES: u64 = 1024 * 1024;
/// The most a call may ask for.
pub const MAX_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// How the fetcher behaves; the user's config fills it.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    pub connect_timeout: Duration,
    /// For the whole fetch: DNS, every hop, the body.
    pub total_timeout: Duration,
    pub max_redirects: usize,
    pub default_max_bytes: u64,
    /// Hosts the user's config lists: past the floor, plain HTTP kept.
    pub exceptions: FloorExceptions,
    /// No network: the cache answers what it can, the rest is `Offline`.
    pub offline: bool,
    pub user_agent: String,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            total_timeout: Duration::from_secs(30),
            max_redirects: 5,
            default_max_bytes: DEFAULT_MAX_BYTES,
            exceptions: FloorExceptions::none(),
            offline: false,
            user_agent: format!("BearAgent/{} (web_fetch)", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// One fetch as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchRequest {
    pub url: String,
    /// None: the config's default. Clamped to 1..=[`MAX_MAX_BYTES`].
    pub max_bytes: Option<u64>,
    /// Keep `http://` as is instead of upgrading (asked for explicitly).
    pub plain_http: bool,
}

impl FetchRequest {
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_bytes: None,
            plain_http: false,
        }
    }
}

/// The fetcher. Shared by a run (or the app): it holds the HTTP clients'
/// connection pools and the cache.
pub struct Fetcher {
    config: FetchConfig,
    /// Resolves through the floor.
    checked: reqwest::Client,
    /// For hosts the user's config lists: no floor.
    exempt: reqwest::Client,
    cache: Mutex<WebCache>,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Fetcher {
    /// With the system's DNS.
    pub fn new(config: FetchConfig, clock: Arc<dyn Clock>) -> Result<Self, FetchError> {
        Self::with_lookup(config, clock, Arc::new(SystemLookup))
    }

    /// With a DNS lookup of the caller's (tests answer names from a table).
    pub fn with_lookup(
        config: FetchConfig,
        clock: Arc<dyn Clock>,
        lookup: Arc<dyn Lookup>,
    ) -> Result<Self, FetchError> {
        let checked = build_client(&config, Arc::clone(&lookup), true)?;
        let exempt = build_client(&config, lookup, false)?;
        Ok(Self {
            config,
            checked,
            exempt,
            cache: Mutex::new(WebCache::new(clock)),
        })
    }

    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// Fetch `req`: from the cache when fresh, else over the network.
    pub async fn fetch(&self, req: &FetchRequest) -> Result<FetchOutcome, FetchError> {
        let started = Instant::now();
        let url = target::normalise(&req.url, req.plain_http, &self.config.exceptions)?;
        let cap = req
            .max_bytes
            .unwrap_or(self.config.default_max_bytes)
            .clamp(1, MAX_MAX_BYTES);
        let key = url.as_str().to_owned();
        let conditional = match self.cache().lookup(&key, cap) {
            CacheLookup::Fresh(held) => return Ok(from_cache(*held, cap, started, false)),
            CacheLookup::Stale {
                final_url,
                validators,
            } => Some(Conditional {
                final_url,
                validators,
            }),
            CacheLookup::Miss => None,
        };
        if self.config.offline {
            return Err(FetchError::Offline {
                detail: format!("{key} is not in the cache and the network is off"),
            });
        }
        let total = self.config.total_timeout;
        let network = self.network(url, req.plain_http, cap, conditional.as_ref(), started);
        match tokio::time::timeout(total, network).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout {
                after_ms: millis(total),
            }),
        }
    }

    /// The network part: hops, then the body or the cache's copy on a 304.
    async fn network(
        &self,
        url: reqwest::Url,
        plain_http: bool,
        cap: u64,
        conditional: Option<&Conditional>,
        started: Instant,
    ) -> Result<FetchOutcome, FetchError> {
        let key = url.as_str().to_owned();
        let route = hop::Route {
            checked: &self.checked,
            exempt: &self.exempt,
            exceptions: &self.config.exceptions,
            plain_http,
            max_redirects: self.config.max_redirects,
            connect_timeout: self.config.connect_timeout,
        };
        match hop::follow(&route, url, conditional).await? {
            Answer::NotModified { headers } => {
                let mut cache = self.cache();
                let now = cache.now();
                // A 304 that says no-store still confirms this copy once.
                let fresh_ms = read::freshness(&headers, now).unwrap_or(0);
                let held = cache.refresh(&key, fresh_ms);
                drop(cache);
                match held {
                    Some(held) => Ok(from_cache(held, cap, started, true)),
                    None => Err(FetchError::Http {
                        detail: "304 Not Modified for a page no longer cached".into(),
                    }),
                }
            }
            Answer::CrossHost { reply, to } => Ok(read::cross_host(&key, reply, to, started)),
            Answer::Reply(reply) => {
                let now = self.cache().now();
                let got = read::read_reply(&key, reply, cap, started, now).await?;
                self.keep(&key, cap, &got);
                Ok(got.outcome)
            }
        }
    }

    /// Cache a 200 the headers allow; a no-store answer evicts the old copy.
    fn keep(&self, key: &str, cap: u64, got: &read::Read) {
        let mut cache = self.cache();
        match got.fresh_ms {
            Some(ms) if got.outcome.status == 200 => {
                cache.store(key, got.outcome.clone(), cap, ms, got.validators.clone())
            }
            _ => cache.forget(key),
        }
    }

    fn cache(&self) -> MutexGuard<'_, WebCache> {
        // A panic elsewhere while holding the lock leaves a usable map.
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn build_client(
    config: &FetchConfig,
    lookup: Arc<dyn Lookup>,
    checked: bool,
) -> Result<reqwest::Client, FetchError> {
    reqwest::Client::builder()
        .use_rustls_tls()
        // Redirects are followed by hand, each hop checked.
        .redirect(reqwest::redirect::Policy::none())
        // A proxy resolves names itself, out of the floor's sight.
        .no_proxy()
        .connect_timeout(config.connect_timeout)
        .dns_resolver(Arc::new(FloorResolver::new(lookup, checked)))
        .user_agent(config.user_agent.clone())
        .build()
        .map_err(|e| FetchError::Http {
            detail: format!("cannot build the HTTP client: {e}"),
        })
}

/// A held answer served again: cut to `cap` when the caller asked for less
/// than is held, marked as from the cache.
fn from_cache(
    mut held: FetchOutcome,
    cap: u64,
    started: Instant,
    revalidated: bool,
) -> FetchOutcome {
    if held.bytes > cap {
        let keep = usize::try_from(cap).unwrap_or(usize::MAX);
        held.body.truncate(keep);
        held.bytes = cap;
        held.truncated = true;
        held.sha256 = body::sha256_hex(&held.body);
        let kind = match body::kind_of(held.content_type.as_deref()) {
            BodyKind::Html => BodyKind::Html,
            _ => BodyKind::Text,
        };
        held.text = body::to_text(kind, &held.body);
    }
    held.from_cache = true;
    held.revalidated = revalidated;
    held.elapsed_ms = millis(started.elapsed());
    held
}
