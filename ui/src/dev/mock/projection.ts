// Development-only: a small reducer giving the mock backend the same
// RunProjection the Rust store derives from events.
import type { EventEnvelope, Price, PriceView, RunProjection, RunSummaryView, RunStatusKind, TokenUsage } from "../../bindings";

/** A configured price (USD per MTok) as the kernel holds it (micro-USD per MTok). */
export function priceFromView(view: PriceView | null | undefined): Price | null {
  if (!view || view.inputPerMtok === null || view.outputPerMtok === null) return null;
  const micro = (usd: number) => Math.round(usd * 1_000_000);
  return {
    input_micro_usd_per_mtok: micro(view.inputPerMtok),
    output_micro_usd_per_mtok: micro(view.outputPerMtok),
    cached_input_micro_usd_per_mtok: view.cachedInputPerMtok === null ? null : micro(view.cachedInputPerMtok),
  };
}

/** Like the kernel's `Price::cost_micro_usd`: cached input at its own rate, rounded up. */
export function costOf(price: Price, usage: TokenUsage): number {
  const cached = Math.min(usage.cached_input ?? 0, usage.input);
  const cachedRate = price.cached_input_micro_usd_per_mtok ?? price.input_micro_usd_per_mtok;
  const pico = (usage.input - cached) * price.input_micro_usd_per_mtok + cached * cachedRate + usage.output * price.output_micro_usd_per_mtok;
  return Math.ceil(pico / 1_000_000);
}

/** Tokens and, when the price is known, cost, as the kernel's reducer adds them. */
function spend(run: RunProjection, usage: TokenUsage, cost: number | null | undefined): void {
  run.usage = {
    input: run.usage.input + usage.input,
    output: run.usage.output + usage.output,
    cached_input: (run.usage.cached_input ?? 0) + (usage.cached_input ?? 0),
  };
  if (run.cost_micro_usd == null) return;
  run.cost_micro_usd += cost ?? (run.price ? costOf(run.price, usage) : 0);
}

export function emptyProjection(first: EventEnvelope): RunProjection {
  const p = first.payload;
  if (p.type !== "run_created") throw new Error("the first event of a run must be run_created");
  return {
    run_id: first.run_id,
    workspace_id: p.workspace_id,
    workspace_path: p.workspace_path,
    goal: p.goal,
    profile: p.profile,
    budgets: p.budgets,
    approval_mode: p.approval_mode,
    provider: p.provider,
    model: p.model,
    status: { kind: "created" },
    created_at: first.at,
    updated_at: first.at,
    last_seq: first.seq,
    model_calls: 0,
    tool_calls: 0,
    usage: { input: 0, output: 0, cached_input: 0 },
    price: p.price ?? null,
    cost_micro_usd: p.price ? 0 : null,
    pending_approval: null,
    last_error: null,
    final_answer: null,
    model_call: null,
    open_tool_calls: {},
    unknown_effects: 0,
    external_changes: 0,
    loops_detected: 0,
    parent: p.parent ?? null,
  };
}

export function project(events: readonly EventEnvelope[]): RunProjection {
  const run = emptyProjection(events[0]);
  for (const event of events) apply(run, event);
  return run;
}

/** The user's review of a run's files (the kernel's `is_review` facet). */
const REVIEW_TYPES: ReadonlySet<string> = new Set([
  "artifact_kept",
  "artifact_hunks_kept",
  "artifact_reverted",
  "artifact_reapplied",
  "artifact_hunks_reverted",
  "review_intended",
  "review_abandoned",
  "rewind_started",
  "artifact_rewound",
  "artifact_edited",
  "worktree_applied",
  "worktree_removed",
  "worktree_step",
]);

