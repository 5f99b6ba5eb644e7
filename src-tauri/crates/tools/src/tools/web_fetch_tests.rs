use super::*;
use crate::testutil::{authorized, obj, workspace};
use crate::web::{FetchConfig, FloorExceptions};
use bearagent_kernel::{FixedClock, Timestamp};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn prepare(args: Value) -> Result<PreparedCall, ArgumentError> {
    let (_dir, ws) = workspace();
    WebFetch::new().prepare(&obj(args), &ws)
}

#[test]
fn prepare_keeps_the_full_url_and_fills_the_cap() {
    let call = prepare(json!({"url": "http://Example.com/a?q=1#frag"})).unwrap();
    assert_eq!(call.summary(), "fetch http://example.com/a?q=1");
    assert_eq!(call.effect(), Effect::ReadOnly);
    assert_eq!(
        call.args(),
        &json!({"url": "http://example.com/a?q=1", "max_bytes": web::DEFAULT_MAX_BYTES})
    );
    let call = prepare(json!({"url": "https://a.test/", "max_bytes": 10})).unwrap();
    assert_eq!(call.args()["max_bytes"], 10);
}

#[test]
fn prepare_refuses_bad_arguments() {
    for args in [
        json!({}),
        json!({"url": "file:///etc/passwd"}),
        json!({"url": "https://u:p@a.test/"}),
        json!({"url": "https://a.test/", "max_bytes": 0}),
        json!({"url": "https://a.test/", "method": "POST"}),
    ] {
        assert!(prepare(args.clone()).is_err(), "{args}");
    }
}

#[test]
fn the_spec_names_the_tool_and_requires_url() {
    let tool = WebFetch::new();
    assert_eq!(tool.spec().name.as_str(), NAME);
    assert_eq!(tool.spec().parameters["required"], json!(["url"]));
}

/// One answer on loopback, then the listener closes.
async fn one_page() -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 2048];
        let _ = s.read(&mut buf).await;
        let body = "<h1>Hi</h1>";
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let _ = s.write_all(format!("{head}{body}").as_bytes()).await;
    });
    addr
}

fn fetcher(listed: &[String]) -> Fetcher {
    let config = FetchConfig {
        exceptions: FloorExceptions::parse(listed).unwrap(),
        ..FetchConfig::default()
    };
    let clock = FixedClock(Timestamp::from_unix_millis(0).unwrap());
    Fetcher::new(config, Arc::new(clock)).unwrap()
}

#[tokio::test]
async fn run_fetches_the_authorised_url() {
    let addr = one_page().await;
    let call = prepare(json!({"url": format!("http://{addr}/")})).unwrap();
    let run = WebFetch::new()
        .run(
            authorized(call),
            &fetcher(&[addr.to_string()]),
            CancellationToken::new(),
        )
        .await;
    assert!(!run.is_error(), "{}", run.for_model);
    assert!(run.for_model.ends_with("# Hi"), "{}", run.for_model);
}

#[tokio::test]
async fn run_reports_the_floor_and_cancellation() {
    let call = prepare(json!({"url": "http://169.254.169.254/latest/"})).unwrap();
    let run = WebFetch::new()
        .run(authorized(call), &fetcher(&[]), CancellationToken::new())
        .await;
    assert!(run.is_error());
    assert!(
        run.for_model
            .starts_with("web_fetch failed: refused: 169.254.169.254 is a cloud metadata service"),
        "{}",
        run.for_model
    );

    let call = prepare(json!({"url": "https://a.test/"})).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let run = WebFetch::new()
        .run(authorized(call), &fetcher(&[]), cancel)
        .await;
    assert_eq!(run.outcome, Err(FetchError::Cancelled));
}

/// The runtime spawns fetches on a multi-threaded runtime.
#[test]
fn fetch_and_run_futures_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let f = fetcher(&[]);
    let req = FetchRequest::new("https://a.test/");
    assert_send(&f.fetch(&req));
    let call = prepare(json!({"url": "https://a.test/"})).unwrap();
    assert_send(&WebFetch::new().run(authorized(call), &f, CancellationToken::new()));
}
