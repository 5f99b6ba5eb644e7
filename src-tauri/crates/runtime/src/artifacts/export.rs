//! Exporting a run: one JSON file (every event plus the blobs they
//! reference) and a readable Markdown report (goal, timeline summary, final
//! answer, per-file diffs). The use case, `Application::export_run`, is in
//! `app/export.rs`.

use crate::artifacts::diff::{diff_versions, FileDiff, LineKind};
use crate::artifacts::projection::artifacts;
use crate::artifacts::secrets::{looks_secret, secret_hashes};
use crate::AppError;
use bearagent_kernel::{EventEnvelope, EventPayload, RunId, RunProjection};
use bearagent_store::Store;
use bearagent_tools::sandbox::network::{NETWORK_OFF, NETWORK_SETTING};
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    pub json: PathBuf,
    pub markdown: PathBuf,
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

pub(crate) fn referenced_hashes(events: &[EventEnvelope]) -> Vec<bearagent_kernel::ContentHash> {
    let mut out = Vec::new();
    for e in events {
        if let Some((_, restored, replaced)) = e.payload.review_versions() {
            out.extend(restored.iter().chain(replaced).cloned());
            continue;
        }
        payload_hashes(&e.payload, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// The blobs one event names, review versions aside (taken by the caller).
fn payload_hashes(payload: &EventPayload, out: &mut Vec<bearagent_kernel::ContentHash>) {
    match payload {
            EventPayload::EffectIntended { before_hash, .. } => out.extend(before_hash.clone()),
            EventPayload::ArtifactRecorded {
                before_hash,
                after_hash,
                ..
            } => {
                out.extend(before_hash.clone());
                out.extend(after_hash.clone());
            }
            EventPayload::CommandFinished { output, .. } => out.extend(output.clone()),
            // The raw bytes a replay serves.
            EventPayload::WebFetched { fetch, .. } => out.push(fetch.body.clone()),
            EventPayload::WorktreeStep { step } => out.extend(step.images()),
            // What the model was given: the project's instructions and a
            // compaction's summary (a replay and "what the model saw"
            // rebuild the context from them).
            EventPayload::InstructionsLoaded { blob, .. } => out.push(blob.clone()),
            EventPayload::ContextCompacted { summary, .. } => out.push(summary.clone()),
            EventPayload::RunCreated { images, .. } => {
                out.extend(images.iter().map(|i| i.blob.clone()))
            }
            EventPayload::ToolCallCompleted { result, .. }
            | EventPayload::ToolCallFailed { result } => {
                out.extend(result.images.iter().map(|i| i.blob.clone()))
            }
            EventPayload::RunStarted
            | EventPayload::HookRan { .. }
            | EventPayload::HooksNotTrusted { .. }
            | EventPayload::ToolModeSwitched { .. }
            | EventPayload::TodoUpdated { .. }
            | EventPayload::WorktreeApplied { .. }
            | EventPayload::WorktreeRemoved { .. }
            | EventPayload::ModelCallRequested { .. }
            | EventPayload::ModelCallStarted { .. }
            | EventPayload::ModelCallRetryScheduled { .. }
            | EventPayload::ModelCallCompleted { .. }
            | EventPayload::ModelCallFailed { .. }
            | EventPayload::ToolCallRequested { .. }
            | EventPayload::ApprovalRequested { .. }
            | EventPayload::ApprovalGranted { .. }
            | EventPayload::ApprovalDenied { .. }
            | EventPayload::ToolCallStarted { .. }
            | EventPayload::ExternalChangeObserved { .. }
            | EventPayload::EffectVerified { .. }
            | EventPayload::EffectUnknown { .. }
            | EventPayload::RunSucceeded { .. }
            | EventPayload::RunFailed { .. }
            | EventPayload::RunCancelled { .. }
            | EventPayload::BudgetExhausted { .. }
            | EventPayload::RunInterrupted { .. }
            | EventPayload::RunResumed
            | EventPayload::LoopDetected { .. }
            | EventPayload::McpServerStarted { .. }
            | EventPayload::McpServerUnavailable { .. }
            | EventPayload::CommandStarted { .. }
            | EventPayload::WebFetchFailed { .. }
            | EventPayload::ArtifactKept { .. }
            | EventPayload::RewindStarted { .. }
            | EventPayload::ReviewAbandoned { .. }
            // Their versions are taken above.
            | EventPayload::ArtifactReverted { .. }
            | EventPayload::ArtifactReapplied { .. }
            | EventPayload::ArtifactHunksReverted { .. }
            | EventPayload::ArtifactHunksKept { .. }
            | EventPayload::ArtifactRewound { .. }
            | EventPayload::ArtifactEdited { .. }
            | EventPayload::ReviewIntended { .. } => {}
        }
}

/// "rewound the files to event 12 (3 files)", or its redo.
pub fn rewind_line(to: bearagent_kernel::EventSeq, redo: bool, files: usize) -> String {
    let n = if files == 1 {
        "1 file".to_owned()
    } else {
        format!("{files} files")
    };
    if redo {
        format!("redid the rewind to event {} ({n})", to.0)
    } else {
        format!("rewound the files to event {} ({n})", to.0)
    }
}

/// A line of the report's timeline; the finer-grained events make none.
fn timeline_line(e: &EventEnvelope) -> Option<String> {
    let text = match &e.payload {
        p @ EventPayload::ToolCallRequested { .. } => requested(p),
        EventPayload::ApprovalGranted { by, network, .. } => granted(by, *network),
        EventPayload::ApprovalDenied { by, reason, .. } => denied(by, reason.as_deref()),
        EventPayload::ToolCallFailed { result } => tool_error(&result.content),
        EventPayload::ArtifactRecorded { path, by_hook, .. } => wrote(path, by_hook),
        EventPayload::ModelCallFailed { message, .. } => format!("model call failed: {message}"),
        EventPayload::ArtifactReverted { path, .. } => format!("reverted `{path}`"),
        EventPayload::ArtifactReapplied { path, .. } => format!("re-applied `{path}`"),
        EventPayload::ArtifactHunksReverted { path, hunks, .. }
        | EventPayload::ArtifactHunksKept { path, hunks, .. } => hunks_line(&e.payload, path, hunks),
        EventPayload::ReviewAbandoned { path, reason } => {
            format!("revert or re-apply of `{path}` did not take effect: {reason}")
        }
        EventPayload::RewindStarted { to, redo, paths } => rewind_line(*to, *redo, paths.len()),
        EventPayload::ArtifactEdited { path, .. } => {
            format!("edited `{path}` and kept the user's version")
        }
        EventPayload::RunSucceeded { .. } => "run succeeded".into(),
        EventPayload::RunFailed { reason } => format!("run failed: {reason}"),
        EventPayload::RunCancelled { .. } => "run cancelled".into(),
        EventPayload::BudgetExhausted { which } => format!("budget exhausted: {which}"),
        EventPayload::RunInterrupted { reason } => format!("run interrupted: {reason}"),
        EventPayload::EffectUnknown { path, detail, .. } => unknown_outcome(path, detail),
        EventPayload::WebFetched { fetch, .. } => fetch.line(),
        EventPayload::WebFetchFailed { failure, .. } => failure.line(),
        p @ (EventPayload::CommandStarted { .. } | EventPayload::CommandFinished { .. }) => {
            command_line(p)?
        }
        EventPayload::McpServerStarted {
            server,
            server_name,
            server_version,
            tools,
            ..
        } => mcp_server_started(server, server_name, server_version, tools.len()),
        EventPayload::McpServerUnavailable { server, reason } => mcp_unavailable(server, reason),
        EventPayload::ContextCompacted {
            replaced_through_seq: through,
            tokens_before: before,
            tokens_after: after,
            ..
        } => format!("context compacted through #{through}: ~{before} → ~{after} tokens"),
        EventPayload::InstructionsLoaded {
            path,
            bytes,
            truncated,
            ..
        } => instructions_loaded(path, *bytes, *truncated),
        EventPayload::WorktreeApplied { .. }
        | EventPayload::WorktreeRemoved { .. }
        | EventPayload::WorktreeStep { .. }
        | EventPayload::TodoUpdated { .. }
        | EventPayload::HookRan { .. }
        | EventPayload::HooksNotTrusted { .. }
        | EventPayload::ToolModeSwitched { .. } => e.payload.steering_text()?,
        EventPayload::RunCreated { .. }
        | EventPayload::RunStarted
        | EventPayload::ModelCallRequested { .. }
        | EventPayload::ModelCallStarted { .. }
        | EventPayload::ModelCallRetryScheduled { .. }
        | EventPayload::ModelCallCompleted { .. }
        | EventPayload::ApprovalRequested { .. }
        | EventPayload::ToolCallStarted { .. }
        | EventPayload::EffectIntended { .. }
        | EventPayload::ToolCallCompleted { .. }
        | EventPayload::ExternalChangeObserved { .. }
        | EventPayload::EffectVerified { .. }
        | EventPayload::RunResumed
        | EventPayload::LoopDetected { .. }
        | EventPayload::ArtifactKept { .. }
        // The rewind's line says what it did.
        | EventPayload::ArtifactRewound { .. }
        // The outcome's line says what it did.
        | EventPayload::ReviewIntended { .. } => return None,
    };
    Some(format!("- #{} {} — {}", e.seq, e.at, text))
}

/// "reverted hunk 2 of `a.md`", "kept hunks 1, 3 of `a.md`".
fn hunks_line(p: &EventPayload, path: &str, hunks: &[u32]) -> String {
    let verb = if matches!(p, EventPayload::ArtifactHunksKept { .. }) {
        "kept"
    } else {
        "reverted"
    };
    format!("{verb} {} of `{path}`", bearagent_kernel::hunk_list(hunks))
}

/// "tool `x` requested", marked when the model wrote the call as text.
fn requested(p: &EventPayload) -> String {
    let EventPayload::ToolCallRequested {
        call,
        parsed_from_text,
    } = p
    else {
        return String::new();
    };
    let note = bearagent_kernel::TextCallDialect::note(*parsed_from_text);
    format!("tool `{}` requested{note}", call.tool_name)
}

fn granted(by: &str, network: bool) -> String {
    let with = if network { " with the network" } else { "" };
    format!("approved{with} by {by}")
}

fn denied(by: &str, reason: Option<&str>) -> String {
    let reason = reason.map(|r| format!(": {r}")).unwrap_or_default();
    format!("denied by {by}{reason}")
}

/// A failed tool's first line.
fn tool_error(content: &str) -> String {
    format!("tool error: {}", content.lines().next().unwrap_or(""))
}

fn unknown_outcome(path: &str, detail: &str) -> String {
    format!("UNKNOWN outcome at `{path}`: {detail}")
}

/// A command's start or end.
fn command_line(p: &EventPayload) -> Option<String> {
    Some(match p {
        EventPayload::CommandStarted {
            command,
            cwd,
            sandboxed,
            network,
            rule,
            ..
        } => command_started(command, cwd, (*sandboxed, *network), rule),
        EventPayload::CommandFinished {
            exit_code,
            timed_out,
            cancelled,
            duration_ms,
            changed_files,
            network_refused,
            not_tracked,
            ..
        } => format!(
            "{}{}",
            command_finished(
                command_end(*exit_code, *timed_out, *cancelled),
                *duration_ms,
                *changed_files,
                *network_refused,
            ),
            bearagent_kernel::not_tracked_note(not_tracked)
        ),
        _ => return None,
    })
}

/// `(sandboxed, network)`: without the sandbox the network is the host's.
fn command_started(command: &str, cwd: &str, sandbox: (bool, bool), rule: &str) -> String {
    format!(
        "ran `{command}` in `{cwd}` ({}; {rule})",
        match sandbox {
            (true, false) => "sandboxed, network off",
            (true, true) => "sandboxed, network on",
            (false, _) => "NOT sandboxed",
        }
    )
}

/// How a command ended.
fn command_end(exit_code: Option<i32>, timed_out: bool, cancelled: bool) -> String {
    match exit_code {
        _ if timed_out => "timed out".to_owned(),
        _ if cancelled => "cancelled".to_owned(),
        Some(code) => format!("exited {code}"),
        None => "ended by a signal".to_owned(),
    }
}

fn command_finished(how: String, duration_ms: u64, changed_files: u32, refused: bool) -> String {
    let note = if refused {
        format!(" ({NETWORK_OFF}: this looks like a network failure; {NETWORK_SETTING})")
    } else {
        String::new()
    };
    format!("command {how} after {duration_ms} ms, {changed_files} file(s) changed{note}")
}

fn mcp_server_started(server: &str, name: &str, version: &str, tools: usize) -> String {
    format!("MCP server `{server}` started ({name} {version}), {tools} tool(s)")
}

fn mcp_unavailable(server: &str, reason: &str) -> String {
    format!("MCP server `{server}` unavailable: {reason}")
}

fn instructions_loaded(path: &str, bytes: u64, truncated: bool) -> String {
    format!(
        "instructions from `{path}` ({bytes} bytes{})",
        if truncated { ", cut" } else { "" }
    )
}

fn unified(diff: &FileDiff) -> String {
    match diff {
        FileDiff::Binary {
            before_bytes,
            after_bytes,
        } => {
            format!("(binary file: {before_bytes} → {after_bytes} bytes)\n")
        }
        FileDiff::Text { hunks, .. } => {
            let mut s = String::new();
            for h in hunks {
                let _ = writeln!(
                    s,
                    "@@ -{},{} +{},{} @@",
                    h.old_start, h.old_len, h.new_start, h.new_len
                );
                for l in &h.lines {
                    let mark = match l.kind {
                        LineKind::Context => ' ',
                        LineKind::Added => '+',
                        LineKind::Removed => '-',
                    };
                    let _ = writeln!(s, "{mark}{}", l.text);
                }
            }
            s
        }
    }
}

/// The JSON export: the run, every event, and the blobs they reference
/// (hex-encoded, by hash).
pub(crate) fn export_document(
    store: &Store,
    run: &RunProjection,
    events: &[EventEnvelope],
) -> Result<serde_json::Value, AppError> {
    let mut blobs = BTreeMap::new();
    let withheld = secret_hashes(events);
    for hash in referenced_hashes(events) {
        if withheld.contains(&hash) {
            continue;
        }
        if let Some(bytes) = store.get_blob(&hash)? {
            blobs.insert(hash.to_string(), hex(&bytes));
        }
    }
    Ok(json!({
        "format": "bearagent-run-export",
        "version": 1,
        "run": run,
        "events": events,
        "blobs_hex": blobs,
        // Versions of files that look like they hold secrets (`.env`,
        // keys): named, never exported.
        "withheld_blobs": withheld,
    }))
}

/// The Markdown report: the run's facts, its timeline, its answer and
/// a diff of each file it changed.
pub(crate) fn report(
    store: &Store,
    run_id: RunId,
    run: &RunProjection,
    events: &[EventEnvelope],
) -> Result<String, AppError> {
    let mut md = report_header(run_id, run);
    let _ = writeln!(md, "## Timeline\n");
    for line in events.iter().filter_map(timeline_line) {
        let _ = writeln!(md, "{line}");
    }
    if let Some(answer) = &run.final_answer {
        let _ = writeln!(md, "\n## Final answer\n\n{answer}");
    }
    let files = artifacts(events);
    if !files.is_empty() {
        let _ = writeln!(md, "\n## Files\n");
    }
    for a in files {
        if looks_secret(&a.path) {
            let _ = writeln!(
                md,
                "### `{}` ({})\n\n(content withheld from the export: the file looks like it holds secrets)\n",
                a.path,
                a.change().as_str()
            );
            continue;
        }
        let before = match &a.before {
            Some(h) => store.get_blob(h)?,
            None => None,
        };
        let after = match &a.after {
            Some(h) => store.get_blob(h)?,
            None => None,
        };
        let change = a.change().as_str();
        let by: String = a
            .by_hooks
            .iter()
            .map(|h| format!(", by hook `{h}`"))
            .collect();
        let diff = diff_versions(before.as_deref(), after.as_deref(), true);
        let _ = writeln!(
            md,
            "### `{}` ({change}{by})\n\n```diff\n{}```\n",
            a.path,
            unified(&diff)
        );
    }
    Ok(md)
}

/// The report's title and the run's facts: goal, workspace, status,
/// provider, times, spending and cost.
fn report_header(run_id: RunId, run: &RunProjection) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# BearAgent run {run_id}\n");
    let _ = writeln!(md, "- **Goal:** {}", run.goal);
    let _ = writeln!(md, "- **Workspace:** `{}`", run.workspace_path);
    let _ = writeln!(md, "- **Status:** {}", run.status.name().replace('_', " "));
    let _ = writeln!(md, "- **Provider:** {} / {}", run.provider, run.model);
    let _ = writeln!(
        md,
        "- **Started:** {} — **last event:** {}",
        run.created_at, run.updated_at
    );
    let _ = writeln!(
        md,
        "- **Spent:** {} model calls, {} tool calls, {} input / {} output tokens",
        run.model_calls, run.tool_calls, run.usage.input, run.usage.output
    );
    let _ = writeln!(
        md,
        "- **Cost:** {}\n",
        run.cost_micro_usd.map_or_else(
            || "unknown (the provider has no price)".to_owned(),
            |c| bearagent_kernel::Usd(c).to_string()
        )
    );
    md
}

/// "wrote `PATH`", naming the hook that did.
fn wrote(path: &str, by_hook: &Option<String>) -> String {
    match by_hook {
        Some(hook) => format!("hook `{hook}` wrote `{path}`"),
        None => format!("wrote `{path}`"),
    }
}
