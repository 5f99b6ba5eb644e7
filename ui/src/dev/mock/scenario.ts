// Development-only: the runs the Rust application recorded for the mock
// (fixtures/scenarios/*.json, written by src-tauri/src/scenarios/), in the
// exact form the shell sends over IPC. Nothing here decides what a run
// does: a run plays a recorded take back; the user's decisions only pick
// which take (one per sequence of decisions), and a request no take was
// recorded for is refused, so the mock cannot show what the runtime
// would not do.
import type { ApiError, ArtifactItem, Budgets, DecisionInput, EventPayload, FileDiffView, LiveUpdate, ModelContextView, Price, ProposedChangeView, WorktreeInput, WorktreeView } from "../../bindings";
import changes from "./fixtures/scenarios/changes.json";
import commands from "./fixtures/scenarios/commands.json";
import conversation from "./fixtures/scenarios/conversation.json";
import demo from "./fixtures/scenarios/demo.json";
import hooks from "./fixtures/scenarios/hooks.json";
import long from "./fixtures/scenarios/long.json";
import mcp from "./fixtures/scenarios/mcp.json";
import plan from "./fixtures/scenarios/plan.json";
import provider from "./fixtures/scenarios/provider.json";
import twenty from "./fixtures/scenarios/twenty.json";
import worktrees from "./fixtures/scenarios/worktrees.json";

/** Everything recorded of one run: what was pushed, in order, and what the window could ask afterwards. */
export interface RecordedRun {
  updates: LiveUpdate[];
  /** Stored output of each command, by call id (`command_output`). */
  outputs: Record<string, string>;
  /** The context of each model call, by the seq of its `model_call_requested` (`model_context`). */
  contexts: Record<string, ModelContextView>;
  /** Instructions and summaries, by blob hash (`event_text`). */
  texts: Record<string, string>;
  /** The changed files at the end (`list_artifacts`) and their diffs (`artifact_diff`; `full_diffs` where the full one differs). */
  artifacts: ArtifactItem[];
  diffs: Record<string, FileDiffView>;
  full_diffs: Record<string, FileDiffView>;
  /** What each write asked about would change while it waited (`pending_change`), by call id. */
  proposals?: Record<string, ProposedChangeView | null>;
  /** A worktree run's worktree as `list_worktrees` listed it once the run ended. */
  worktree?: WorktreeView;
}

export interface Take {
  name: string;
  /** A worktree run: what the new-run form asked for its worktree (the name stands for the user's). */
  worktree_request?: WorktreeInput;
  /** The user's decisions, in the order the run asked. */
  decisions: DecisionInput[];
  run: RecordedRun;
  /** A reply to the finished run, and a fork of it. */
  follow_up?: RecordedRun;
  fork?: RecordedRun;
  /** What "Compact" on the finished run appended, and the summary's text. */
  compacted?: { updates: LiveUpdate[]; texts: Record<string, string> };
  /** Hunks the user reverted afterwards: the events and the file's entry and diff after. */
  hunks_reverted?: RecordedHunkRevert[];
  /** Rewinds, redos and kept edits, each from the state of the files it concerns (`before`). */
  review?: RecordedReviewStep[];
  /** The run's version of each text file, as the editor opens it (`edit_base`). */
  edit_bases?: Record<string, string>;
}

/** One review request as the window sends it (command name and arguments). */
export type ReviewRequest =
  | { cmd: "rewind_run"; to: number; force: boolean }
  | { cmd: "redo_rewind"; force: boolean }
  | { cmd: "keep_edited"; path: string; content: string; force: boolean };

export interface RecordedReviewStep {
  request: ReviewRequest;
  /** The files the request concerns, and their entries before it. */
  paths: string[];
  before: Record<string, ArtifactItem>;
  outcome: { ok: unknown } | { error: ApiError };
  updates: LiveUpdate[];
  after: { items: Record<string, ArtifactItem>; diffs: Record<string, FileDiffView>; full_diffs: Record<string, FileDiffView> };
}

export interface RecordedHunkRevert {
  path: string;
  hunks: number[];
  updates: LiveUpdate[];
  changes: Pick<RecordedRun, "artifacts" | "diffs" | "full_diffs">;
}

/**
 * A command the window sent and what the runtime answered, from the state
 * it was recorded in (`before`): the events it appended (on the runs they
 * name) and the state after. `take` names a worktree by the take whose run
 * made it.
 */
export interface RecordedCommand<Request, State, After> {
  request: Request;
  before: State;
  outcome: { ok: unknown } | { error: ApiError };
  updates: LiveUpdate[];
  after: After;
}

export interface Scenario {
  placeholders: {
    workspace_path: string;
    workspace_id: string;
    data_folder: string;
    runs: string[];
    /** Worktree runs: the folder of the repository's worktrees, and each take's worktree name. */
    worktrees?: string;
    worktree_names?: string[];
  };
  takes: Take[];
}

export const SCENARIOS = { changes, commands, conversation, demo, hooks, long, mcp, plan, provider, twenty, worktrees } as unknown as Record<ScenarioName, Scenario>;
export type ScenarioName = "changes" | "commands" | "conversation" | "demo" | "hooks" | "long" | "mcp" | "plan" | "provider" | "twenty" | "worktrees";

