//! What a hook's exit code and output mean, per Claude Code's contract:
//! exit 0 goes on (stdout may be JSON with a decision, or context for the
//! model), exit 2 blocks with stderr as the reason, any other exit goes on
//! with a warning. A hook that timed out or could not start asks the user
//! before a tool call and goes on (warned) everywhere else.

use bearagent_kernel::{HookDecision, HookEvent};
use serde_json::Value;

/// A hook's decision and what it says, to the user and to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub decision: HookDecision,
    pub reason: Option<String>,
    pub for_model: Option<String>,
    pub warning: Option<String>,
}

impl Verdict {
    fn proceed() -> Verdict {
        Verdict {
            decision: HookDecision::Proceed,
            reason: None,
            for_model: None,
            warning: None,
        }
    }
}

/// How the hook's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Exited(i32),
    /// Killed at its timeout.
    TimedOut,
    /// It could not run, or died of a signal.
    Failed,
}

/// The hook's verdict from how it ended and what it wrote.
pub fn verdict(event: HookEvent, ended: Ended, stdout: &str, stderr: &str) -> Verdict {
    match ended {
        Ended::Exited(0) => from_stdout(event, stdout),
        Ended::Exited(2) => blocked(event, stderr),
        Ended::Exited(code) => Verdict {
            warning: Some(format!(
                "the hook exited with {code} (not 0 or 2), so it decided nothing{}",
                said(stderr)
            )),
            ..Verdict::proceed()
        },
        Ended::TimedOut | Ended::Failed => {
            let what = if ended == Ended::TimedOut {
                "the hook was stopped at its timeout"
            } else {
                "the hook did not run to its end"
            };
            let ask = event == HookEvent::PreToolUse;
            Verdict {
                decision: if ask {
                    HookDecision::Ask
                } else {
                    HookDecision::Proceed
                },
                warning: Some(if ask {
                    format!("{what}; the user is asked instead{}", said(stderr))
                } else {
                    format!("{what}; the run went on{}", said(stderr))
                }),
                ..Verdict::proceed()
            }
        }
    }
}

fn said(stderr: &str) -> String {
    let stderr = stderr.trim();
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

/// Exit 2: stderr is the reason, given to the model where the event can
/// be blocked.
fn blocked(event: HookEvent, stderr: &str) -> Verdict {
    let reason = Some(match stderr.trim() {
        "" => "blocked by a hook (exit code 2, no reason on stderr)".to_owned(),
        text => text.to_owned(),
    });
    match event {
        HookEvent::PreToolUse => Verdict {
            decision: HookDecision::Deny,
            reason,
            ..Verdict::proceed()
        },
        HookEvent::UserPromptSubmit => Verdict {
            decision: HookDecision::Block,
            reason,
            ..Verdict::proceed()
        },
        HookEvent::PostToolUse | HookEvent::Stop => Verdict {
            decision: HookDecision::Block,
            for_model: reason.clone(),
            reason,
            warning: None,
        },
        // Nothing to block: the user sees why.
        HookEvent::SessionStart | HookEvent::PreCompact => Verdict {
            reason,
            ..Verdict::proceed()
        },
    }
}

/// Exit 0: JSON on stdout decides; plain text is context for the model
/// at the start of a run or a prompt, and only shown otherwise.
fn from_stdout(event: HookEvent, stdout: &str) -> Verdict {
    let text = stdout.trim();
    let json = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Value::Object(map),
        Ok(_) | Err(_) if text.starts_with('{') => {
            return Verdict {
                warning: Some(
                    "the hook's stdout starts like JSON but is not a JSON object; it was ignored"
                        .into(),
                ),
                ..Verdict::proceed()
            };
        }
        Ok(_) | Err(_) => {
            let context = matches!(event, HookEvent::SessionStart | HookEvent::UserPromptSubmit)
                && !text.is_empty();
            return Verdict {
                for_model: context.then(|| text.to_owned()),
                ..Verdict::proceed()
            };
        }
    };
    let specific = json.get("hookSpecificOutput");
    let field = |value: Option<&Value>, name: &str| -> Option<String> {
        value?.get(name)?.as_str().map(str::to_owned)
    };
    let context = field(specific, "additionalContext");
    let reason = field(Some(&json), "reason");
    match event {
        HookEvent::PreToolUse => pre_tool_use(&json, specific),
        HookEvent::Stop | HookEvent::PostToolUse | HookEvent::UserPromptSubmit
            if field(Some(&json), "decision").as_deref() == Some("block") =>
        {
            let reason = reason.unwrap_or_else(|| "blocked by a hook (no reason given)".into());
            let to_model = event != HookEvent::UserPromptSubmit;
            Verdict {
                decision: HookDecision::Block,
                for_model: to_model.then(|| join(Some(reason.clone()), context)),
                reason: Some(reason),
                warning: None,
            }
        }
        _ => Verdict {
            for_model: context,
            ..Verdict::proceed()
        },
    }
}

fn join(a: Option<String>, b: Option<String>) -> String {
    [a, b].into_iter().flatten().collect::<Vec<_>>().join("\n")
}

/// `hookSpecificOutput.permissionDecision` (or the older top-level
/// `decision: approve|block`) with its reason.
fn pre_tool_use(json: &Value, specific: Option<&Value>) -> Verdict {
    let text = |value: Option<&Value>, name: &str| -> Option<String> {
        value?.get(name)?.as_str().map(str::to_owned)
    };
    let (decision, reason) = match text(specific, "permissionDecision") {
        Some(d) => (d, text(specific, "permissionDecisionReason")),
        None => match text(Some(json), "decision").as_deref() {
            Some("approve") => ("allow".into(), text(Some(json), "reason")),
            Some("block") => ("deny".into(), text(Some(json), "reason")),
            _ => return Verdict::proceed(),
        },
    };
    let decision = match decision.as_str() {
        "allow" => HookDecision::Allow,
        "deny" => HookDecision::Deny,
        "ask" => HookDecision::Ask,
        other => {
            return Verdict {
                warning: Some(format!(
                    "permissionDecision {other:?} is not allow, deny or ask; it was ignored"
                )),
                ..Verdict::proceed()
            }
        }
    };
    let reason = match (decision, reason) {
        (HookDecision::Deny, None) => Some("denied by a hook (no reason given)".into()),
        (_, reason) => reason,
    };
    Verdict {
        decision,
        reason,
        for_model: None,
        warning: None,
    }
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
