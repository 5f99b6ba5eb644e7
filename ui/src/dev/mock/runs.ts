// Development-only: run commands of the mock backend on top of the engine.
import type {
  BudgetKind,
  EventEnvelope,
  EventPage,
  ModelContextView,
  RunDetailView,
  RunFilterInput,
  RunSummaryView,
  StartRunRequest,
  WorkspaceView,
} from "../../bindings";
import type { MockRun, MockRunEngine } from "./runEngine";
import { isTerminal } from "../../lib/runs/status";
import { visibleHistory } from "./compaction";
import { summary } from "./projection";
import { MockError } from "./settings";

export const MOCK_TOOLS: ModelContextView["tools"] = [
  { name: "list_dir", description: "List the entries of a folder in the workspace.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "read_file", description: "Read a UTF-8 text file in the workspace.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  {
    name: "write_file",
    description: "Create or replace a text file in the workspace (asks first).",
    parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] },
  },
  {
    name: "run_command",
    description: "Run one shell command line in the workspace, in a sandbox. Returns the exit code and the output. Commands may need the user's approval.",
    parameters: { type: "object", properties: { command: { type: "string" }, cwd: { type: "string" }, timeout_secs: { type: "integer", minimum: 1 } }, required: ["command"] },
  },
];

export function runOf(engine: MockRunEngine, runId: string): MockRun {
  const run = engine.runs.get(runId);
  if (!run) throw new MockError({ code: "not_found", message: `run not found: ${runId}` });
  return run;
}

export function detail(engine: MockRunEngine, runId: string): RunDetailView {
  const run = runOf(engine, runId);
  // Like the backend: a finished run is executed by nobody.
  const owner = isTerminal(run.projection.status) ? { kind: "nobody" as const } : structuredClone(run.owner);
  return { projection: structuredClone(run.projection), active: run.active, owner };
}

/** Like the store refusing another process's live run: only its owner may record its events. */
export function checkOwnedHere(engine: MockRunEngine, runId: string): void {
  const owner = runOf(engine, runId).owner;
  if (owner.kind !== "elsewhere") return;
  throw new MockError({
    code: "storage",
    message: `run ${runId} is being executed by another BearAgent process (${owner.program}, pid ${owner.pid}); only that process may record its events`,
  });
}

export function listEvents(engine: MockRunEngine, runId: string, afterSeq: number, limit: number): EventPage {
  const run = runOf(engine, runId);
  const events = run.events.slice(afterSeq, afterSeq + limit);
  return { events, hasMore: limit > 0 && events.length >= limit };
}

export function search(engine: MockRunEngine, filter: RunFilterInput): RunSummaryView[] {
  const text = filter.text?.trim().toLowerCase() ?? "";
  return [...engine.runs.values()]
    .map((run) => run.projection)
    .filter((p) => filter.workspaceId === null || p.workspace_id === filter.workspaceId)
    .filter((p) => !filter.status || p.status.kind === filter.status)
    .filter((p) => text === "" || p.goal.toLowerCase().includes(text))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.run_id.localeCompare(a.run_id))
    .slice(0, filter.limit ?? 100)
    .map(summary);
}

export function checkStart(request: StartRunRequest, workspace: WorkspaceView | undefined, providerKnown: boolean, priced: boolean): WorkspaceView {
  if (!workspace) throw new MockError({ code: "not_found", message: `workspace not found: ${request.workspaceId}` });
  if (!request.goal.trim()) throw new MockError({ code: "invalid_input", message: "goal: must not be empty" });
  if (!providerKnown) throw new MockError({ code: "not_found", message: `provider not found: ${request.provider}` });
  for (const [key, value] of Object.entries(request.budgets)) {
    // The cost limit is optional (null: none).
    if (key === "max_cost_micro_usd" && value == null) continue;
    if (!Number.isInteger(value) || (value ?? 0) <= 0) throw new MockError({ code: "invalid_input", message: `budgets.${key}: must be a positive integer` });
  }
  if (request.budgets.max_cost_micro_usd != null && !priced) {
    throw new MockError({
      code: "invalid_input",
      message: `a cost limit needs a price for provider ${request.provider}: add price = { input_per_mtok = …, output_per_mtok = … } to its config, or run without a cost limit`,
    });
  }
  return workspace;
}

