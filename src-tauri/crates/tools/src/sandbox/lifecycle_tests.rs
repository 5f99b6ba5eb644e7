//! Process lifetime, timeouts, cancel, streaming and the output cap, against
//! real bwrap and real processes.

use super::capture::omission_marker;
use super::testutil::{fixture, marker, process_alive, text};
use super::{run, SandboxError, SandboxMode};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Two background sleeps: one holding the output pipe, one detached from it
/// (so the pipe closing cannot be what proves it died).
fn background_jobs() -> (String, [String; 2]) {
    let patterns = [
        format!("sleep 1000.{}", marker()),
        format!("sleep 1000.{}", marker()),
    ];
    let command = format!(
        "{} & {} >/dev/null 2>&1 </dev/null &",
        patterns[0], patterns[1]
    );
    (command, patterns)
}

fn assert_gone(patterns: &[String]) {
    for pattern in patterns {
        assert!(!process_alive(pattern), "`{pattern}` survived the call");
    }
}

#[tokio::test]
async fn killing_the_parent_inside_does_not_escape() {
    let f = fixture();
    let out = f
        .run("kill -9 $PPID; echo after-ppid-kill; kill -9 -1; echo after-kill-all; exit 0")
        .await;
    let printed = text(&out);
    assert_eq!(out.exit_code, Some(0), "{printed}");
    assert!(printed.contains("after-ppid-kill") && printed.contains("after-kill-all"));
    // This process (standing in for BearAgent) is alive and can run more.
    assert_eq!(f.run("echo again").await.exit_code, Some(0));
}

#[tokio::test]
async fn background_jobs_die_when_the_command_exits() {
    let f = fixture();
    let (jobs, patterns) = background_jobs();
    let command = format!(
        "{jobs} sleep 0.3; pgrep -f '{}' >/dev/null && echo bg-running; exit 0",
        patterns[1]
    );
    let started = Instant::now();
    let out = f.run(&command).await;
    println!("returned after {:?}", started.elapsed());
    assert_eq!(out.exit_code, Some(0));
    assert!(text(&out).contains("bg-running"), "the job did start");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_gone(&patterns);
}

