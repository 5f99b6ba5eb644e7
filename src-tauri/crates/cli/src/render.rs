//! Human and JSON renderings of the same application results.

use crate::headline::{call_headline, one_line};
use crate::render_command::{command_finished, command_started};
use crate::render_review as review;
use bearagent_kernel::event::ModelErrorClass;
use bearagent_kernel::hunk_list;
use bearagent_kernel::{
    Action, EventEnvelope, EventPayload, RunProjection, RunStatus, TokenUsage, ToolName,
    ToolResult, Usd,
};
use bearagent_runtime::RunSummary;
use serde_json::json;

pub fn status_text(status: &RunStatus) -> String {
    match status {
        RunStatus::Failed { reason } => format!("failed: {}", one_line(reason, 120)),
        RunStatus::BudgetExhausted { which } => format!("budget exhausted: {which}"),
        other => other.name().replace('_', " "),
    }
}

/// The wording of the run's own events: its lifecycle, model calls and
/// context. The other events are tool-side; [`tool_event_text`] words them
/// (each of the two lists every event type, with no wildcard, so a new
/// type does not compile until it has a wording).
pub(crate) fn event_text(p: &EventPayload) -> String {
    match p {
        EventPayload::RunCreated { .. } => run_created(p),
        EventPayload::RunStarted => "run started".into(),
        EventPayload::ModelCallRequested {
            context_bytes,
            estimated_tokens,
            context_window,
            ..
        } => model_call_requested(*context_bytes, *estimated_tokens, *context_window),
        EventPayload::ModelCallStarted { provider, model } => model_call_started(provider, model),
        EventPayload::ModelCallRetryScheduled { .. } => retry_scheduled(p),
        EventPayload::ModelCallCompleted {
            action,
            usage,
            cost_micro_usd,
            ..
        } => model_call_completed(action, usage, *cost_micro_usd),
        EventPayload::ModelCallFailed { class, message, .. } => model_call_failed(class, message),
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
        EventPayload::RunSucceeded { answer } => {
            format!("run succeeded: {}", one_line(answer, 200))
        }
        EventPayload::RunFailed { reason } => format!("run failed: {}", one_line(reason, 200)),
        EventPayload::RunCancelled { reason } => format!("run cancelled{}", with_reason(reason)),
        EventPayload::BudgetExhausted { which } => format!("budget exhausted: {which}"),
        EventPayload::RunInterrupted { reason } => format!("run interrupted: {reason}"),
        EventPayload::RunResumed => "run resumed".into(),
        EventPayload::ToolCallRequested { .. }
        | EventPayload::ApprovalRequested { .. }
        | EventPayload::ApprovalGranted { .. }
        | EventPayload::ApprovalDenied { .. }
        | EventPayload::ToolCallStarted { .. }
        | EventPayload::EffectIntended { .. }
        | EventPayload::ToolCallCompleted { .. }
        | EventPayload::ToolCallFailed { .. }
        | EventPayload::ArtifactRecorded { .. }
        | EventPayload::ExternalChangeObserved { .. }
        | EventPayload::EffectVerified { .. }
        | EventPayload::EffectUnknown { .. }
        | EventPayload::LoopDetected { .. }
        | EventPayload::ArtifactReverted { .. }
        | EventPayload::ArtifactReapplied { .. }
        | EventPayload::ArtifactHunksReverted { .. }
        | EventPayload::ArtifactKept { .. }
        | EventPayload::ArtifactHunksKept { .. }
        | EventPayload::ReviewIntended { .. }
        | EventPayload::ReviewAbandoned { .. }
        | EventPayload::RewindStarted { .. }
        | EventPayload::ArtifactRewound { .. }
        | EventPayload::ArtifactEdited { .. }
        | EventPayload::WorktreeApplied { .. }
        | EventPayload::WorktreeRemoved { .. }
        | EventPayload::WorktreeStep { .. }
        | EventPayload::TodoUpdated { .. }
        | EventPayload::HookRan { .. }
        | EventPayload::HooksNotTrusted { .. }
        | EventPayload::ToolModeSwitched { .. }
        | EventPayload::McpServerStarted { .. }
        | EventPayload::McpServerUnavailable { .. }
        | EventPayload::CommandStarted { .. }
        | EventPayload::CommandFinished { .. }
        | EventPayload::WebFetched { .. }
        | EventPayload::WebFetchFailed { .. } => tool_event_text(p),
    }
}