/** One run's part of the conversation: its goal, its calls and results, its final answer. */
function conversation(events: readonly EventEnvelope[]): ModelContextView["history"] {
  const history: ModelContextView["history"] = [];
  for (const event of events) {
    const p = event.payload;
    if (p.type === "run_created") history.push({ type: "message", role: "user", content: p.goal });
    else if (p.type === "model_call_completed" && p.action.type === "tool_calls") {
      for (const call of p.action.calls) history.push({ type: "tool_call", ...call });
    } else if (p.type === "model_call_completed" && p.action.type === "final_answer") {
      history.push({ type: "message", role: "assistant", content: p.action.content });
    } else if (p.type === "tool_call_completed" || p.type === "tool_call_failed") {
      history.push({ type: "tool_result", ...p.result });
    }
  }
  return history;
}

/** How a compaction's summary opens in the history (the runtime's words). */
const SUMMARY_HEAD = "Summary of the conversation so far (earlier messages were compacted into it):";

/**
 * What the model saw for a model call: rebuilt from the events before it,
 * after the conversation of the runs it continues (a follow-up or fork),
 * with the AGENTS.md it loaded in the system prompt. After a compaction:
 * the run's goal (when it compacted itself), the summary, then what the
 * summary did not replace.
 */
export function modelContext(engine: MockRunEngine, runId: string, requestedSeq: number): ModelContextView {
  const run = runOf(engine, runId);
  const requested = run.events[requestedSeq - 1];
  if (!requested || requested.payload.type !== "model_call_requested") {
    throw new MockError({ code: "not_found", message: `no model call requested at seq ${requestedSeq}` });
  }
  const seen = visibleHistory(engine, run, requestedSeq);
  const history: ModelContextView["history"] = [];
  if (seen.summary !== null) {
    if (seen.ownGoal) history.push({ type: "message", role: "user", content: run.projection.goal });
    history.push({ type: "message", role: "user", content: `${SUMMARY_HEAD}\n${seen.summary}` });
  }
  history.push(...conversation(seen.events));
  const lines = [
    "You are BearAgent, a coding agent working inside one workspace folder.",
    `Workspace: ${run.projection.workspace_path}`,
    "Use the tools to read and change files; every change may need the user's approval.",
    "When you are done, reply with a final answer.",
  ];
  const loaded = new Set(run.events.slice(0, requestedSeq - 1).flatMap((e) => (e.payload.type === "instructions_loaded" ? [e.payload.path] : [])));
  const instructions = [...run.instructions].filter(([path]) => loaded.has(path));
  if (instructions.length > 0) lines.push("", "Project instructions follow. Those in a deeper folder take precedence for files under that folder.");
  for (const [path, text] of instructions) lines.push("", `--- ${path} ---`, text);
  return { system: lines.join("\n"), history, tools: MOCK_TOOLS, version: "c1", bytes: requested.payload.context_bytes };
}

const BUDGET_KINDS: BudgetKind[] = ["model_calls", "tool_calls", "input_tokens", "output_tokens", "wall_time", "cost"];

/** The list's status detail ("wall time", like the backend's Display, or "wall_time") back to its kind. */
function budgetKindOf(detail: string | null): BudgetKind {
  const kind = detail?.replace(/ /g, "_");
  return BUDGET_KINDS.find((k) => k === kind) ?? "model_calls";
}

/**
 * A seeded run list row; a `costMicroUsd` makes it a priced run with that
 * total, a `parentRunId` a follow-up of that (seeded) run.
 */
