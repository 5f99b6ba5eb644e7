// Development-only: a fake agent loop for the mock backend. It commits
// events over time (pushed as live updates), streams model text, waits
// for approvals and honours cancel, like the Rust runtime.
import type {
  ApprovalMode,
  Budgets,
  CommandSettings,
  DecisionInput,
  EventEnvelope,
  EventPayload,
  LiveUpdate,
  ParentRun,
  Price,
  RunOwnerView,
  RunProjection,
  TokenUsage,
  WorkspaceView,
} from "../../bindings";
import { compactAtOf, DEFAULT_COMPACT_AT_PERMILLE } from "../../lib/runs/compaction";
import { DEFAULT_COMMANDS, commandSummary, modelText, utf8Bytes, verdictFor, type MockCommand } from "./commands";
import { FAKE_AFTER_HASH, FAKE_BEFORE_HASH, FAKE_OUTPUT_HASH, compactMidRun, contextSize, defaultContextWindow, fakeHash } from "./compaction";
import { apply, costOf, emptyProjection } from "./projection";
import type { MockStep } from "./scripts";

export interface EngineOptions {
  /** Pushes a live update, as the shell's `live-updates` event carries it. */
  push(update: LiveUpdate): void;
  /** Delay between committed events. */
  stepMs: number;
  /** Delay between streamed text chunks. */
  streamMs: number;
  /** When set, each model call waits for `releaseModelCall()` before completing. */
  gateModelCalls: boolean;
  /** When set, each command waits for `releaseCommand()` after its output, before it finishes. */
  gateCommands: boolean;
  /** `before`: what the file held, when the mock knows (else what it last wrote there). */
  onWrite(workspacePath: string, relPath: string, content: string, runId: string, before?: string | null): void;
  /** The text of `relPath` (an `AGENTS.md`) in the workspace; null when there is none. */
  readInstructions?(workspacePath: string, relPath: string): string | null;
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
  /** "Always allow commands starting with …" granted in this run. */
  allowPrefixes: string[];
  /** Stored output of each finished command, by call id (what `command_output` serves). */
  outputs: Map<string, string>;
  /** Text of each `AGENTS.md` it loaded, by path (what the model's system prompt holds). */
  instructions: Map<string, string>;
  /** The model's context window in tokens (the provider's, else its family's). */
  window: number;
  /** Tokens a long result stands for in the context, by call id (the mock keeps only an excerpt of it). */
  weights: Map<string, number>;
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
  /** Command settings (default: like a run started from the desktop, sandboxed, no rules). */
  commands?: CommandSettings;
  /** The run this one follows up or forks. */
  parent?: ParentRun | null;
  /** The provider's configured window (absent or null: the model family's). */
  contextWindow?: number | null;
  /** The profile's compaction share in per mille (absent: the default 850; null: off). */
  compactAtPermille?: number | null;
}

/** Like the runtime: instructions over 32 KiB reach the model cut. */
const MAX_INSTRUCTION_BYTES = 32 * 1024;
const INSTRUCTIONS_FILE = "AGENTS.md";

