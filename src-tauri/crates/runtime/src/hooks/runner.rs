//! Running one hook: its input as JSON on stdin, in the workspace folder,
//! in the command sandbox (network off, the scrubbed environment, the
//! user's hooks folder readable), killed at its timeout.

use super::config::CheckedHook;
use super::verdict::{verdict, Ended, Verdict};
use bearagent_kernel::{CommandSettings, HookEvent, HOOK_OUTPUT_CAP};
use bearagent_tools::sandbox::{self, CommandSpec, HookAuthority, SandboxPolicy, WorkspaceAccess};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Where and how a run's hooks execute: the profile's command settings
/// (whether the sandbox is on is the user's own choice), what they may do
/// to the workspace (read-only in plan mode) and the sandbox's policy.
#[derive(Debug, Clone)]
pub struct HookSandbox {
    pub settings: CommandSettings,
    pub access: WorkspaceAccess,
    pub policy: SandboxPolicy,
    pub cwd: PathBuf,
}

/// A checked hook's leave to run. `CheckedHook`s come only from the
/// user's config or the project hooks the user trusted (see
/// `RunHooks`), and this is the one place an authority is minted.
#[allow(
    clippy::disallowed_methods,
    reason = "the hook runner is the authority's one minter"
)]
fn authorise(_hook: &CheckedHook, sandbox: &HookSandbox) -> HookAuthority {
    HookAuthority::for_checked_hook(&sandbox.settings, sandbox.access)
}

/// One hook's run: how it ended, its verdict and its output (bounded).
#[derive(Debug, Clone)]
pub struct HookRun {
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u64,
    pub verdict: Verdict,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `hook` with `input` on its stdin.
pub async fn run_hook(
    hook: &CheckedHook,
    input: &Value,
    sandbox: &HookSandbox,
    cancel: CancellationToken,
) -> HookRun {
    let spec = CommandSpec {
        command: hook.command.clone(),
        cwd: sandbox.cwd.clone(),
        timeout: Duration::from_secs(u64::from(hook.timeout_secs)),
        // Enough to read a decision; the event keeps less.
        output_cap: 256 * 1024,
    };
    let bytes = serde_json::to_vec(input).unwrap_or_default();
    let authority = authorise(hook, sandbox);
    let outcome = sandbox::run_with_input(&authority, &sandbox.policy, &spec, &bytes, cancel).await;
    match outcome {
        Ok(o) => {
            let stdout = String::from_utf8_lossy(&o.output).into_owned();
            let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
            let ended = match (o.timed_out, o.exit_code) {
                (true, _) => Ended::TimedOut,
                (false, _) if o.cancelled => Ended::Failed,
                (false, Some(code)) => Ended::Exited(code),
                (false, None) => Ended::Failed,
            };
            HookRun {
                exit_code: o.exit_code.filter(|_| !o.timed_out),
                timed_out: o.timed_out,
                duration_ms: u64::try_from(o.duration.as_millis()).unwrap_or(u64::MAX),
                verdict: verdict(hook.event, ended, &stdout, &stderr),
                stdout: bounded(&stdout),
                stderr: bounded(&stderr),
            }
        }
        Err(error) => not_run(hook, &format!("the hook could not run: {error}")),
    }
}

/// A hook that never started: `message` says why, as a failed run.
pub fn not_run(hook: &CheckedHook, message: &str) -> HookRun {
    HookRun {
        exit_code: None,
        timed_out: false,
        duration_ms: 0,
        verdict: verdict(hook.event, Ended::Failed, "", message),
        stdout: String::new(),
        stderr: bounded(message),
    }
}

/// At most [`HOOK_OUTPUT_CAP`] bytes, cut at a character boundary.
fn bounded(text: &str) -> String {
    if text.len() <= HOOK_OUTPUT_CAP {
        return text.to_owned();
    }
    let end = bearagent_tools::floor_char_boundary(text, HOOK_OUTPUT_CAP);
    format!("{}\n[… {} more bytes]", &text[..end], text.len() - end)
}

/// What every hook's input holds, Claude Code's field names.
pub struct InputBase<'a> {
    pub event: HookEvent,
    pub run_id: String,
    pub cwd: &'a str,
    pub permission_mode: &'static str,
}

/// The JSON a hook reads on stdin: the base fields and the event's own.
pub fn input_json(base: &InputBase<'_>, fields: serde_json::Map<String, Value>) -> Value {
    let mut input = serde_json::Map::new();
    input.insert("session_id".into(), Value::String(base.run_id.clone()));
    input.insert("transcript_path".into(), Value::Null);
    input.insert("cwd".into(), Value::String(base.cwd.to_owned()));
    input.insert(
        "hook_event_name".into(),
        Value::String(base.event.name().to_owned()),
    );
    input.insert(
        "permission_mode".into(),
        Value::String(base.permission_mode.to_owned()),
    );
    input.extend(fields);
    Value::Object(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_output_is_cut_at_a_character_boundary() {
        let text = "é".repeat(HOOK_OUTPUT_CAP);
        let cut = bounded(&text);
        assert!(cut.len() < HOOK_OUTPUT_CAP + 40);
        assert!(cut.ends_with("more bytes]"));
    }

    #[test]
    fn the_input_has_claude_codes_field_names() {
        let base = InputBase {
            event: HookEvent::PreToolUse,
            run_id: "r1".into(),
            cwd: "/w",
            permission_mode: "default",
        };
        let mut fields = serde_json::Map::new();
        fields.insert("tool_name".into(), "run_command".into());
        let input = input_json(&base, fields);
        assert_eq!(input["hook_event_name"], "PreToolUse");
        assert_eq!(input["session_id"], "r1");
        assert_eq!(input["cwd"], "/w");
        assert_eq!(input["tool_name"], "run_command");
    }
}
