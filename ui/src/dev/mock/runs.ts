// Development-only: run commands of the mock backend on top of the engine.
import type {
  BudgetKind,
  CommandSettings,
  DelegatedBy,
  EventPayload,
  HelperRunView,
  EventEnvelope,
  EventPage,
  ModelContextView,
  ProposedChangeView,
  RunDetailView,
  RunFilterInput,
  RunSummaryView,
  StartRunRequest,
  WorkspaceView,
} from "../../bindings";
import type { MockRun, MockRunEngine } from "./runEngine";
import { isTerminal } from "../../lib/runs/status";
import { withSource } from "./bundles";
import { summary } from "./projection";
import { MockError } from "./settings";

export function runOf(engine: MockRunEngine, runId: string): MockRun {
  const run = engine.runs.get(runId);
  if (!run) throw new MockError({ code: "not_found", message: `run not found: ${runId}` });
  return run;
}

/** The bundle a run was imported from (its file name); `null` for a run made here. */
export type ImportedFrom = (runId: string) => string | null;

export function detail(engine: MockRunEngine, runId: string, imported: ImportedFrom): RunDetailView {
  const run = runOf(engine, runId);
  // Like the backend: a finished run is executed by nobody.
  const owner = isTerminal(run.projection.status) ? { kind: "nobody" as const } : structuredClone(run.owner);
  return withSource({ projection: structuredClone(run.projection), active: run.active, owner }, imported(runId));
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

/**
 * Like `search_runs`: an imported run's summary names its bundle
 * (`importedFrom`); `importedOnly` keeps only imported runs, whatever
 * workspace they name (another machine's), newest first like the others.
 */
export function search(engine: MockRunEngine, filter: RunFilterInput, imported: ImportedFrom): RunSummaryView[] {
  const text = filter.text?.trim().toLowerCase() ?? "";
  return [...engine.runs.values()]
    .map((run) => run.projection)
    .filter((p) => filter.workspaceId === null || p.workspace_id === filter.workspaceId)
    .filter((p) => !filter.importedOnly || imported(p.run_id) !== null)
    .filter((p) => !filter.status || p.status.kind === filter.status)
    .filter((p) => text === "" || p.goal.toLowerCase().includes(text))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.run_id.localeCompare(a.run_id))
    .slice(0, filter.limit ?? 100)
    .map((p) => withSource(listed(engine, p.run_id), imported(p.run_id)));
}

/** The run that started a run (its `run_created`'s `delegated_by`), if a `task` call did. */
function delegatedByOf(run: MockRun): DelegatedBy | null {
  const created = run.events[0]?.payload;
  return created?.type === "run_created" ? (created.delegated_by ?? null) : null;
}

/** A run as the list shows it: a helper names the run and call that started it. */
function listed(engine: MockRunEngine, runId: string): RunSummaryView {
  const run = runOf(engine, runId);
  const by = delegatedByOf(run);
  return { ...summary(run.projection), ...(by ? { delegatedBy: { runId: by.run_id, callId: by.call_id, depth: by.depth, description: by.description } } : {}) };
}

/** Like `helper_runs`: the runs the run's `task` calls started, and theirs, parents first. */
export function helperRuns(engine: MockRunEngine, runId: string, imported: ImportedFrom): HelperRunView[] {
  runOf(engine, runId);
  const out: HelperRunView[] = [];
  const parents = [runId];
  for (let parent = parents.shift(); parent !== undefined; parent = parents.shift()) {
    for (const run of engine.runs.values()) {
      if (delegatedByOf(run)?.run_id !== parent) continue;
      parents.push(run.id);
      out.push({ run: withSource(listed(engine, run.id), imported(run.id)), pendingApproval: structuredClone(run.projection.pending_approval) });
    }
  }
  return out;
}

/** What a test's seeded run may have besides its events (see `MockHooks.seedRun`). */
export interface SeedOptions {
  commands?: CommandSettings;
  outputs?: Record<string, string>;
  delegatedBy?: DelegatedBy;
  answers?: boolean;
}

/** A test's run, stored with these events; with `answers`, the user's decision on its pending approval is committed as its loop would. */
export function seedRun(engine: MockRunEngine, workspace: WorkspaceView, goal: string, payloads: EventPayload[], options: SeedOptions): string {
  const run = engine.create({
    workspace,
    goal,
    provider: "openai",
    model: "gpt-4.1",
    profile: "default",
    approvalMode: "ask_writes",
    budgets: { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null },
    commands: options.commands,
    delegatedBy: options.delegatedBy,
  });
  for (const payload of payloads) engine.commit(run, payload, run.events.length, { silent: true });
  for (const [callId, output] of Object.entries(options.outputs ?? {})) run.outputs.set(callId, output);
  if (options.answers) answerNext(engine, run);
  return run.id;
}

/** The run's next decision commits its grant or denial (and waits for the one after). */
function answerNext(engine: MockRunEngine, run: MockRun): void {
  run.waiting = (decision) => {
    const asked = run.projection.pending_approval;
    if (!asked || decision === "cancel") return;
    const { call_id } = asked;
    const by = "user";
    const scope = decision.scope;
    engine.commit(run, decision.approve ? { type: "approval_granted", call_id, by, scope } : { type: "approval_denied", call_id, by, scope, reason: decision.reason ?? null });
    answerNext(engine, run);
  };
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

/** Like `command_output`: a finished command's stored output. */
export function commandOutput(engine: MockRunEngine, runId: string, callId: string): string {
  const output = runOf(engine, runId).outputs.get(callId);
  if (output === undefined) throw new MockError({ code: "not_found", message: `command output not found: ${runId}/${callId}` });
  return output;
}

/** Like `pending_change`: what the write the run waits on would change (null when it waits on nothing). */
export function pendingChange(engine: MockRunEngine, runId: string): ProposedChangeView | null {
  const run = runOf(engine, runId);
  const waits = run.projection.pending_approval;
  return waits && run.waiting ? (run.proposals.get(waits.call_id) ?? null) : null;
}

/** Like `model_context`: what the model was sent for a call, as the run's recording holds it. */
export function modelContext(engine: MockRunEngine, runId: string, requestedSeq: number): ModelContextView {
  const context = runOf(engine, runId).contexts.get(requestedSeq);
  if (!context) throw new MockError({ code: "not_found", message: `no model call requested at seq ${requestedSeq}` });
  return context;
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
