// Development-only: a fake agent loop for the mock backend. It commits
// events over time (pushed as run-event-pushed), streams model text, waits
// for approvals and honours cancel, like the Rust runtime.
import type {
  ApprovalMode,
  Budgets,
  DecisionInput,
  EventEnvelope,
  EventPayload,
  ModelTextPushed,
  Price,
  RunEventPushed,
  RunOwnerView,
  RunProjection,
  TokenUsage,
  WorkspaceView,
} from "../../bindings";
import { apply, costOf, emptyProjection } from "./projection";
import type { MockStep } from "./scripts";

export interface EngineOptions {
  emit(event: "run-event-pushed", payload: RunEventPushed): void;
  emit(event: "model-text-pushed", payload: ModelTextPushed): void;
  /** Delay between committed events. */
  stepMs: number;
  /** Delay between streamed text chunks. */
  streamMs: number;
  /** When set, each model call waits for `releaseModelCall()` before completing. */
  gateModelCalls: boolean;
  onWrite(workspacePath: string, relPath: string, content: string, runId: string): void;
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
}

export interface NewRun {
  workspace: WorkspaceView;
  goal: string;
  provider: string;
  model: string;
  profile: string;
  approvalMode: ApprovalMode;
  budgets: Budgets;
  /** The provider's price (none for the demo, like the Rust demo). */
  price?: Price | null;
}

