// Development-only: the mock backend's runs. It stores their events (and
// pushes them as live updates), projects them with the mock reducer, and
// holds what a run's loop needs from outside: the user's decisions,
// cancel, an interruption, and the gates a test releases. What a run
// does is never decided here: it is a recording played back (playback.ts).
import type {
  ApprovalMode,
  Budgets,
  CommandSettings,
  DecisionInput,
  DelegatedBy,
  EventEnvelope,
  EventPayload,
  ImageRef,
  LiveUpdate,
  ModelContextView,
  ParentRun,
  Price,
  ProposedChangeView,
  RunOwnerView,
  RunProjection,
  WorkspaceView,
  Worktree,
} from "../../bindings";
import { DEFAULT_COMPACT_AT_PERMILLE } from "../../lib/runs/compaction";
import { DEFAULT_COMMAND_SETTINGS } from "../../lib/settings/validation";
import { apply, emptyProjection } from "./projection";
import type { ScenarioName, Take } from "./scenario";

export { sleep } from "./playback";

export interface EngineOptions {
  /** Queues a live update for the page to pull, as the shell's live feed does. */
  push(update: LiveUpdate): void;
  /** Delay between committed events. */
  stepMs: number;
  /** Delay between streamed text chunks. */
  streamMs: number;
  /** When set, each model call waits for `releaseModelCall()` before completing. */
  gateModelCalls: boolean;
  /** When set, each command waits for `releaseCommand()` after its output, before it finishes. */
  gateCommands: boolean;
}

export interface MockRun {
  id: string;
  events: EventEnvelope[];
  projection: RunProjection;
  active: boolean;
  /** Who executes it: this process once started here; stored runs have nobody until a test says otherwise. */
  owner: RunOwnerView;
  cancelled: boolean;
  waiting: ((decision: DecisionInput | "cancel") => void) | null;
  /** Stored output of each finished command, by call id (what `command_output` serves). */
  outputs: Map<string, string>;
  /** What each model call was sent, by the seq of its `model_call_requested` (what `model_context` serves). */
  contexts: Map<number, ModelContextView>;
  /** What each write asked about would change while it waits (what `pending_change` serves). */
  proposals: Map<string, ProposedChangeView | null>;
  /** The recorded scenario it plays, and the takes still matching what the user decided (its follow-up, fork and compaction are recorded with them). */
  scenario: ScenarioName | null;
  takes: Take[];
  /** What it is in its take: the run, or the take's follow-up or fork of it. */
  role: "run" | "follow_up" | "fork";
  /** The decisions the user made in this run so far. */
  decided: DecisionInput[];
}

export interface NewRun {
  workspace: WorkspaceView;
  goal: string;
  provider: string;
  model: string;
  profile: string;
  approvalMode: ApprovalMode;
  budgets: Budgets;
  price?: Price | null;
  /** Command settings (default: like a run started from the desktop, sandboxed, no rules). */
  commands?: CommandSettings;
  /** The run this one follows up or forks. */
  parent?: ParentRun | null;
  /** Images that went with the goal (stored by MockImages). */
  images?: ImageRef[];
  /** The git worktree it works in (its folder is the run's workspace path). */
  worktree?: Worktree | null;
  /** Plan first: recorded as `plan_mode` on its `run_created`. */
  planMode?: boolean;
  /** A helper: the run and `task` call that started it, on its `run_created`. */
  delegatedBy?: DelegatedBy;
  /** The recorded run's `run_created`: its settings, with this run's goal, ids, provider and parent. */
  recorded?: Extract<EventPayload, { type: "run_created" }>;
}

export class MockRunEngine {
  readonly runs = new Map<string, MockRun>();
  /** Content by blob hash (instructions, compaction summaries), like the store's blobs. */
  readonly blobs = new Map<string, string>();
  #next = 1;
  #gates: (() => void)[] = [];
  #released = 0;
  #commandGates: (() => void)[] = [];
  #commandsReleased = 0;

  constructor(readonly options: EngineOptions) {}

  /** The id the next run created without one gets (a worktree is named from it before the run exists). */
  nextId(): string {
    return `run-${String(this.#next).padStart(4, "0")}`;
  }

