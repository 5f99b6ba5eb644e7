use super::*;
use std::sync::atomic::{AtomicI64, Ordering};

struct TestClock(AtomicI64);

impl Clock for TestClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.0.load(Ordering::SeqCst)).unwrap()
    }
}

impl TestClock {
    fn advance(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

fn clock() -> Arc<TestClock> {
    Arc::new(TestClock(AtomicI64::new(1_700_000_000_000)))
}

fn outcome(url: &str, bytes: u64, truncated: bool) -> FetchOutcome {
    FetchOutcome {
        requested_url: url.into(),
        final_url: url.into(),
        redirects: vec![],
        status: 200,
        content_type: Some("text/plain".into()),
        bytes,
        total_bytes: Some(bytes),
        truncated,
        sha256: String::new(),
        body: vec![b'x'; usize::try_from(bytes).unwrap()],
        text: String::new(),
        elapsed_ms: 1,
        from_cache: false,
        revalidated: false,
        cross_host_redirect: None,
    }
}

fn now() -> Timestamp {
    Timestamp::from_unix_millis(1_700_000_000_000).unwrap()
}

#[test]
fn headers_decide_freshness() {
    let n = now();
    assert_eq!(storable(Some("no-store"), None, None, n), Storable::NoStore);
    assert_eq!(
        storable(Some("private, no-cache"), None, None, n),
        Storable::FreshFor { ms: 0 }
    );
    assert_eq!(
        storable(Some("public, max-age=60"), None, None, n),
        Storable::FreshFor { ms: 60_000 }
    );
    assert_eq!(
        storable(Some("max-age=oops"), None, None, n),
        Storable::FreshFor { ms: 0 }
    );
    assert_eq!(
        storable(None, None, None, n),
        Storable::FreshFor {
            ms: DEFAULT_FRESH_MS
        }
    );
    let date = "Sun, 06 Nov 1994 08:49:37 GMT";
    let expires = "Sun, 06 Nov 1994 08:50:37 GMT";
    assert_eq!(
        storable(None, Some(expires), Some(date), n),
        Storable::FreshFor { ms: 60_000 }
    );
    assert_eq!(
        storable(None, Some("0"), None, n),
        Storable::FreshFor { ms: 0 }
    );
}

#[test]
fn fresh_then_stale_then_refreshed() {
    let clock = clock();
    let mut cache = WebCache::new(clock.clone());
    let url = "https://a.test/";
    let validators = Validators {
        etag: Some("\"v1\"".into()),
        last_modified: None,
    };
    cache.store(url, outcome(url, 3, false), 100, 60_000, validators.clone());
    assert!(matches!(cache.lookup(url, 100), Lookup::Fresh(_)));
    clock.advance(60_000);
    assert_eq!(
        cache.lookup(url, 100),
        Lookup::Stale {
            final_url: url.into(),
            validators
        }
    );
    assert!(cache.refresh(url, 1000).is_some());
    assert!(matches!(cache.lookup(url, 100), Lookup::Fresh(_)));
}

#[test]
fn stale_without_validators_is_a_miss() {
    let clock = clock();
    let mut cache = WebCache::new(clock.clone());
    let url = "https://a.test/";
    cache.store(url, outcome(url, 3, false), 100, 10, Validators::default());
    clock.advance(10);
    assert_eq!(cache.lookup(url, 100), Lookup::Miss);
}

#[test]
fn a_cut_body_cannot_answer_a_larger_cap() {
    let mut cache = WebCache::new(clock());
    let url = "https://a.test/big";
    cache.store(
        url,
        outcome(url, 10, true),
        10,
        60_000,
        Validators::default(),
    );
    assert!(matches!(cache.lookup(url, 10), Lookup::Fresh(_)));
    assert_eq!(cache.lookup(url, 11), Lookup::Miss);
}

#[test]
fn eviction_keeps_the_limits() {
    let clock = clock();
    let mut cache = WebCache::with_limits(clock.clone(), 2, 1000);
    for i in 0..3 {
        let url = format!("https://a.test/{i}");
        cache.store(
            &url,
            outcome(&url, 5, false),
            100,
            60_000,
            Validators::default(),
        );
        clock.advance(1);
    }
    assert_eq!(cache.len(), 2);
    assert_eq!(cache.lookup("https://a.test/0", 100), Lookup::Miss);
    cache.store(
        "https://a.test/big",
        outcome("x", 999, false),
        1000,
        60_000,
        Validators::default(),
    );
    assert_eq!(cache.len(), 1, "bytes over the limit push out the oldest");
}