/** Like the runtime: an HTTP provider's output cap per call; the demo has none. */
const MAX_OUTPUT_TOKENS_PER_CALL = 8_192;
/** Like the runtime's worst-case estimate of a prompt: 3 bytes per token. */
const BYTES_PER_TOKEN_ESTIMATE = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class MockRunEngine {
  readonly runs = new Map<string, MockRun>();
  #next = 1;
  #gates: (() => void)[] = [];
  #released = 0;

  constructor(private readonly options: EngineOptions) {}

  create(spec: NewRun, at = new Date().toISOString(), id = `run-${String(this.#next++).padStart(4, "0")}`): MockRun {
    const created: EventEnvelope = {
      schema_version: 1,
      run_id: id,
      seq: 1,
      at,
      cause: null,
      payload: {
        type: "run_created",
        goal: spec.goal,
        workspace_id: spec.workspace.id,
        workspace_path: spec.workspace.path,
        profile: spec.profile,
        budgets: spec.budgets,
        approval_mode: spec.approvalMode,
        context_caps: { max_context_bytes: 400_000, max_tool_result_bytes: 16_384 },
        max_invalid_outputs: 2,
        provider: spec.provider,
        model: spec.model,
        price: spec.price ?? null,
        config_versions: { config: "1", prompt: "p1", context: "c1" },
      },
    };
    const run: MockRun = { id, events: [created], projection: emptyProjection(created), active: false, owner: { kind: "nobody" }, cancelled: false, waiting: null };
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
    if (!options.silent) this.options.emit("run-event-pushed", { runId: run.id, event });
    return event;
  }

  start(run: MockRun, script: MockStep[]): void {
    run.active = true;
    run.owner = { kind: "here" };
    void this.#drive(run, script).finally(() => {
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
    run.waiting(decision);
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
    run.waiting?.("cancel");
    return true;
  }

  releaseModelCall(): void {
    const gate = this.#gates.shift();
    if (gate) gate();
    else this.#released += 1;
  }

  #gate(): Promise<void> {
    if (!this.options.gateModelCalls) return Promise.resolve();
    if (this.#released > 0) {
      this.#released -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#gates.push(resolve));
  }

  /** What `usage` cost under the run's price (null: unknown), as the runtime records it on the event. */
  #cost(run: MockRun, usage: TokenUsage): number | null {
    return run.projection.price ? costOf(run.projection.price, usage) : null;
  }

  /** Like the runtime: a cost limit stops the run before a call whose worst case could pass it. */
  #costBlocks(run: MockRun, contextBytes: number): boolean {
    const p = run.projection;
    const limit = p.budgets.max_cost_micro_usd;
    if (limit == null) return false;
    if (!p.price) return true;
    const outputLeft = Math.max(0, p.budgets.max_output_tokens - p.usage.output);
    const worst = costOf(p.price, { input: Math.ceil(contextBytes / BYTES_PER_TOKEN_ESTIMATE), output: Math.min(MAX_OUTPUT_TOKENS_PER_CALL, outputLeft) });
    return (p.cost_micro_usd ?? 0) + worst > limit;
  }

  #needsApproval(run: MockRun, writes: boolean): boolean {
    const mode = run.projection.approval_mode;
    return mode === "ask_all" || (mode === "ask_writes" && writes);
  }

  async #drive(run: MockRun, script: MockStep[]): Promise<void> {
    const { stepMs, streamMs } = this.options;
    this.commit(run, { type: "run_started" });
    let denied = false;
    let callNo = 0;
    for (const step of script) {
      await sleep(stepMs);
      if (run.cancelled) return void this.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
      if (run.projection.model_calls >= run.projection.budgets.max_model_calls) {
        return void this.commit(run, { type: "budget_exhausted", which: "model_calls" });
      }
      const contextBytes = 2_048 + run.events.length * 310;
      if (this.#costBlocks(run, contextBytes)) return void this.commit(run, { type: "budget_exhausted", which: "cost" });
      const requested = this.commit(run, { type: "model_call_requested", context_version: "c1", context_bytes: contextBytes });
      const started = this.commit(run, { type: "model_call_started", provider: run.projection.provider, model: run.projection.model }, requested.seq);
      for (const chunk of step.text.match(/\S+\s*/g) ?? []) {
        await sleep(streamMs);
        this.options.emit("model-text-pushed", { runId: run.id, modelCall: started.seq, text: chunk });
      }
      await this.#gate();
      if (run.cancelled) {
        this.commit(run, { type: "model_call_failed", class: { provider: { retryable: false } }, message: "cancelled by the user during the model call", usage: { input: 0, output: 0 }, cost_micro_usd: this.#cost(run, { input: 0, output: 0 }) }, started.seq);
        return void this.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
      }
      if (step.answer !== undefined) {
        const content = denied && step.answerIfDenied ? step.answerIfDenied : step.answer;
        const done = this.commit(run, { type: "model_call_completed", action: { type: "final_answer", content }, usage: step.usage, stop_reason: "end_turn", cost_micro_usd: this.#cost(run, step.usage) }, started.seq);
        await sleep(stepMs);
        return void this.commit(run, { type: "run_succeeded", answer: content }, done.seq);
      }
      if (!step.call) continue;
      callNo += 1;
      const call = { call_id: `call_${callNo}`, tool_name: step.call.tool, arguments: step.call.args };
      const done = this.commit(run, { type: "model_call_completed", action: { type: "tool_calls", calls: [call] }, usage: step.usage, stop_reason: "tool_use", cost_micro_usd: this.#cost(run, step.usage) }, started.seq);
      await sleep(stepMs);
      const asked = this.commit(run, { type: "tool_call_requested", call }, done.seq);
      let cause = asked.seq;
      if (this.#needsApproval(run, step.call.writes)) {
        const summary = step.call.writes ? `write ${String(step.call.args.path)}` : `${step.call.tool} ${String(step.call.args.path ?? "")}`.trim();
        const approval = this.commit(run, { type: "approval_requested", call_id: call.call_id, tool_name: call.tool_name, summary }, asked.seq);
        const decision = await new Promise<DecisionInput | "cancel">((resolve) => (run.waiting = resolve));
        run.waiting = null;
        if (decision === "cancel") {
          return void this.commit(run, { type: "run_cancelled", reason: "cancelled while waiting for approval" }, approval.seq);
        }
        if (!decision.approve) {
          denied = true;
          const no = this.commit(run, { type: "approval_denied", call_id: call.call_id, by: "user", scope: decision.scope, reason: decision.reason }, approval.seq);
          const why = decision.reason ? `: ${decision.reason}` : "";
          this.commit(run, { type: "tool_call_failed", result: { call_id: call.call_id, content: `The user denied this call${why}`, is_error: true } }, no.seq);
          continue;
        }
        cause = this.commit(run, { type: "approval_granted", call_id: call.call_id, by: "user", scope: decision.scope }, approval.seq).seq;
      }
      await sleep(stepMs);
      const toolStarted = this.commit(run, { type: "tool_call_started", call_id: call.call_id }, cause);
      if (step.call.writes) {
        const path = String(step.call.args.path);
        this.commit(run, { type: "effect_intended", call_id: call.call_id, path, before_hash: null }, toolStarted.seq);
        this.options.onWrite(run.projection.workspace_path, path, String(step.call.args.content ?? ""), run.id);
      }
      await sleep(stepMs);
      const result = { call_id: call.call_id, content: step.call.result, is_error: false };
      const receipt = step.call.writes
        ? { path: String(step.call.args.path), before_hash: null, after_hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", bytes_written: String(step.call.args.content ?? "").length }
        : null;
      const completed = this.commit(run, { type: "tool_call_completed", result, receipt, truncated: false, original_bytes: step.call.result.length }, toolStarted.seq);
      if (receipt) {
        this.commit(run, { type: "artifact_recorded", call_id: call.call_id, path: receipt.path, before_hash: null, after_hash: receipt.after_hash }, completed.seq);
      }
    }
    this.commit(run, { type: "run_failed", reason: "script exhausted: the mock script ran out of steps" });
  }
}
