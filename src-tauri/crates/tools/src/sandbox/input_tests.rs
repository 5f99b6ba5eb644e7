#![allow(
    clippy::disallowed_methods,
    reason = "tests stand in for the hook runner"
)]

//! A command fed input on stdin, with stdout and stderr kept apart (how a
//! hook runs), under the sandbox and without it.

use super::testutil::fixture;
use super::{run_with_input, HookAuthority, SandboxMode, WorkspaceAccess};
use bearagent_kernel::CommandSettings;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const INPUT: &[u8] = b"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"run_command\"}";

fn authority(mode: SandboxMode, access: WorkspaceAccess) -> HookAuthority {
    let settings = CommandSettings {
        sandbox: mode == SandboxMode::On,
        ..CommandSettings::default()
    };
    HookAuthority::for_checked_hook(&settings, access)
}

async fn hook(mode: SandboxMode, command: &str, input: &[u8]) -> super::CommandOutcome {
    let f = fixture();
    let spec = f.spec(command);
    let authority = authority(mode, WorkspaceAccess::Writable);
    run_with_input(
        &authority,
        &f.policy(),
        &spec,
        input,
        CancellationToken::new(),
    )
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
        &authority(SandboxMode::On, WorkspaceAccess::Writable),
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

#[tokio::test]
async fn a_read_only_workspace_cannot_be_written_in_the_sandbox() {
    let f = fixture();
    let spec = f.spec("echo changed > written.txt; echo done");
    let authority = authority(SandboxMode::On, WorkspaceAccess::ReadOnly);
    let o = run_with_input(
        &authority,
        &f.policy(),
        &spec,
        INPUT,
        CancellationToken::new(),
    )
    .await
    .unwrap_or_else(|error| panic!("run failed: {error}"));
    assert_eq!(String::from_utf8_lossy(&o.output), "done\n");
    assert!(!f.workspace.join("written.txt").exists());
}

#[tokio::test]
async fn a_read_only_workspace_without_the_sandbox_is_refused() {
    let f = fixture();
    let spec = f.spec("echo changed > written.txt");
    let authority = authority(SandboxMode::Off, WorkspaceAccess::ReadOnly);
    let refused = run_with_input(
        &authority,
        &f.policy(),
        &spec,
        INPUT,
        CancellationToken::new(),
    )
    .await;
    assert!(matches!(
        refused,
        Err(super::SandboxError::InvalidPolicy(_))
    ));
    assert!(!f.workspace.join("written.txt").exists());
}
