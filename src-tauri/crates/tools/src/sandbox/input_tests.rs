//! A command fed input on stdin, with stdout and stderr kept apart (how a
//! hook runs), under the sandbox and without it.

use super::testutil::fixture;
use super::{run_with_input, SandboxMode};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const INPUT: &[u8] = b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"run_command\"}";

async fn hook(mode: SandboxMode, command: &str, input: &[u8]) -> super::CommandOutcome {
    let f = fixture();
    let spec = f.spec(command);
    run_with_input(mode, &f.policy(), &spec, input, CancellationToken::new())
        .await
        .unwrap_or_else(|error| panic!("run failed: {error}"))
}

#[tokio::test]
async fn the_input_is_stdin_and_stderr_is_kept_apart_in_the_sandbox() {
    let o = hook(
        SandboxMode::On,
        "cat; echo 'the reason' >&2; echo; echo done; exit 2",
        INPUT,
    )
    .await;
    assert_eq!(o.exit_code, Some(2));
    let stdout = String::from_utf8_lossy(&o.output);
    assert_eq!(
        stdout,
        format!("{}\ndone\n", String::from_utf8_lossy(INPUT))
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr), "the reason\n");
}

#[tokio::test]
async fn the_input_is_stdin_and_stderr_is_kept_apart_without_the_sandbox() {
    let o = hook(SandboxMode::Off, "cat; echo oops >&2", INPUT).await;
    assert_eq!(o.exit_code, Some(0));
    assert_eq!(o.output, INPUT);
    assert_eq!(String::from_utf8_lossy(&o.stderr), "oops\n");
}

#[tokio::test]
async fn a_large_input_reaches_the_command_whole() {
    let input = vec![b'x'; 3 * 1024 * 1024];
    let o = hook(SandboxMode::On, "wc -c", &input).await;
    assert_eq!(String::from_utf8_lossy(&o.output).trim(), "3145728");
}

#[tokio::test]
async fn a_command_that_hangs_is_killed_at_its_timeout() {
    let f = fixture();
    let mut spec = f.spec("cat >/dev/null; sleep 60");
    spec.timeout = Duration::from_millis(500);
    let o = run_with_input(
        SandboxMode::On,
        &f.policy(),
        &spec,
        INPUT,
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(o.timed_out);
    assert!(o.duration < Duration::from_secs(10), "{:?}", o.duration);
}