  create(spec: NewRun, at = new Date().toISOString(), id?: string): MockRun {
    if (id === undefined) {
      id = this.nextId();
      this.#next += 1;
    }
    const own = {
      goal: spec.goal,
      workspace_id: spec.workspace.id,
      // Like the runtime: a worktree run works in the worktree, listed under the main checkout's workspace.
      workspace_path: spec.worktree?.path ?? spec.workspace.path,
      profile: spec.profile,
      provider: spec.provider,
      model: spec.model,
      parent: spec.parent ?? null,
      // Like the kernel: absent when there are none.
      ...(spec.images && spec.images.length > 0 ? { images: spec.images } : {}),
      ...(spec.worktree ? { worktree: spec.worktree } : {}),
      ...(spec.planMode ? { plan_mode: true } : {}),
      ...(spec.delegatedBy ? { delegated_by: spec.delegatedBy } : {}),
    };
    const payload: EventPayload = spec.recorded
      ? { ...spec.recorded, ...own }
      : {
          type: "run_created",
          ...own,
          budgets: spec.budgets,
          approval_mode: spec.approvalMode,
          context_caps: { max_context_bytes: 400_000, max_tool_result_bytes: 16_384, compact_at_permille: DEFAULT_COMPACT_AT_PERMILLE },
          max_invalid_outputs: 2,
          price: spec.price ?? null,
          commands: structuredClone(spec.commands ?? DEFAULT_COMMAND_SETTINGS),
          config_versions: { config: "1", prompt: "p1", context: "c1" },
        };
    const created: EventEnvelope = { schema_version: 1, run_id: id, seq: 1, at, cause: null, payload };
    const run: MockRun = {
      id,
      events: [created],
      projection: emptyProjection(created),
      active: false,
      owner: { kind: "nobody" },
      cancelled: false,
      waiting: null,
      outputs: new Map(),
      contexts: new Map(),
      proposals: new Map(),
      scenario: null,
      takes: [],
      role: "run",
      decided: [],
    };
    this.runs.set(id, run);
    return run;
  }

  /** Appends an event; pushes it to the window unless `silent`. */
  commit(run: MockRun, payload: EventPayload, cause: number | null = run.events.length, options: { silent?: boolean; at?: string } = {}): EventEnvelope {
    const event: EventEnvelope = {
      schema_version: 1,
      run_id: run.id,
      seq: run.events.length + 1,
      at: options.at ?? new Date().toISOString(),
      cause,
      payload,
    };
    run.events.push(event);
    apply(run.projection, event);
    if (!options.silent) this.options.push({ kind: "run_event", runId: run.id, event });
    return event;
  }

  /** Runs `loop` as the run's loop (a recorded run played back): in progress here until it ends. */
  drive(run: MockRun, loop: () => Promise<void>): void {
    run.active = true;
    run.owner = { kind: "here" };
    void loop().finally(() => {
      run.active = false;
      run.waiting = null;
    });
  }

  decide(runId: string, callId: string, decision: DecisionInput): boolean {
    const run = this.runs.get(runId);
    const pending = run?.projection.pending_approval;
    if (!run || !pending || pending.call_id !== callId) return false;
    if (!run.waiting) return false;
    // An interrupted run resumes at its pending approval.
    if (run.projection.status.kind === "interrupted") {
      this.commit(run, { type: "run_resumed" });
      run.active = true;
    }
    // Answered once: a second answer before the loop goes on is refused.
    const answer = run.waiting;
    run.waiting = null;
    answer(decision);
    return true;
  }

  /** Like an app crash while a run waits for approval: it is interrupted, the request stays answerable. */
  interrupt(runId: string): boolean {
    const run = this.runs.get(runId);
    if (!run || !run.waiting || run.projection.status.kind === "interrupted") return false;
    this.commit(run, { type: "run_interrupted", reason: "the app stopped while the run was in progress" });
    run.active = false;
    return true;
  }

  cancel(runId: string): boolean {
    const run = this.runs.get(runId);
    if (!run || !run.active || run.projection.status.kind === "interrupted") return false;
    run.cancelled = true;
    const answer = run.waiting;
    run.waiting = null;
    answer?.("cancel");
    // A model call or command held by a test ends now (cancelled).
    this.#gates.splice(0).forEach((release) => release());
    this.#commandGates.splice(0).forEach((release) => release());
    return true;
  }

  releaseModelCall(): void {
    const gate = this.#gates.shift();
    if (gate) gate();
    else this.#released += 1;
  }

  releaseCommand(): void {
    const gate = this.#commandGates.shift();
    if (gate) gate();
    else this.#commandsReleased += 1;
  }

  /** With `gateModelCalls`: resolves when a test releases the model call about to complete. */
  modelGate(): Promise<void> {
    if (!this.options.gateModelCalls) return Promise.resolve();
    if (this.#released > 0) {
      this.#released -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#gates.push(resolve));
  }

  /** With `gateCommands`: resolves when a test releases the command (or MCP call) that has streamed its output. */
  commandGate(): Promise<void> {
    if (!this.options.gateCommands) return Promise.resolve();
    if (this.#commandsReleased > 0) {
      this.#commandsReleased -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#commandGates.push(resolve));
  }
}
