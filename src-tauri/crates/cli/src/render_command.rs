//! The CLI's wording of a command's start and end: where it ran, the
//! sandbox and the rule, how it ended, and what it could not track or
//! reach.

use crate::headline::one_line;
use bearagent_kernel::EventPayload;
use bearagent_tools::sandbox::network::{NETWORK_OFF, NETWORK_SETTING};

pub(crate) fn command_started(
    command: &str,
    cwd: &str,
    sandboxed: bool,
    network: bool,
    rule: &str,
) -> String {
    format!(
        "$ {} (in {cwd}; {}{}; {})",
        one_line(command, 120),
        if sandboxed {
            "sandboxed"
        } else {
            "NOT sandboxed"
        },
        match (sandboxed, network) {
            (true, false) => ", network off",
            (true, true) => ", network on",
            (false, _) => "",
        },
        one_line(rule, 80)
    )
}

/// How a command ended, what it wrote and changed, and, when it failed
/// for want of the network, the setting that allows it.
pub(crate) fn command_finished(p: &EventPayload) -> String {
    let EventPayload::CommandFinished {
        exit_code,
        signal,
        duration_ms,
        output_bytes,
        timed_out,
        cancelled,
        changed_files,
        network_refused,
        not_tracked,
        ..
    } = p
    else {
        return String::new();
    };
    format!(
        "command {} after {duration_ms} ms, {output_bytes} bytes of output, {changed_files} file(s) changed{}{}",
        command_end(*exit_code, *signal, *timed_out, *cancelled),
        bearagent_kernel::not_tracked_note(not_tracked),
        network_refused_note(*network_refused)
    )
}

/// What a command that failed for want of the network is told: the
/// setting that allows it.
fn network_refused_note(refused: bool) -> String {
    if refused {
        format!(" — {NETWORK_OFF}: this looks like a network failure; {NETWORK_SETTING}")
    } else {
        String::new()
    }
}

/// How a command ended: timed out, cancelled, its exit code or signal.
fn command_end(
    exit_code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    cancelled: bool,
) -> String {
    match (exit_code, signal) {
        _ if timed_out => "timed out".to_owned(),
        _ if cancelled => "cancelled".to_owned(),
        (Some(code), _) => format!("exit {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        (None, None) => "ended".to_owned(),
    }
}