fn retry_scheduled(p: &EventPayload) -> String {
    let EventPayload::ModelCallRetryScheduled {
        attempt,
        delay_ms,
        message,
        ..
    } = p
    else {
        return String::new();
    };
    format!(
        "retry {attempt} in {delay_ms} ms: {}",
        one_line(message, 100)
    )
}

/// The wording of tool-side events: tool calls and their approvals,
/// commands, writes and their review, MCP servers. The run's own events
/// are worded by [`event_text`].
fn model_call_started(provider: &str, model: &str) -> String {
    format!("model call started: {provider}/{model}")
}

fn changed_outside(path: &str) -> String {
    format!("changed outside the run: {path}")
}

fn tool_event_text(p: &EventPayload) -> String {
    match p {
        EventPayload::ToolCallRequested {
            call,
            parsed_from_text,
        } => call_headline(call) + &bearagent_kernel::TextCallDialect::note(*parsed_from_text),
        EventPayload::ApprovalRequested { summary, .. } => format!("approval requested: {summary}"),
        EventPayload::ApprovalGranted { .. } => review::approval_granted(p),
        EventPayload::ApprovalDenied { by, reason, .. } => denied(by, reason),
        EventPayload::ToolCallStarted { .. } => "started".into(),
        EventPayload::EffectIntended { path, .. } => format!("about to write {path}"),
        EventPayload::ToolCallCompleted {
            result,
            truncated,
            original_bytes,
            ..
        } => tool_call_completed(result, *truncated, *original_bytes),
        EventPayload::ToolCallFailed { result } => tool_call_failed(result),
        EventPayload::ArtifactRecorded { .. } => written(p),
        EventPayload::ExternalChangeObserved { path, .. } => changed_outside(path),
        EventPayload::EffectVerified { outcome, .. } => format!("write verified: {outcome:?}"),
        EventPayload::EffectUnknown { detail, .. } => format!("write outcome UNKNOWN: {detail}"),
        EventPayload::LoopDetected {
            tool_name, repeats, ..
        } => loop_detected(tool_name, *repeats),
        EventPayload::ArtifactReverted { path, forced, .. } => reverted(path, *forced),
        EventPayload::ArtifactReapplied { path, .. } => format!("re-applied {path}"),
        EventPayload::ArtifactHunksReverted { path, hunks, .. } => {
            hunks_done("reverted", hunks, path)
        }
        EventPayload::ArtifactKept { path } => format!("kept {path}"),
        EventPayload::ArtifactHunksKept { path, hunks, .. } => hunks_done("kept", hunks, path),
        EventPayload::WorktreeApplied { .. }
        | EventPayload::WorktreeRemoved { .. }
        | EventPayload::WorktreeStep { .. }
        | EventPayload::TodoUpdated { .. }
        | EventPayload::HookRan { .. }
        | EventPayload::HooksNotTrusted { .. }
        | EventPayload::ToolModeSwitched { .. } => p.steering_text().unwrap_or_default(),
        EventPayload::ReviewIntended { .. } => review::review_intended(p),
        EventPayload::ArtifactEdited { path, .. } => {
            format!("edited {path}: the user's version is kept")
        }
        EventPayload::RewindStarted { to, redo, paths } => {
            bearagent_runtime::artifacts::export::rewind_line(*to, *redo, paths.len())
        }
        EventPayload::ArtifactRewound { .. } => review::artifact_rewound(p),
        EventPayload::ReviewAbandoned { path, reason } => {
            format!("{path} was not changed back: {reason}")
        }
        EventPayload::McpServerStarted { .. } => mcp_server_started(p),
        EventPayload::McpServerUnavailable { server, reason } => mcp_unavailable(server, reason),
        EventPayload::CommandStarted {
            command,
            cwd,
            sandboxed,
            network,
            rule,
            ..
        } => command_started(command, cwd, *sandboxed, *network, rule),
        EventPayload::CommandFinished { .. } => command_finished(p),
        EventPayload::WebFetched { fetch, .. } => fetch.line(),
        EventPayload::WebFetchFailed { failure, .. } => failure.line(),
        EventPayload::RunCreated { .. }
        | EventPayload::RunStarted
        | EventPayload::ModelCallRequested { .. }
        | EventPayload::ModelCallStarted { .. }
        | EventPayload::ModelCallRetryScheduled { .. }
        | EventPayload::ModelCallCompleted { .. }
        | EventPayload::ModelCallFailed { .. }
        | EventPayload::ContextCompacted { .. }
        | EventPayload::InstructionsLoaded { .. }
        | EventPayload::RunSucceeded { .. }
        | EventPayload::RunFailed { .. }
        | EventPayload::RunCancelled { .. }
        | EventPayload::BudgetExhausted { .. }
        | EventPayload::RunInterrupted { .. }
        | EventPayload::RunResumed => event_text(p),
    }
}

