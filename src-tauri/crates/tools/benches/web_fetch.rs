//! `web_fetch` against a raw HTTP GET, on a loopback server this bench
//! starts (the same one the tests use, listed explicitly since loopback is
//! on the floor).
//!
//! Run: `CARGO_TARGET_DIR=/work/target-web cargo bench -p bearagent-tools --bench web_fetch`
//! Runs per side: `$BEARAGENT_BENCH_RUNS` (default 200).
//!
//! Three sides, interleaved after a warm-up, each a fresh connection
//! (the server closes every one):
//! - raw: a plain `TcpStream`, one `GET` written by hand, read to the end;
//! - uncached: `Fetcher::fetch` of a URL it has not seen (a new query each
//!   time): URL checks, floor, request, capped read, sha256, HTML → Markdown;
//! - cached: `Fetcher::fetch` of a URL it holds fresh.
//!
//! Goals (issue 55): cached ≤ 5 ms; uncached ≤ raw + 20 ms. Exits non-zero
//! when one is missed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../tests/support/web_server.rs"]
mod web_server;

use bearagent_kernel::{Clock, Timestamp};
use bearagent_tools::web::{FetchConfig, FetchRequest, Fetcher, FloorExceptions};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use web_server::{Server, PAGE_HTML};

struct StillClock;

impl Clock for StillClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_unix_millis(1_700_000_000_000).unwrap()
    }
}

async fn raw_get(server: &Server) -> usize {
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "GET /bench HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    response.len()
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() -> ExitCode {
    let runs: usize = std::env::var("BEARAGENT_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
        .max(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (raw, uncached, cached) = rt.block_on(measure(runs));
    let (raw, uncached, cached) = (median(raw), median(uncached), median(cached));
    println!(
        "web_fetch bench: {runs} runs per side, loopback, {} byte HTML page",
        PAGE_HTML.len()
    );
    println!("{:<28} {:>12} {:>12}", "side", "median ms", "vs raw");
    for (label, d) in [
        ("raw TcpStream GET", raw),
        ("fetch, uncached", uncached),
        ("fetch, cached", cached),
    ] {
        let ratio = d.as_secs_f64() / raw.as_secs_f64().max(f64::MIN_POSITIVE);
        println!("{label:<28} {:>12.3} {:>11.2}x", ms(d), ratio);
    }
    let over_raw = uncached.saturating_sub(raw);
    println!(
        "goals: cached {:.3} ms (<= 5 ms); uncached - raw = {:.3} ms (<= 20 ms)",
        ms(cached),
        ms(over_raw)
    );
    if cached > Duration::from_millis(5) || over_raw > Duration::from_millis(20) {
        println!("web_fetch bench: a goal was missed");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

async fn measure(runs: usize) -> (Vec<Duration>, Vec<Duration>, Vec<Duration>) {
    let server = Server::start().await;
    let config = FetchConfig {
        exceptions: FloorExceptions::parse(&[server.addr.to_string()]).unwrap(),
        ..FetchConfig::default()
    };
    let fetcher = Fetcher::new(config, Arc::new(StillClock)).unwrap();
    let cached_url = server.url("/bench?held");
    // Warm-up: the first connection, the cache entry, the code paths.
    raw_get(&server).await;
    fetcher
        .fetch(&FetchRequest::new(&cached_url))
        .await
        .unwrap();
    let (mut raw, mut uncached, mut cached) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        let t = Instant::now();
        assert!(raw_get(&server).await > PAGE_HTML.len());
        raw.push(t.elapsed());

        let t = Instant::now();
        let out = fetcher
            .fetch(&FetchRequest::new(server.url(&format!("/bench?run={i}"))))
            .await
            .unwrap();
        uncached.push(t.elapsed());
        assert!(!out.from_cache && out.text.contains("# Bear notes"));

        let t = Instant::now();
        let out = fetcher
            .fetch(&FetchRequest::new(&cached_url))
            .await
            .unwrap();
        cached.push(t.elapsed());
        assert!(out.from_cache);
    }
    (raw, uncached, cached)
}
