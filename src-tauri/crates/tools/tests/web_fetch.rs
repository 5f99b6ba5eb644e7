//! `web_fetch` against a real HTTP server on loopback that the test starts.
//! Loopback is on the floor, so each fetcher here lists the server's
//! `127.0.0.1:port` explicitly, as a user's config would — except the SSRF
//! tests, whose fetcher lists nothing and whose server must see no
//! connection at all.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "support/web_server.rs"]
mod web_server;

use bearagent_kernel::{Clock, Timestamp};
use bearagent_tools::web::{
    decide, DomainRule, DomainRules, FetchConfig, FetchError, FetchRequest, Fetcher,
    FloorExceptions, KnownUrls, Lookup, RuleAction, UrlOrigin, WebDecision,
};
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use web_server::{Server, BIG_BYTES, PAGE_HTML};

struct TestClock(AtomicI64);

impl Clock for TestClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(self.0.load(Ordering::SeqCst)).unwrap()
    }
}

impl TestClock {
    fn new() -> Arc<Self> {
        Arc::new(Self(AtomicI64::new(1_700_000_000_000)))
    }
    fn advance(&self, d: Duration) {
        self.0
            .fetch_add(i64::try_from(d.as_millis()).unwrap(), Ordering::SeqCst);
    }
}

/// DNS from a table: test names resolve without a network.
struct TableLookup(HashMap<&'static str, Vec<IpAddr>>);

impl Lookup for TableLookup {
    fn lookup(&self, host: &str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send>> {
        let answer =
            self.0.get(host).cloned().ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, format!("no such host {host}"))
            });
        Box::pin(async move { answer })
    }
}

fn table() -> Arc<TableLookup> {
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    Arc::new(TableLookup(HashMap::from([
        ("loopback.test", vec![ip("127.0.0.1")]),
        ("rebind.test", vec![ip("93.184.216.34"), ip("127.0.0.1")]),
        ("metadata.test", vec![ip("169.254.169.254")]),
        ("private6.test", vec![ip("fd00::1")]),
    ])))
}

fn config(exempt: &[String]) -> FetchConfig {
    FetchConfig {
        exceptions: FloorExceptions::parse(exempt).unwrap(),
        connect_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_secs(5),
        ..FetchConfig::default()
    }
}

/// A fetcher that lists `server` explicitly, on a clock the test moves.
fn fetcher_for(server: &Server) -> (Fetcher, Arc<TestClock>) {
    let clock = TestClock::new();
    let config = config(&[server.addr.to_string()]);
    (
        Fetcher::with_lookup(config, clock.clone(), table()).unwrap(),
        clock,
    )
}

async fn get(f: &Fetcher, url: &str) -> Result<bearagent_tools::web::FetchOutcome, FetchError> {
    f.fetch(&FetchRequest::new(url)).await
}

#[tokio::test]
async fn html_is_fetched_raw_and_converted_to_markdown() {
    let server = Server::start().await;
    let (f, _) = fetcher_for(&server);
    let out = get(&f, &server.url("/page")).await.unwrap();
    assert_eq!(out.status, 200);
    assert_eq!(
        out.final_url,
        server.url("/page"),
        "a listed host keeps http"
    );
    assert_eq!(
        out.body,
        PAGE_HTML.as_bytes(),
        "the raw body is kept as sent"
    );
    assert_eq!(out.bytes as usize, PAGE_HTML.len());
    assert_eq!(out.total_bytes, Some(out.bytes));
    assert!(!out.truncated && !out.from_cache && out.redirects.is_empty());
    assert_eq!(out.sha256.len(), 64);
    assert!(out.text.contains("# Bear notes"), "{}", out.text);
    assert!(out.text.contains("[guide](/guide)"), "{}", out.text);
    assert!(out.text.contains("one"), "{}", out.text);
    assert!(
        !out.text.contains("steal") && !out.text.contains("color"),
        "{}",
        out.text
    );
    assert!(out
        .for_model()
        .starts_with(&format!("URL: {}\nstatus: 200", server.url("/page"))));
}