#[tokio::test]
async fn timeout_kills_everything_and_says_so() {
    let f = fixture();
    let (jobs, patterns) = background_jobs();
    let mut spec = f.spec(&format!("{jobs} echo started; sleep 100"));
    spec.timeout = Duration::from_secs(1);
    let started = Instant::now();
    let out = run(
        SandboxMode::On,
        &f.policy(),
        &spec,
        CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    let elapsed = started.elapsed();
    println!("timeout 1 s: returned after {elapsed:?}");
    assert!(out.timed_out && !out.cancelled);
    assert_eq!(out.signal, Some(libc::SIGKILL));
    assert_eq!(text(&out), "started\n");
    assert!(
        elapsed < spec.timeout + Duration::from_millis(1500),
        "{elapsed:?}"
    );
    assert_gone(&patterns);
}

#[tokio::test]
async fn cancel_kills_everything_and_says_so() {
    let f = fixture();
    let (jobs, patterns) = background_jobs();
    let spec = f.spec(&format!("{jobs} sleep 100"));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let out = run(SandboxMode::On, &f.policy(), &spec, cancel, |_| {})
        .await
        .unwrap();
    let elapsed = started.elapsed();
    println!("cancel at 0.5 s: returned after {elapsed:?}");
    assert!(out.cancelled && !out.timed_out);
    assert!(elapsed < Duration::from_millis(2000), "{elapsed:?}");
    assert_gone(&patterns);
}

#[tokio::test]
async fn an_abandoned_call_kills_everything() {
    let f = fixture();
    let (jobs, patterns) = background_jobs();
    let spec = f.spec(&format!("{jobs} sleep 100"));
    let policy = f.policy();
    let call = run(
        SandboxMode::On,
        &policy,
        &spec,
        CancellationToken::new(),
        |_| {},
    );
    // The caller drops the future (e.g. its task was aborted).
    let result = tokio::time::timeout(Duration::from_millis(700), call).await;
    assert!(result.is_err(), "the call should still have been running");
    // Teardown after a drop is asynchronous; it must finish promptly.
    let until = Instant::now() + Duration::from_secs(3);
    while patterns.iter().any(|p| process_alive(p)) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_gone(&patterns);
}

#[tokio::test]
async fn sandbox_off_still_cleans_up_its_process_group() {
    let f = fixture();
    let (jobs, patterns) = background_jobs();
    let out = f
        .run_with(
            &f.policy(),
            SandboxMode::Off,
            &format!("{jobs} pwd; exit 4"),
        )
        .await;
    assert_eq!(out.exit_code, Some(4));
    assert_eq!(text(&out), format!("{}\n", f.workspace.display()));
    assert_gone(&patterns);

    let (jobs, patterns) = background_jobs();
    let mut spec = f.spec(&format!("{jobs} sleep 100"));
    spec.timeout = Duration::from_millis(500);
    let started = Instant::now();
    let out = run(
        SandboxMode::Off,
        &f.policy(),
        &spec,
        CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    assert!(out.timed_out);
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_gone(&patterns);
}

#[tokio::test]
async fn a_60_mb_flood_is_counted_but_not_kept() {
    let f = fixture();
    let mut spec = f.spec("yes 0123456789abcdef | head -c 60000000");
    spec.output_cap = 64 * 1024;
    let (mut streamed, mut chunks, mut largest) = (0u64, 0u64, 0usize);
    let started = Instant::now();
    let out = run(
        SandboxMode::On,
        &f.policy(),
        &spec,
        CancellationToken::new(),
        |chunk| {
            streamed += chunk.len() as u64;
            chunks += 1;
            largest = largest.max(chunk.len());
        },
    )
    .await
    .unwrap();
    println!(
        "60 MB flood: {:?} ({chunks} chunks, largest {largest} B)",
        started.elapsed()
    );
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.total_bytes, 60_000_000);
    assert_eq!(streamed, 60_000_000);
    assert!(largest <= super::process::CHUNK);
    assert!(out.truncated);
    let marker = omission_marker(60_000_000 - spec.output_cap as u64);
    assert!(out.output.len() <= spec.output_cap + marker.len() + 1);
    let printed = text(&out);
    assert!(printed.starts_with("0123456789abcdef\n0123456789abcdef\n"));
    assert!(
        printed.contains(&format!("\n{marker}")),
        "{}",
        &printed[..200]
    );
    // 60_000_000 = 3_529_411 * 17 + 13: the stream ends mid-line.
    assert!(printed.ends_with("abcdef\n0123456789abc"));
    assert!(out.duration < Duration::from_secs(30));
}

#[tokio::test]
async fn output_streams_while_the_command_runs() {
    let f = fixture();
    let spec = f.spec("echo first; sleep 1; echo second");
    let started = Instant::now();
    let mut arrivals: Vec<(Duration, String)> = Vec::new();
    let out = run(
        SandboxMode::On,
        &f.policy(),
        &spec,
        CancellationToken::new(),
        |chunk| arrivals.push((started.elapsed(), String::from_utf8_lossy(chunk).into())),
    )
    .await
    .unwrap();
    println!("{arrivals:?}");
    assert_eq!(text(&out), "first\nsecond\n");
    assert_eq!(arrivals.first().map(|a| a.1.as_str()), Some("first\n"));
    assert!(arrivals[0].0 < Duration::from_millis(900), "{arrivals:?}");
    assert!(out.duration >= Duration::from_secs(1));
}

#[tokio::test]
async fn cwd_and_workspace_are_checked() {
    let f = fixture();
    let mut spec = f.spec("true");
    spec.cwd = f.sibling.clone();
    for mode in [SandboxMode::On, SandboxMode::Off] {
        let result = run(mode, &f.policy(), &spec, CancellationToken::new(), |_| {}).await;
        assert!(
            matches!(result, Err(SandboxError::InvalidPolicy(_))),
            "{result:?}"
        );
    }
    let mut policy = f.policy();
    policy.workspace = "/".into();
    let spec = f.spec("true");
    let result = run(
        SandboxMode::On,
        &policy,
        &spec,
        CancellationToken::new(),
        |_| {},
    )
    .await;
    assert!(
        matches!(result, Err(SandboxError::InvalidPolicy(_))),
        "{result:?}"
    );

    // A subfolder of the workspace is a fine cwd.
    let mut spec = f.spec("pwd");
    spec.cwd = f.workspace.join(".git");
    let out = run(
        SandboxMode::On,
        &f.policy(),
        &spec,
        CancellationToken::new(),
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(text(&out), format!("{}\n", spec.cwd.display()));
}
