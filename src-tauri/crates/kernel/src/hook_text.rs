//! The words for a hook's event, apart from `hook.rs` so the hook types
//! stay below the event vocabulary that carries them.

use crate::event::EventPayload;
use crate::hook::HookSource;

/// How the CLI and reports word a hook's run, or untrusted project hooks.
pub(crate) fn hook_text(payload: &EventPayload) -> Option<String> {
    match payload {
        EventPayload::HookRan {
            hook,
            source,
            command,
            exit_code,
            timed_out,
            duration_ms,
            decision,
            reason,
            warning,
            ..
        } => {
            let source = match source {
                HookSource::User => "user",
                HookSource::Project => "project",
            };
            let ended = match (timed_out, exit_code) {
                (true, _) => "timed out".to_owned(),
                (false, Some(code)) => format!("exit {code}"),
                (false, None) => "killed".to_owned(),
            };
            let mut text = format!(
                "hook {} ({source}) `{command}`: {} [{ended}, {duration_ms} ms]",
                hook.name(),
                decision.name()
            );
            if let Some(reason) = reason {
                text.push_str(&format!(" — {reason}"));
            }
            if let Some(warning) = warning {
                text.push_str(&format!("\nwarning: {warning}"));
            }
            Some(text)
        }
        EventPayload::HooksNotTrusted { file, commands, .. } => Some(format!(
            "project hooks in {file} are not trusted, so none of its {} command(s) ran; \
             review them and run `bearagent hooks trust` in the workspace to let them run",
            commands.len()
        )),
        _ => None,
    }
}