#[tokio::test]
async fn text_and_json_come_as_they_are_and_binary_is_refused() {
    let server = Server::start().await;
    let (f, _) = fetcher_for(&server);
    assert_eq!(
        get(&f, &server.url("/text")).await.unwrap().text,
        "plain text, kept as is\n"
    );
    assert_eq!(
        get(&f, &server.url("/json")).await.unwrap().text,
        r#"{"a": [1, 2], "b": "<x>"}"#
    );
    let err = get(&f, &server.url("/image")).await.unwrap_err();
    assert!(
        matches!(&err, FetchError::NotText { content_type, .. } if content_type == "image/png"),
        "{err}"
    );
}

#[tokio::test]
async fn same_host_redirects_are_followed_with_the_chain_recorded() {
    let server = Server::start().await;
    let (f, _) = fetcher_for(&server);
    let out = get(&f, &server.url("/same")).await.unwrap();
    assert_eq!(out.requested_url, server.url("/same"));
    assert_eq!(out.final_url, server.url("/page"));
    let chain: Vec<_> = out
        .redirects
        .iter()
        .map(|r| (r.from.clone(), r.to.clone(), r.status))
        .collect();
    assert_eq!(
        chain,
        [
            (server.url("/same"), server.url("/hop"), 302),
            (server.url("/hop"), server.url("/page"), 302),
        ]
    );
    assert!(out.text.contains("# Bear notes"));
}