/** Like the runtime: an HTTP provider's output cap per call; the demo has none. */
const MAX_OUTPUT_TOKENS_PER_CALL = 8_192;
/** Like the runtime's worst-case estimate of a prompt: 3 bytes per token. */
const BYTES_PER_TOKEN_ESTIMATE = 3;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
        context_caps: { max_context_bytes: 400_000, max_tool_result_bytes: 16_384, compact_at_permille: spec.compactAtPermille === undefined ? DEFAULT_COMPACT_AT_PERMILLE : spec.compactAtPermille },
        max_invalid_outputs: 2,
        provider: spec.provider,
        model: spec.model,
        price: spec.price ?? null,
        commands: structuredClone(spec.commands ?? DEFAULT_COMMANDS),
        parent: spec.parent ?? null,
        config_versions: { config: "1", prompt: "p1", context: "c1" },
      },
    };
    const run: MockRun = {
      id,
      events: [created],
      projection: emptyProjection(created),
      active: false,
      owner: { kind: "nobody" },
      cancelled: false,
      waiting: null,
      allowPrefixes: [],
      outputs: new Map(),
      instructions: new Map(),
      window: spec.contextWindow ?? defaultContextWindow(spec.provider, spec.model),
      weights: new Map(),
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

  /**
   * `servers`: the MCP server starts (or failures) recorded before the
   * first model call, after the workspace's AGENTS.md (like the runtime).
   */
  start(run: MockRun, script: MockStep[], servers: EventPayload[] = []): void {
    this.drive(run, () => this.#drive(run, script, servers));
  }

  /** Runs `loop` as the run's loop (e.g. a recorded run played back): in progress here until it ends. */
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
    // A command waiting for its end ends now (cancelled).
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

  #commandGate(): Promise<void> {
    if (!this.options.gateCommands) return Promise.resolve();
    if (this.#commandsReleased > 0) {
      this.#commandsReleased -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#commandGates.push(resolve));
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

  async #drive(run: MockRun, script: MockStep[], servers: EventPayload[]): Promise<void> {
    const { stepMs, streamMs } = this.options;
    this.commit(run, { type: "run_started" });
    this.#loadInstructions(run, INSTRUCTIONS_FILE);
    for (const server of servers) {
      await sleep(stepMs);
      if (run.cancelled) return void this.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
      this.commit(run, server);
    }
    let denied = false;
    let callNo = 0;
    for (const step of script) {
      await sleep(stepMs);
      if (run.cancelled) return void this.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
      if (run.projection.model_calls >= run.projection.budgets.max_model_calls) {
        return void this.commit(run, { type: "budget_exhausted", which: "model_calls" });
      }
      const size = this.#fitWindow(run);
      if (size === null) return;
      const contextBytes = size.bytes;
      if (this.#costBlocks(run, contextBytes)) return void this.commit(run, { type: "budget_exhausted", which: "cost" });
      const requested = this.commit(run, { type: "model_call_requested", context_version: "c1", context_bytes: contextBytes, estimated_tokens: size.tokens, context_window: run.window });
      const started = this.commit(run, { type: "model_call_started", provider: run.projection.provider, model: run.projection.model }, requested.seq);
      for (const chunk of step.text.match(/\S+\s*/g) ?? []) {
        await sleep(streamMs);
        this.options.push({ kind: "model_text", runId: run.id, modelCall: started.seq, text: chunk });
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
      // Like the runtime: a write first reads the AGENTS.md of each folder on its way.
      if (step.call.writes) this.#loadNested(run, String(step.call.args.path));
      const command = step.call.command ? { text: String(step.call.args.command), cwd: String(step.call.args.cwd ?? ".") } : null;
      const settings = this.#commands(run);
      const verdict = command ? verdictFor(command.text, settings, run.allowPrefixes) : null;
      if (command && verdict?.decision === "deny") {
        this.commit(run, { type: "tool_call_failed", result: { call_id: call.call_id, content: `refused: ${verdict.rule}`, is_error: true } }, asked.seq);
        continue;
      }
      // Like the policy: without the sandbox every command asks; an allow rule runs it; no rule asks unless the run allows everything.
      const asks = verdict
        ? !settings.sandbox || (verdict.decision === "ask" && !(verdict.noRule && run.projection.approval_mode === "allow_all"))
        : this.#needsApproval(run, step.call.writes);
      if (asks) {
        const summary = command && verdict
          ? commandSummary(command.text, command.cwd, settings, verdict.rule)
          : step.call.writes ? `write ${String(step.call.args.path)}` : `${step.call.tool} ${String(step.call.args.path ?? "")}`.trim();
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
        const prefix = decision.allowPrefix?.trim() || null;
        if (prefix) run.allowPrefixes.push(prefix);
        cause = this.commit(run, { type: "approval_granted", call_id: call.call_id, by: "user", scope: decision.scope, allowed_prefix: prefix }, approval.seq).seq;
      }
      await sleep(stepMs);
      const toolStarted = this.commit(run, { type: "tool_call_started", call_id: call.call_id }, cause);
      if (command && verdict && step.call.command) {
        // Like the runtime: the rule line is decided again at the start, after any prefix just allowed.
        const rule = verdictFor(command.text, settings, run.allowPrefixes).rule;
        const started = this.commit(run, { type: "command_started", call_id: call.call_id, command: command.text, cwd: command.cwd, sandboxed: settings.sandbox, network: settings.network, rule }, toolStarted.seq);
        if (!(await this.#runCommand(run, call.call_id, step.call.command, started.seq))) return;
        continue;
      }
      if (step.call.writes) {
        const path = String(step.call.args.path);
        this.commit(run, { type: "effect_intended", call_id: call.call_id, path, before_hash: null }, toolStarted.seq);
        this.options.onWrite(run.projection.workspace_path, path, String(step.call.args.content ?? ""), run.id, step.call.before);
      }
      if (step.call.progress && !(await this.#mcpProgress(run, call.call_id, step.call.progress, toolStarted.seq))) return;
      await sleep(stepMs);
      if (step.call.error) {
        // The model's next turn knows the call failed (it answers as after a denial).
        denied = true;
        this.commit(run, { type: "tool_call_failed", result: { call_id: call.call_id, content: step.call.result, is_error: true } }, toolStarted.seq);
        continue;
      }
      const result = { call_id: call.call_id, content: step.call.result, is_error: false };
      const receipt = step.call.writes
        ? { path: String(step.call.args.path), before_hash: null, after_hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", bytes_written: String(step.call.args.content ?? "").length }
        : null;
      if (step.call.contextShare) run.weights.set(call.call_id, Math.round(step.call.contextShare * run.window));
      const completed = this.commit(run, { type: "tool_call_completed", result, receipt, truncated: false, original_bytes: step.call.result.length }, toolStarted.seq);
      if (receipt) {
        const before = step.call.before === undefined ? null : FAKE_BEFORE_HASH;
        this.commit(run, { type: "artifact_recorded", call_id: call.call_id, path: receipt.path, before_hash: before, after_hash: receipt.after_hash }, completed.seq);
      }
    }
    this.commit(run, { type: "run_failed", reason: "script exhausted: the mock script ran out of steps" });
  }

  /**
   * Pushes an MCP tool's progress lines live (the channel commands use),
   * then waits like a command (`gateCommands`). False when the run was
   * cancelled meanwhile (and has ended).
   */
  async #mcpProgress(run: MockRun, callId: string, lines: string[], startedSeq: number): Promise<boolean> {
    for (const text of lines) {
      await sleep(this.options.streamMs);
      this.options.push({ kind: "command_output", runId: run.id, callId, text });
    }
    await this.#commandGate();
    if (!run.cancelled) return true;
    this.commit(run, { type: "tool_call_failed", result: { call_id: callId, content: "cancelled by the user", is_error: true } }, startedSeq);
    this.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
    return false;
  }

  /** Records `relPath` (an AGENTS.md) when the workspace has it, cut like the runtime cuts it. */
  #loadInstructions(run: MockRun, relPath: string): void {
    const text = this.options.readInstructions?.(run.projection.workspace_path, relPath) ?? null;
    if (text === null) return;
    const bytes = utf8Bytes(text);
    const truncated = bytes > MAX_INSTRUCTION_BYTES;
    const kept = truncated ? `${text.slice(0, MAX_INSTRUCTION_BYTES)}\n[${relPath} cut here]` : text;
    run.instructions.set(relPath, kept);
    const blob = fakeHash(kept);
    this.blobs.set(blob, kept);
    this.commit(run, { type: "instructions_loaded", path: relPath, blob, bytes, truncated });
  }

  /** The AGENTS.md of each folder on the way to `relPath` not read yet (nearest wins in the prompt). */
  #loadNested(run: MockRun, relPath: string): void {
    const parts = relPath.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const candidate = `${parts.slice(0, i).join("/")}/${INSTRUCTIONS_FILE}`;
      if (!run.instructions.has(candidate)) this.#loadInstructions(run, candidate);
    }
  }

  /**
   * Like the runtime before each request: past the profile's share of the
   * window the conversation is compacted first (recorded, then the request
   * is smaller); with compaction off, a request over the window fails the
   * run. Null when the run ended here.
   */
  #fitWindow(run: MockRun): { bytes: number; tokens: number } | null {
    const size = contextSize(this, run);
    const created = run.events[0].payload;
    const permille = created.type === "run_created" ? compactAtOf(created.context_caps.compact_at_permille) : null;
    const fail = (reason: string) => void this.commit(run, { type: "run_failed", reason });
    if (permille === null) {
      if (size.tokens <= run.window) return size;
      fail(`the next request (~${size.tokens} tokens) is larger than the model's window (${run.window} tokens), and compaction is off in profile ${run.projection.profile} (compact = false)`);
      return null;
    }
    if (size.tokens <= Math.floor((run.window * permille) / 1000)) return size;
    const compacted = compactMidRun(this, run);
    if (compacted === null) {
      fail(`the context (~${size.tokens} tokens) still passes ${permille}‰ of the model's window (${run.window} tokens) right after a compaction; nothing more can be summarised`);
      return null;
    }
    this.commit(run, compacted, null);
    return contextSize(this, run);
  }

  #commands(run: MockRun): CommandSettings {
    const created = run.events[0].payload;
    return created.type === "run_created" && created.commands ? created.commands : DEFAULT_COMMANDS;
  }

  /**
   * Streams the command's output live, records how it ended, what the model
   * is told and each file it wrote, like the runtime's command step.
   * False when the run was cancelled meanwhile (and has ended).
   */
  async #runCommand(run: MockRun, callId: string, command: MockCommand, startedSeq: number): Promise<boolean> {
    for (const text of command.chunks) {
      await sleep(this.options.streamMs);
      this.options.push({ kind: "command_output", runId: run.id, callId, text });
    }
    await this.#commandGate();
    const output = command.chunks.join("");
    run.outputs.set(callId, output);
    const cancelled = run.cancelled;
    const exitCode = cancelled ? null : command.exitCode;
    const writes = cancelled ? [] : (command.writes ?? []);
    const finished = this.commit(
      run,
      {
        type: "command_finished",
        call_id: callId,
        exit_code: exitCode,
        signal: cancelled ? 9 : null,
        duration_ms: command.durationMs,
        output: FAKE_OUTPUT_HASH,
        output_bytes: utf8Bytes(output),
        output_truncated: false,
        timed_out: false,
        cancelled,
        changed_files: writes.length,
        unrevertable_files: 0,
      },
      startedSeq,
    );
    const content = cancelled ? "cancelled by the user" : modelText(command.exitCode, command.durationMs, output);
    const result = { call_id: callId, content, is_error: exitCode !== 0 };
    const done = result.is_error
      ? this.commit(run, { type: "tool_call_failed", result }, finished.seq)
      : this.commit(run, { type: "tool_call_completed", result, receipt: null, truncated: false, original_bytes: utf8Bytes(content) }, finished.seq);
    for (const file of writes) {
      this.options.onWrite(run.projection.workspace_path, file.path, file.content, run.id, null);
      this.commit(run, { type: "artifact_recorded", call_id: callId, path: file.path, before_hash: null, after_hash: FAKE_AFTER_HASH }, done.seq);
    }
    if (!cancelled) return true;
    this.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
    return false;
  }
}