export function apply(run: RunProjection, event: EventEnvelope): void {
  run.last_seq = event.seq;
  const p = event.payload;
  // Like the kernel: the user's review of a file is not activity of the run.
  if (!REVIEW_TYPES.has(p.type)) run.updated_at = event.at;
  switch (p.type) {
    case "run_started":
    case "run_resumed":
      run.status = { kind: run.pending_approval ? "awaiting_approval" : "running" };
      break;
    case "model_call_requested":
      run.model_call = "requested";
      break;
    case "model_call_started":
      run.model_call = "started";
      run.model_calls += 1;
      break;
    // Like the kernel: a compaction is a model call of its own, between turns.
    case "context_compacted":
      run.model_calls += 1;
      spend(run, p.usage, p.cost_micro_usd);
      break;
    case "model_call_completed":
    case "model_call_failed":
      run.model_call = null;
      spend(run, p.usage, p.cost_micro_usd);
      if (p.type === "model_call_failed") run.last_error = p.message;
      break;
    case "tool_call_requested":
      run.open_tool_calls = { ...run.open_tool_calls, [p.call.call_id]: "requested" };
      break;
    case "approval_requested":
      run.open_tool_calls = { ...run.open_tool_calls, [p.call_id]: "awaiting_approval" };
      run.pending_approval = { call_id: p.call_id, tool_name: p.tool_name, summary: p.summary, requested_seq: event.seq };
      run.status = { kind: "awaiting_approval" };
      break;
    case "approval_granted":
    case "approval_denied":
      run.open_tool_calls = { ...run.open_tool_calls, [p.call_id]: p.type === "approval_granted" ? "approved" : "denied" };
      run.pending_approval = null;
      run.status = { kind: "running" };
      break;
    case "tool_call_started":
      run.open_tool_calls = { ...run.open_tool_calls, [p.call_id]: "started" };
      run.tool_calls += 1;
      break;
    // Like the kernel: only a started call runs a command; the projection does not change.
    case "command_started":
    case "command_finished":
    case "web_fetched":
    case "web_fetch_failed":
      if (run.open_tool_calls[p.call_id] !== "started") {
        throw new Error(`invalid event ${p.type} at seq ${event.seq}: tool call ${p.call_id} is ${run.open_tool_calls[p.call_id] ?? "not open"}`);
      }
      break;
    case "tool_call_completed":
    case "tool_call_failed": {
      const open = { ...run.open_tool_calls };
      delete open[p.result.call_id];
      run.open_tool_calls = open;
      if (p.type === "tool_call_failed") run.last_error = p.result.content;
      break;
    }
    case "effect_unknown":
      run.unknown_effects += 1;
      break;
    case "external_change_observed":
      run.external_changes += 1;
      break;
    // Like the kernel: servers, instructions and hooks report only while the run is in progress; the projection does not change.
    case "mcp_server_started":
    case "mcp_server_unavailable":
    case "instructions_loaded":
    case "hook_ran":
    case "hooks_not_trusted":
    case "tool_mode_switched":
      if (run.status.kind !== "running") throw new Error(`invalid event ${p.type} at seq ${event.seq}: the run is ${run.status.kind}`);
      break;
    case "loop_detected":
      run.loops_detected = (run.loops_detected ?? 0) + 1;
      break;
    // Like the kernel: the model's list replaces the last, during the run only (absent when empty).
    case "todo_updated":
      if (run.status.kind !== "running") throw new Error(`invalid event ${p.type} at seq ${event.seq}: the run is ${run.status.kind}`);
      if (p.items.length > 0) run.todo = p.items.map((item) => ({ ...item }));
      else delete run.todo;
      break;
    case "model_call_retry_scheduled":
      if (p.usage) spend(run, p.usage, p.cost_micro_usd);
      break;
    case "run_succeeded":
      run.status = { kind: "succeeded" };
      run.final_answer = p.answer;
      break;
    case "run_failed":
      run.status = { kind: "failed", reason: p.reason };
      run.last_error = p.reason;
      break;
    case "run_cancelled":
      run.status = { kind: "cancelled" };
      break;
    case "budget_exhausted":
      run.status = { kind: "budget_exhausted", which: p.which };
      break;
    case "run_interrupted":
      // A model call cut off by a crash produced nothing usable.
      run.model_call = null;
      run.last_error = p.reason;
      run.status = { kind: "interrupted" };
      break;
    // Facts about files and the run's settings: nothing in the projection.
    case "run_created":
    case "effect_intended":
    case "artifact_recorded":
    case "effect_verified":
    case "artifact_reverted":
    case "artifact_reapplied":
    case "artifact_hunks_reverted":
    case "artifact_kept":
    case "artifact_hunks_kept":
    case "review_intended":
    case "review_abandoned":
    case "rewind_started":
    case "artifact_rewound":
    case "artifact_edited":
    case "worktree_applied":
    case "worktree_removed":
    case "worktree_step":
      break;
    default: {
      // A new event type must be handled above (a type error otherwise).
      const unhandled: never = p;
      throw new Error(`unknown event ${JSON.stringify(unhandled)}`);
    }
  }
}


/** A run list row, with the run's cost (null: unknown, never 0). */
export function summary(run: RunProjection): RunSummaryView {
  const status = run.status;
  return {
    costMicroUsd: run.cost_micro_usd ?? null,
    runId: run.run_id,
    workspaceId: run.workspace_id,
    goal: run.goal,
    status: status.kind,
    statusDetail: status.kind === "failed" ? status.reason : status.kind === "budget_exhausted" ? status.which : null,
    provider: run.provider,
    model: run.model,
    createdAt: run.created_at,
    updatedAt: run.updated_at,
    modelCalls: run.model_calls,
    toolCalls: run.tool_calls,
    inputTokens: run.usage.input,
    outputTokens: run.usage.output,
    parentRunId: run.parent?.run_id ?? null,
  };
}