#[tokio::test]
async fn a_cross_host_redirect_is_returned_not_followed() {
    let server = Server::start().await;
    let (f, _) = fetcher_for(&server);
    let out = get(&f, &server.url("/cross")).await.unwrap();
    assert_eq!(out.status, 302);
    assert_eq!(
        out.cross_host_redirect.as_deref(),
        Some("https://other.test/elsewhere")
    );
    assert!(out.body.is_empty());
    assert!(out
        .for_model()
        .contains("not followed: https://other.test/elsewhere"));
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn redirect_loops_stop() {
    let server = Server::start().await;
    let (f, _) = fetcher_for(&server);
    let err = get(&f, &server.url("/loop")).await.unwrap_err();
    assert_eq!(err, FetchError::TooManyRedirects { limit: 5 });
    assert_eq!(server.hits("/loop"), 6);
}

#[tokio::test]
async fn a_404_is_an_outcome_with_its_page() {
    let server = Server::start().await;
    let (f, _) = fetcher_for(&server);
    let out = get(&f, &server.url("/missing")).await.unwrap();
    assert_eq!(out.status, 404);
    assert!(out.is_error());
    assert!(out.text.contains("Not here"));
}

#[tokio::test]
async fn a_slow_server_times_out_instead_of_hanging() {
    let server = Server::start().await;
    let clock = TestClock::new();
    let mut config = config(&[server.addr.to_string()]);
    config.total_timeout = Duration::from_millis(300);
    let f = Fetcher::with_lookup(config, clock, table()).unwrap();
    let started = Instant::now();
    let err = get(&f, &server.url("/slow")).await.unwrap_err();
    assert_eq!(err, FetchError::Timeout { after_ms: 300 });
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_20_mb_body_is_cut_at_the_cap_and_says_so() {
    let server = Server::start().await;
    let (f, _) = fetcher_for(&server);
    let started = Instant::now();
    let out = get(&f, &server.url("/big")).await.unwrap();
    assert_eq!(out.bytes, 1024 * 1024, "the default cap");
    assert_eq!(out.body.len(), 1024 * 1024);
    assert_eq!(out.total_bytes, Some(BIG_BYTES as u64));
    assert!(out.truncated);
    let note = format!("truncated: 1048576 of {BIG_BYTES} bytes");
    assert_eq!(out.truncation_note().as_deref(), Some(note.as_str()));
    assert!(out.for_model().contains(&format!("[{note}]")));
    assert!(started.elapsed() < Duration::from_secs(3));

    let mut req = FetchRequest::new(server.url("/big-unsized"));
    req.max_bytes = Some(1000);
    let out = f.fetch(&req).await.unwrap();
    assert_eq!(
        (out.bytes, out.total_bytes, out.truncated),
        (1000, None, true)
    );
    assert_eq!(
        out.truncation_note().as_deref(),
        Some("truncated: 1000 of more than 1000 bytes")
    );
}

#[tokio::test]
async fn repeats_are_answered_from_the_cache_until_stale() {
    let server = Server::start().await;
    let (f, clock) = fetcher_for(&server);
    let first = get(&f, &server.url("/plain")).await.unwrap();
    let again = get(&f, &server.url("/plain")).await.unwrap();
    assert!(!first.from_cache && again.from_cache);
    assert!(again.for_model().contains("[from cache]"));
    assert_eq!(
        (again.body.clone(), again.sha256.clone()),
        (first.body, first.sha256)
    );
    assert_eq!(server.hits("/plain"), 1);
    clock.advance(Duration::from_secs(15 * 60));
    assert!(
        !get(&f, &server.url("/plain")).await.unwrap().from_cache,
        "15 minutes by default"
    );
    assert_eq!(server.hits("/plain"), 2);

    get(&f, &server.url("/cached")).await.unwrap();
    clock.advance(Duration::from_secs(59));
    assert!(
        get(&f, &server.url("/cached")).await.unwrap().from_cache,
        "max-age=60"
    );
    clock.advance(Duration::from_secs(1));
    assert!(!get(&f, &server.url("/cached")).await.unwrap().from_cache);

    let page = f
        .fetch(&FetchRequest::new(server.url("/page")))
        .await
        .unwrap();
    let mut cut = FetchRequest::new(server.url("/page"));
    cut.max_bytes = Some(10);
    let cut = f.fetch(&cut).await.unwrap();
    assert!(
        cut.from_cache && cut.truncated,
        "a smaller cap is cut from the held copy"
    );
    assert_eq!((cut.bytes, cut.total_bytes), (10, page.total_bytes));
    assert_eq!(cut.body, page.body[..10]);

    get(&f, &server.url("/nostore")).await.unwrap();
    assert!(
        !get(&f, &server.url("/nostore")).await.unwrap().from_cache,
        "no-store"
    );
    assert_eq!(server.hits("/nostore"), 2);
}

#[tokio::test]
async fn a_stale_copy_is_revalidated_with_its_etag() {
    let server = Server::start().await;
    let (f, clock) = fetcher_for(&server);
    let first = get(&f, &server.url("/etag")).await.unwrap();
    clock.advance(Duration::from_secs(61));
    let second = get(&f, &server.url("/etag")).await.unwrap();
    assert!(second.from_cache && second.revalidated);
    assert_eq!(second.body, first.body);
    assert_eq!(second.status, 200, "the held answer, confirmed");
    assert!(second.for_model().contains("confirmed unchanged"));
    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].header("if-none-match"), None);
    assert_eq!(seen[1].header("if-none-match"), Some("\"v1\""));
    let third = get(&f, &server.url("/etag")).await.unwrap();
    assert!(
        third.from_cache && !third.revalidated,
        "the 304 renewed max-age"
    );
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn offline_is_a_clear_result_never_a_hang() {
    let server = Server::start().await;
    let clock = TestClock::new();
    let online = Fetcher::with_lookup(config(&[]), clock.clone(), table()).unwrap();
    let err = get(&online, "https://nowhere.test/").await.unwrap_err();
    assert!(
        matches!(&err, FetchError::Offline { detail } if detail.contains("nowhere.test")),
        "{err}"
    );
    assert!(err.to_string().starts_with("offline: "));

    let mut off = config(&[server.addr.to_string()]);
    off.offline = true;
    let f = Fetcher::with_lookup(off, clock, table()).unwrap();
    let err = get(&f, &server.url("/page")).await.unwrap_err();
    assert!(matches!(err, FetchError::Offline { .. }), "{err}");
    assert_eq!(server.connections(), 0);
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let f = Fetcher::with_lookup(config(&[addr.to_string()]), TestClock::new(), table()).unwrap();
    let err = get(&f, &format!("http://{addr}/")).await.unwrap_err();
    assert!(matches!(err, FetchError::Unreachable { .. }), "{err}");
}

/// Twenty-odd spellings of "this machine, the LAN or the metadata
/// service", all aimed at the live server's port; none may connect.
fn ssrf_corpus(port: u16) -> Vec<String> {
    [
        "127.0.0.1",
        "0.0.0.0",
        "10.0.0.1",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.100.100.200",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[fe80::1]",
        "[fc00::1]",
        "[::]",
        "[fd00:ec2::254]",
        "2130706433",
        "0x7f.1",
        "0177.0.0.1",
        "127.1",
        "0x7f000001",
        "localhost",
        "api.localhost",
        "loopback.test",
        "rebind.test",
        "metadata.test",
        "private6.test",
        "metadata.google.internal",
    ]
    .iter()
    .map(|host| format!("http://{host}:{port}/latest/meta-data/"))
    .collect()
}

#[tokio::test]
async fn the_floor_refuses_every_private_form_before_connecting() {
    let server = Server::start().await;
    let f = Fetcher::with_lookup(config(&[]), TestClock::new(), table()).unwrap();
    let corpus = ssrf_corpus(server.addr.port());
    assert!(corpus.len() >= 20);
    for url in &corpus {
        for plain_http in [true, false] {
            let req = FetchRequest {
                url: url.clone(),
                max_bytes: None,
                plain_http,
            };
            let err = f.fetch(&req).await.unwrap_err();
            assert!(matches!(err, FetchError::Blocked { .. }), "{url}: {err}");
        }
    }
    assert_eq!(
        server.connections(),
        0,
        "no corpus entry reached the server"
    );

    // The control: the same server, listed, is reached.
    let (listed, _) = fetcher_for(&server);
    get(&listed, &server.url("/page")).await.unwrap();
    assert_eq!(server.connections(), 1);
}

#[tokio::test]
async fn the_floor_holds_on_every_redirect_hop() {
    let listed = Server::start().await;
    let unlisted = Server::start().await;
    let (f, _) = fetcher_for(&listed);
    let path = format!("/to-port/{}", unlisted.addr.port());
    let err = get(&f, &listed.url(&path)).await.unwrap_err();
    assert!(
        matches!(&err, FetchError::Blocked { address, .. } if address == "127.0.0.1"),
        "{err}"
    );
    assert_eq!(unlisted.connections(), 0);
}

#[tokio::test]
async fn links_in_a_fetched_page_may_be_fetched_and_made_up_urls_ask() {
    let server = Server::start().await;
    let (f, _) = fetcher_for(&server);
    let mut known = KnownUrls::new();
    known.add_user_text(&format!("summarise {} please", server.url("/page")));
    let page_url = server.url("/page");
    assert_eq!(known.classify(&page_url), UrlOrigin::UserWritten);
    let page = get(&f, &page_url).await.unwrap();
    known.add_fetched_page(&page.final_url, &page.for_model());

    let rules = DomainRules::new(vec![
        DomainRule::parse("*.evil.test", RuleAction::Deny).unwrap()
    ]);
    let guide = server.url("/guide");
    assert_eq!(known.classify(&guide), UrlOrigin::FromFetchedPage);
    assert_eq!(
        decide(&guide, known.classify(&guide), &rules),
        WebDecision::AsRead
    );
    assert_eq!(
        known.classify("https://example.org/ref"),
        UrlOrigin::FromFetchedPage
    );

    let leak = format!("{}?secret=hunter2", server.url("/guide"));
    assert_eq!(known.classify(&leak), UrlOrigin::ModelMade);
    assert!(
        matches!(decide(&leak, UrlOrigin::ModelMade, &rules), WebDecision::Ask { url, .. } if url == leak)
    );
    let denied = "https://x.evil.test/";
    assert!(matches!(
        decide(denied, known.classify(denied), &rules),
        WebDecision::Deny { .. }
    ));
}
