//! Human and JSON renderings of the same application results.

use bearagent_kernel::{
    Action, EventEnvelope, EventPayload, ReviewAction, RunProjection, RunStatus, Usd,
};
use bearagent_runtime::RunSummary;
use serde_json::json;

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.chars().map(|c| if c == '\n' { '⏎' } else { c }).collect();
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    }
}

pub fn status_text(status: &RunStatus) -> String {
    match status {
        RunStatus::Failed { reason } => format!("failed: {}", one_line(reason, 120)),
        RunStatus::BudgetExhausted { which } => format!("budget exhausted: {which}"),
        other => other.name().replace('_', " "),
    }
}

/// One timeline line for an event.
pub fn event_line(e: &EventEnvelope) -> String {
    let body = match &e.payload {
        EventPayload::RunCreated {
            goal,
            workspace_path,
            profile,
            ..
        } => {
            format!(
                "run created in {workspace_path} (profile {profile}): {}",
                one_line(goal, 100)
            )
        }
        EventPayload::RunStarted => "run started".into(),
        EventPayload::ModelCallRequested {
            context_bytes,
            estimated_tokens,
            context_window,
            ..
        } => match (estimated_tokens, context_window) {
            (Some(tokens), Some(window)) => format!(
                "model call requested ({context_bytes} bytes of context, ~{tokens} of {window} tokens)"
            ),
            _ => format!("model call requested ({context_bytes} bytes of context)"),
        },
        EventPayload::ModelCallStarted { provider, model } => {
            format!("model call started: {provider}/{model}")
        }
        EventPayload::ModelCallRetryScheduled {
            attempt,
            delay_ms,
            message,
            ..
        } => {
            format!(
                "retry {attempt} in {delay_ms} ms: {}",
                one_line(message, 100)
            )
        }
        EventPayload::ModelCallCompleted {
            action,
            usage,
            cost_micro_usd,
            ..
        } => {
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
        EventPayload::ModelCallFailed { class, message, .. } => {
            format!("model call failed ({class:?}): {}", one_line(message, 140))
        }
        EventPayload::ToolCallRequested { call } => format!(
            "tool call {} {}",
            call.tool_name,
            one_line(
                &serde_json::Value::Object(call.arguments.clone()).to_string(),
                140
            )
        ),
        EventPayload::ApprovalRequested { summary, .. } => format!("approval requested: {summary}"),
        EventPayload::ApprovalGranted { by, scope, .. } => format!("approved by {by} ({scope:?})"),
        EventPayload::ApprovalDenied { by, reason, .. } => {
            format!(
                "denied by {by}{}",
                reason
                    .as_ref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            )
        }
        EventPayload::ToolCallStarted { .. } => "tool started".into(),
        EventPayload::EffectIntended { path, .. } => format!("about to write {path}"),
        EventPayload::ToolCallCompleted {
            result,
            truncated,
            original_bytes,
            ..
        } => format!(
            "tool ok{}: {}",
            if *truncated {
                format!(" (truncated from {original_bytes} bytes)")
            } else {
                String::new()
            },
            one_line(&result.content, 120)
        ),
        EventPayload::ToolCallFailed { result } => {
            format!("tool error: {}", one_line(&result.content, 140))
        }
        EventPayload::ArtifactRecorded {
            path, before_hash, ..
        } => {
            format!(
                "{} {path}",
                if before_hash.is_some() {
                    "modified"
                } else {
                    "created"
                }
            )
        }
        EventPayload::ExternalChangeObserved { path, .. } => {
            format!("changed outside the run: {path}")
        }
        EventPayload::EffectVerified { outcome, .. } => format!("write verified: {outcome:?}"),
        EventPayload::EffectUnknown { detail, .. } => format!("write outcome UNKNOWN: {detail}"),
        EventPayload::RunSucceeded { answer } => {
            format!("run succeeded: {}", one_line(answer, 200))
        }
        EventPayload::RunFailed { reason } => format!("run failed: {}", one_line(reason, 200)),
        EventPayload::RunCancelled { reason } => format!(
            "run cancelled{}",
            reason
                .as_ref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ),
        EventPayload::BudgetExhausted { which } => format!("budget exhausted: {which}"),
        EventPayload::RunInterrupted { reason } => format!("run interrupted: {reason}"),
        EventPayload::RunResumed => "run resumed".into(),
        EventPayload::LoopDetected {
            tool_name, repeats, ..
        } => format!("loop: {tool_name} asked again after {repeats} identical calls; not run"),
        EventPayload::ArtifactReverted { path, forced, .. } => {
            format!("reverted {path}{}", if *forced { " (forced)" } else { "" })
        }
        EventPayload::ArtifactReapplied { path, .. } => format!("re-applied {path}"),
        EventPayload::ArtifactKept { path } => format!("kept {path}"),
        EventPayload::ReviewIntended { path, action, .. } => match action {
            ReviewAction::Revert => format!("reverting {path}…"),
            ReviewAction::Reapply => format!("re-applying {path}…"),
        },
        EventPayload::ReviewAbandoned { path, reason } => {
            format!("{path} was not changed back: {reason}")
        }
        EventPayload::McpServerStarted {
            server,
            server_name,
            server_version,
            startup_ms,
            tools,
            ..
        } => {
            let names: Vec<&str> = tools.iter().map(|t| t.tool.as_str()).collect();
            format!(
                "mcp {server}: {server_name} {server_version} started in {startup_ms} ms; {} tool(s): {}",
                tools.len(),
                one_line(&names.join(", "), 160)
            )
        }
        EventPayload::ContextCompacted {
            replaced_through_seq,
            tokens_before,
            tokens_after,
            ..
        } => format!(
            "context compacted through #{replaced_through_seq}: ~{tokens_before} → ~{tokens_after} tokens"
        ),
        EventPayload::InstructionsLoaded {
            path,
            bytes,
            truncated,
            ..
        } => format!(
            "instructions: {path} ({bytes} bytes{})",
            if *truncated { ", cut to fit" } else { "" }
        ),
        EventPayload::McpServerUnavailable { server, reason } => {
            format!("mcp {server} unavailable: {}", one_line(reason, 200))
        }
        EventPayload::CommandStarted {
            command,
            cwd,
            sandboxed,
            network,
            rule,
            ..
        } => format!(
            "$ {} (in {cwd}; {}{}; {})",
            one_line(command, 120),
            if *sandboxed {
                "sandboxed"
            } else {
                "NOT sandboxed"
            },
            if *network { ", network on" } else { "" },
            one_line(rule, 80)
        ),
        EventPayload::CommandFinished {
            exit_code,
            signal,
            duration_ms,
            output_bytes,
            timed_out,
            cancelled,
            changed_files,
            ..
        } => {
            let how = match (exit_code, signal) {
                _ if *timed_out => "timed out".to_owned(),
                _ if *cancelled => "cancelled".to_owned(),
                (Some(code), _) => format!("exit {code}"),
                (None, Some(sig)) => format!("killed by signal {sig}"),
                (None, None) => "ended".to_owned(),
            };
            format!(
                "command {how} after {duration_ms} ms, {output_bytes} bytes of output, {changed_files} file(s) changed"
            )
        }
    };
    format!("#{:<4} {}  {}", e.seq, e.at.to_rfc3339(), body)
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
    )
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