/// "reverted hunks 1, 3 of a.txt", "kept hunk 2 of a.txt".
fn hunks_done(verb: &str, hunks: &[u32], path: &str) -> String {
    format!("{verb} {} of {path}", hunk_list(hunks))
}

fn run_created(p: &EventPayload) -> String {
    let EventPayload::RunCreated {
        goal,
        workspace_path,
        profile,
        images,
        plan_mode,
        ..
    } = p
    else {
        return String::new();
    };
    let mut text = format!(
        "run created in {workspace_path} (profile {profile}): {}",
        one_line(goal, 100)
    );
    if !images.is_empty() {
        let names: Vec<String> = images
            .iter()
            .map(|i| {
                format!(
                    "{} ({})",
                    i.name,
                    bearagent_kernel::units::human_bytes(i.bytes)
                )
            })
            .collect();
        text.push_str(&format!(" [images: {}]", names.join(", ")));
    }
    if *plan_mode {
        text.push_str(" [plan mode: reads only; the answer is the plan]");
    }
    text
}

fn model_call_requested(
    context_bytes: u64,
    estimated_tokens: Option<u64>,
    context_window: Option<u64>,
) -> String {
    match (estimated_tokens, context_window) {
        (Some(tokens), Some(window)) => format!(
            "model call requested ({context_bytes} bytes of context, ~{tokens} of {window} tokens)"
        ),
        _ => format!("model call requested ({context_bytes} bytes of context)"),
    }
}