export type SeededRun = Omit<RunSummaryView, "workspaceId" | "costMicroUsd" | "parentRunId"> & { costMicroUsd?: number | null; parentRunId?: string | null };

/** gpt-4.1's list price, for seeded runs that have a cost. */
const SEED_PRICE = { input_micro_usd_per_mtok: 2_000_000, output_micro_usd_per_mtok: 8_000_000, cached_input_micro_usd_per_mtok: 500_000 };

/** A stored run behind a seeded summary, so the list and the run view agree. */
export function seedFromSummary(engine: MockRunEngine, workspace: WorkspaceView, s: SeededRun): void {
  const priced = typeof s.costMicroUsd === "number";
  const parentRun = s.parentRunId ? engine.runs.get(s.parentRunId) : undefined;
  const run = engine.create(
    {
      workspace,
      goal: s.goal,
      provider: "openai",
      model: "gpt-4.1",
      profile: "default",
      approvalMode: "ask_writes",
      budgets: { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null },
      price: priced ? SEED_PRICE : null,
      parent: parentRun ? { run_id: parentRun.id, through_seq: parentRun.projection.last_seq, fork: false } : null,
    },
    s.createdAt,
    s.runId,
  );
  const at = s.updatedAt;
  const quiet = { silent: true, at };
  engine.commit(run, { type: "run_started" }, 1, quiet);
  const requested = engine.commit(run, { type: "model_call_requested", context_version: "c1", context_bytes: 4_096 }, 2, quiet);
  const started = engine.commit(run, { type: "model_call_started", provider: "openai", model: "gpt-4.1" }, requested.seq, quiet);
  switch (s.status) {
    case "succeeded": {
      const done = engine.commit(run, { type: "model_call_completed", action: { type: "final_answer", content: "Done." }, usage: { input: s.inputTokens, output: s.outputTokens }, stop_reason: "end_turn" }, started.seq, quiet);
      engine.commit(run, { type: "run_succeeded", answer: "Done." }, done.seq, quiet);
      break;
    }
    case "failed": {
      const failed = engine.commit(run, { type: "model_call_failed", class: { provider: { retryable: true } }, message: s.statusDetail ?? "provider error", usage: { input: 0, output: 0 } }, started.seq, quiet);
      engine.commit(run, { type: "run_failed", reason: s.statusDetail ?? "provider error" }, failed.seq, quiet);
      break;
    }
    case "awaiting_approval": {
      const call = { call_id: "call_1", tool_name: "write_file", arguments: { path: "outputs/report.md", content: "# Report\n" } };
      const done = engine.commit(run, { type: "model_call_completed", action: { type: "tool_calls", calls: [call] }, usage: { input: s.inputTokens, output: s.outputTokens }, stop_reason: "tool_use" }, started.seq, quiet);
      const asked = engine.commit(run, { type: "tool_call_requested", call }, done.seq, quiet);
      engine.commit(run, { type: "approval_requested", call_id: "call_1", tool_name: "write_file", summary: "write outputs/report.md" }, asked.seq, quiet);
      break;
    }
    case "cancelled":
      engine.commit(run, { type: "run_cancelled", reason: "cancelled by the user" }, null, quiet);
      break;
    case "budget_exhausted":
      engine.commit(run, { type: "budget_exhausted", which: budgetKindOf(s.statusDetail) }, null, quiet);
      break;
    case "interrupted":
      engine.commit(run, { type: "run_interrupted", reason: "the app stopped" }, null, quiet);
      break;
    default:
      break;
  }
  // The list shows the seeded figures.
  Object.assign(run.projection, {
    model_calls: s.modelCalls,
    tool_calls: s.toolCalls,
    usage: { input: s.inputTokens, output: s.outputTokens, cached_input: 0 },
    cost_micro_usd: priced ? s.costMicroUsd : null,
    updated_at: s.updatedAt,
  });
}