/** Which recorded scenario a request starts (as the mock's "model" would go about it): plan mode its own, else by the goal. */
export function scenarioFor(goal: string, planMode = false): ScenarioName {
  if (planMode) return "plan";
  if (/\bcurl\b/i.test(goal)) return "hooks";
  // Before "tests": the three-step calc.py run (a test fails, one edit, the test passes).
  if (/\bcalc\.py\b/i.test(goal)) return "conversation";
  if (/\btests?\b/i.test(goal)) return "commands";
  if (/\brename\b/i.test(goal)) return "twenty";
  if (/\blong\b/i.test(goal)) return "long";
  if (/\bmcp\b/i.test(goal)) return "mcp";
  return "provider";
}

/** What stands for the recording's placeholders: its workspace, run `i` of the take (`runs[i]`; null: left), and any other placeholder (`extra`, replaced first). */
export interface LocalIds {
  workspacePath: string;
  workspaceId: string;
  runs: (string | null)[];
  extra?: [string, string][];
}

/** `value` with the recording's placeholders replaced by `ids`. */
export function localise<T>(scenario: Scenario, value: T, ids: LocalIds): T {
  const { workspace_path, workspace_id, runs } = scenario.placeholders;
  let text = JSON.stringify(value);
  for (const [from, to] of ids.extra ?? []) text = text.replaceAll(from, to);
  text = text.replaceAll(workspace_path, ids.workspacePath).replaceAll(workspace_id, ids.workspaceId);
  ids.runs.forEach((id, i) => {
    if (id !== null) text = text.replaceAll(runs[i], id);
  });
  return JSON.parse(text) as T;
}

/**
 * The take a run's follow-up continues: one matching every decision made;
 * a run stopped before its next question wrote nothing, as after a denial.
 */
export function takeToContinue(takes: Take[], decided: number): Take | null {
  return takes.find((t) => t.decisions[decided]?.approve === false) ?? takes[0] ?? null;
}

export function createdOf(run: RecordedRun): Extract<EventPayload, { type: "run_created" }> {
  const first = run.updates.find((u) => u.kind === "run_event");
  if (first?.kind !== "run_event" || first.event.payload.type !== "run_created") throw new Error("a recorded run must start with run_created");
  return first.event.payload;
}

/** What a start request must share with a recording for the recording to be what the runtime would do. */
export interface RunRequestShape {
  approvalMode: string;
  budgets: Budgets;
  price: Price | null;
  /** The workspace has an AGENTS.md at its root. */
  instructions: boolean;
  /** The provider's configured window (null: its model's). */
  contextWindow: number | null;
  /** The workspace has a project hooks file nobody trusted as it is (the run starts by saying so). */
  untrustedHooks: boolean;
  /** Plan first (recorded as `plan_mode` on `run_created`). */
  planMode: boolean;
}

/** The takes recorded for `shape`, or why there is none. */
export function takesFor(scenario: Scenario, shape: RunRequestShape): Take[] | string {
  const why: string[] = [];
  const found = scenario.takes.filter((take) => {
    const created = createdOf(take.run);
    const events = take.run.updates.flatMap((u) => (u.kind === "run_event" ? [u.event.payload] : []));
    const loaded = events.some((p) => p.type === "instructions_loaded" && p.path === "AGENTS.md");
    const requested = events.find((p) => p.type === "model_call_requested");
    const window = requested?.type === "model_call_requested" ? (requested.context_window ?? null) : null;
    const untrusted = events.some((p) => p.type === "hooks_not_trusted");
    const differs = [
      created.approval_mode !== shape.approvalMode && `approval mode ${created.approval_mode}`,
      canonical(created.budgets) !== canonical(shape.budgets) && `budgets ${canonical(created.budgets)}`,
      canonical(created.price ?? null) !== canonical(shape.price) && `price ${canonical(created.price ?? null)}`,
      loaded !== shape.instructions && (loaded ? "an AGENTS.md" : "no AGENTS.md"),
      shape.contextWindow !== null && window !== shape.contextWindow && `a ${window}-token window`,
      (created.plan_mode ?? false) !== shape.planMode && (created.plan_mode ? "plan mode" : "no plan mode"),
      untrusted !== shape.untrustedHooks && (untrusted ? "untrusted project hooks" : "no untrusted project hooks"),
    ].filter(Boolean);
    if (differs.length > 0) why.push(`“${take.name}” has ${differs.join(", ")}`);
    return differs.length === 0;
  });
  return found.length > 0 ? found : `the UI mock has no recording of this run (${why.join("; ")}): record one in src-tauri/src/scenarios/`;
}

/** `value` as JSON with its keys sorted (serde writes them sorted, the UI in its own order). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

/** The user's decision is the one a take recorded (the reason, prefix and network grant as the shell would pass them on). */
export function sameDecision(recorded: DecisionInput, made: DecisionInput): boolean {
  const text = (s: string | null | undefined) => (s ?? "").trim() || null;
  return (
    recorded.approve === made.approve &&
    recorded.scope === made.scope &&
    text(recorded.reason) === text(made.reason) &&
    (recorded.approve ? text(recorded.allowPrefix) === text(made.allowPrefix) && (recorded.network ?? false) === (made.network ?? false) : true)
  );
}