fn model_call_completed(
    action: &Action,
    usage: &TokenUsage,
    cost_micro_usd: Option<u64>,
) -> String {
    let what = match action {
        Action::ToolCalls { calls } => format!(
            "wants {}",
            calls
                .iter()
                .map(|c| c.tool_name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Action::FinalAnswer(_) => "answered".into(),
    };
    format!(
        "model call completed: {what} ({} in / {} out tokens{})",
        usage.input,
        usage.output,
        cost_micro_usd.map_or(String::new(), |c| format!(", {}", Usd(c)))
    )
}

fn model_call_failed(class: &ModelErrorClass, message: &str) -> String {
    format!("model call failed ({class:?}): {}", one_line(message, 140))
}

fn instructions_loaded(path: &str, bytes: u64, truncated: bool) -> String {
    format!(
        "instructions: {path} ({bytes} bytes{})",
        if truncated { ", cut to fit" } else { "" }
    )
}

/// ": REASON", or nothing without one.
fn with_reason(reason: &Option<String>) -> String {
    reason
        .as_ref()
        .map(|r| format!(": {r}"))
        .unwrap_or_default()
}

fn denied(by: &str, reason: &Option<String>) -> String {
    format!("denied by {by}{}", with_reason(reason))
}

fn tool_call_completed(result: &ToolResult, truncated: bool, original_bytes: u64) -> String {
    format!(
        "ok{}: {}",
        if truncated {
            format!(" (truncated from {original_bytes} bytes)")
        } else {
            String::new()
        },
        one_line(&result.content, 120)
    )
}

fn tool_call_failed(result: &ToolResult) -> String {
    format!("error: {}", one_line(&result.content, 140))
}

/// "created PATH", "modified PATH" or "deleted PATH", and a mode change
/// ("(mode 644 → 755)").
fn written(p: &EventPayload) -> String {
    let EventPayload::ArtifactRecorded {
        path,
        before_hash,
        after_hash,
        before_mode,
        after_mode,
        by_hook,
        ..
    } = p
    else {
        return String::new();
    };
    let by = by_hook
        .as_ref()
        .map_or_else(String::new, |hook| format!(" by hook `{hook}`"));
    let verb = match (before_hash.is_some(), after_hash.is_some()) {
        (false, _) => "created",
        (true, true) => "modified",
        (true, false) => "deleted",
    };
    match (before_mode, after_mode) {
        (Some(b), Some(a)) if a != b => format!("{verb} {path} (mode {b:o} → {a:o}){by}"),
        _ => format!("{verb} {path}{by}"),
    }
}

fn loop_detected(tool_name: &ToolName, repeats: u32) -> String {
    format!("loop: {tool_name} asked again after {repeats} identical calls; not run")
}

fn reverted(path: &str, forced: bool) -> String {
    format!("reverted {path}{}", if forced { " (forced)" } else { "" })
}

fn mcp_server_started(p: &EventPayload) -> String {
    let EventPayload::McpServerStarted {
        server,
        server_name,
        server_version,
        startup_ms,
        tools,
        ..
    } = p
    else {
        return String::new();
    };
    let names: Vec<&str> = tools.iter().map(|t| t.tool.as_str()).collect();
    format!(
        "mcp {server}: {server_name} {server_version} started in {startup_ms} ms; {} tool(s): {}",
        tools.len(),
        one_line(&names.join(", "), 160)
    )
}

fn mcp_unavailable(server: &str, reason: &str) -> String {
    format!("mcp {server} unavailable: {}", one_line(reason, 200))
}

pub fn event_json(e: &EventEnvelope) -> serde_json::Value {
    json!({ "kind": "event", "event": e })
}

pub fn run_summary_line(r: &RunSummary) -> String {
    format!(
        "{}  {:<18} {}  {:>6} in {:>6} out {:>9}  {}",
        r.run_id,
        status_text(&r.status),
        r.created_at.to_rfc3339(),
        r.input_tokens,
        r.output_tokens,
        cost_text(r.cost_micro_usd),
        one_line(&r.goal, 80)
    ) + if r.imported_from.is_some() {
        "  [imported]"
    } else {
        ""
    }
}

pub fn run_summary_json(r: &RunSummary) -> serde_json::Value {
    json!({
        "run_id": r.run_id,
        "workspace_id": r.workspace_id,
        "goal": r.goal,
        "status": r.status,
        "created_at": r.created_at,
        "updated_at": r.updated_at,
        "model_calls": r.model_calls,
        "tool_calls": r.tool_calls,
        "input_tokens": r.input_tokens,
        "output_tokens": r.output_tokens,
        "cost_micro_usd": r.cost_micro_usd,
        "imported_from": r.imported_from,
    })
}

/// A run's cost for people; "cost ?" when the provider has no price.
fn cost_text(cost_micro_usd: Option<u64>) -> String {
    cost_micro_usd.map_or_else(|| "cost ?".to_owned(), |c| Usd(c).to_string())
}

pub fn projection_text(p: &RunProjection) -> String {
    let mut out = vec![
        format!("run        {}", p.run_id),
        format!("status     {}", status_text(&p.status)),
        format!("goal       {}", p.goal),
        format!("workspace  {}", p.workspace_path),
        format!("profile    {}", p.profile),
        format!("created    {}", p.created_at),
        format!("updated    {} (event #{})", p.updated_at, p.last_seq),
        format!(
            "spent      {} / {} model calls, {} / {} tool calls, {} in / {} out tokens",
            p.model_calls,
            p.budgets.max_model_calls,
            p.tool_calls,
            p.budgets.max_tool_calls,
            p.usage.input,
            p.usage.output
        ),
        match (p.cost_micro_usd, p.budgets.max_cost_micro_usd) {
            (Some(c), Some(max)) => format!("cost       {} of {} limit", Usd(c), Usd(max)),
            (Some(c), None) => format!("cost       {}", Usd(c)),
            (None, _) => "cost       unknown (the provider has no price)".to_owned(),
        },
    ];
    if let Some(a) = &p.pending_approval {
        out.push(format!(
            "waiting    approval of {} ({})",
            a.tool_name, a.summary
        ));
    }
    if p.unknown_effects > 0 {
        out.push(format!(
            "UNKNOWN    {} write(s) with an unproven outcome",
            p.unknown_effects
        ));
    }
    if let Some(answer) = &p.final_answer {
        out.push(format!("answer     {answer}"));
    }
    if let Some(err) = &p.last_error {
        out.push(format!("last error {}", one_line(err, 200)));
    }
    out.join("\n")
}
