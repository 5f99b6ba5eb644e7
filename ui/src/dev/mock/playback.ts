// Development-only: plays a recorded run (scenario.ts) on a mock run, as
// the shell would push it: each committed event a step apart, the model's
// text and a command's output streamed before the event that ends them.
// At each recorded question it waits for the user, then goes on with the
// take recorded for the decision made. Seqs and causes follow the mock
// run (an interruption and resume in between shift them).
import type { DecisionInput, EventEnvelope, EventPayload, LiveUpdate } from "../../bindings";
import { MockError } from "./errors";
import type { MockRun, MockRunEngine } from "./runEngine";
import { canonical, sameDecision, type RecordedCommand, type RecordedRun, type Take } from "./scenario";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PlaybackOptions {
  stepMs: number;
  streamMs: number;
  /** The run recorded `artifact_recorded` for `path`: list it as the recording does. */
  onArtifact(run: MockRun, recorded: RecordedRun, payload: Extract<EventPayload, { type: "artifact_recorded" }>): void;
}

/** Where a run is in its recording: the recorded seq of each committed event, and the mock's. */
export class SeqMap {
  readonly #mock = new Map<number, number>([[1, 1]]);
  readonly #recorded = new Map<number, number>([[1, 1]]);
  set(recorded: number, mock: number): void {
    this.#mock.set(recorded, mock);
    this.#recorded.set(mock, recorded);
  }
  mock(recorded: number): number {
    return this.#mock.get(recorded) ?? recorded;
  }
  recorded(mock: number): number | undefined {
    return this.#recorded.get(mock);
  }
}

/** Makes `recorded`'s answers (stored output, contexts, texts) the run's as its events are committed. */
export function adoptAnswers(engine: MockRunEngine, run: MockRun, recorded: RecordedRun, e: EventEnvelope, mockSeq: number): void {
  const p = e.payload;
  if (p.type === "command_finished") run.outputs.set(p.call_id, recorded.outputs[p.call_id] ?? "");
  if (p.type === "approval_requested") run.proposals.set(p.call_id, recorded.proposals?.[p.call_id] ?? null);
  if (p.type === "model_call_requested" && recorded.contexts[String(e.seq)]) run.contexts.set(mockSeq, recorded.contexts[String(e.seq)]);
  if (p.type === "instructions_loaded" || p.type === "context_compacted") {
    const blob = p.type === "instructions_loaded" ? p.blob : p.summary;
    const text = recorded.texts[blob];
    if (text !== undefined) engine.blobs.set(blob, text);
  }
}

/** The event as this mock run records it: its own provider and model on each call. */
function asRun(run: MockRun, p: EventPayload): EventPayload {
  return p.type === "model_call_started" ? { ...p, provider: run.projection.provider, model: run.projection.model } : p;
}

class Player {
  readonly seqs = new SeqMap();
  recording: RecordedRun;
  decided: DecisionInput[] = [];
  /** Output was streamed since the last committed event: the command (or MCP call) is still running. */
  running = false;

  constructor(
    readonly engine: MockRunEngine,
    readonly run: MockRun,
    public takes: Take[],
    readonly pick: (take: Take) => RecordedRun,
    readonly options: PlaybackOptions,
  ) {
    this.recording = pick(takes[0]);
  }

  /** Plays from update `from`; false when the run ended here (cancelled, or no take for a decision). */
  async play(from: number): Promise<boolean> {
    const updates = this.recording.updates;
    for (let i = from; i < updates.length; i++) {
      const u = updates[i];
      if (u.kind !== "run_event") {
        await this.stream(u);
        continue;
      }
      if (u.event.seq === 1) continue;
      if (!(await this.commit(u.event))) return false;
      if (u.event.payload.type === "approval_requested") return this.ask(u.event.seq);
    }
    return true;
  }

  async stream(u: Exclude<LiveUpdate, { kind: "run_event" }>): Promise<void> {
    const { engine, run } = this;
    const push = async (update: LiveUpdate) => {
      await sleep(this.options.streamMs);
      engine.options.push(update);
    };
    if (u.kind === "model_text") {
      for (const text of u.text.match(/\S+\s*|\s+/g) ?? []) await push({ ...u, runId: run.id, modelCall: this.seqs.mock(u.modelCall), text });
    } else if (u.kind === "command_output") {
      this.running = true;
      for (const text of u.text.match(/[^\n]*\n|[^\n]+$/g) ?? []) await push({ ...u, runId: run.id, text });
    } else if (u.kind === "model_text_discarded") {
      await push({ ...u, runId: run.id, modelCall: this.seqs.mock(u.modelCall) });
    } else {
      await push({ ...u, runId: run.id });
    }
  }

  async commit(e: EventEnvelope): Promise<boolean> {
    const { engine, run } = this;
    if (e.payload.type === "model_call_completed") await engine.modelGate();
    if (this.running) {
      await engine.commandGate();
      this.running = false;
    }
    await sleep(this.options.stepMs);
    if (run.cancelled) {
      engine.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
      return false;
    }
    const cause = e.cause === null ? null : this.seqs.mock(e.cause);
    const committed = engine.commit(run, asRun(run, e.payload), cause);
    this.seqs.set(e.seq, committed.seq);
    adoptAnswers(engine, run, this.recording, e, committed.seq);
    if (e.payload.type === "artifact_recorded") this.options.onArtifact(run, this.recording, e.payload);
    return true;
  }

  /** Waits for the user's decision on the request at recorded `seq`, then plays the take recorded for it. */
  async ask(seq: number): Promise<boolean> {
    const { engine, run } = this;
    const decision = await new Promise<DecisionInput | "cancel">((resolve) => (run.waiting = resolve));
    run.waiting = null;
    if (decision === "cancel") {
      engine.commit(run, { type: "run_cancelled", reason: "cancelled while waiting for approval" });
      return false;
    }
    const k = this.decided.length;
    this.decided.push(decision);
    this.takes = this.takes.filter((t) => t.decisions[k] !== undefined && sameDecision(t.decisions[k], decision));
    run.takes = this.takes;
    const take = this.takes[0];
    if (!take) {
      const reason = `the UI mock has no recording of this decision (${JSON.stringify(decision)}): record a take for it in src-tauri/src/scenarios/`;
      console.error(reason);
      engine.commit(run, { type: "run_failed", reason });
      return false;
    }
    this.recording = this.pick(take);
    const at = this.recording.updates.findIndex((u) => u.kind === "run_event" && u.event.seq === seq);
    return this.play(at + 1);
  }
}

/**
 * Plays `takes[0]`'s recording on `run` (`pick`: which of a take's runs,
 * with this run's ids in), switching takes as the user decides; `run.takes`
 * keeps the takes that still match.
 */
export async function playBack(engine: MockRunEngine, run: MockRun, takes: Take[], pick: (take: Take) => RecordedRun, options: PlaybackOptions): Promise<void> {
  // Set first: a recording is localised by the take the run plays.
  run.takes = takes;
  const player = new Player(engine, run, takes, pick, options);
  run.decided = player.decided;
  await player.play(0);
}

/** Commits recorded updates beside a finished run (e.g. "Compact"), pushed at once. */
export function appendRecorded(engine: MockRunEngine, run: MockRun, recorded: Pick<RecordedRun, "updates" | "texts">): EventEnvelope[] {
  const out: EventEnvelope[] = [];
  for (const u of recorded.updates) {
    if (u.kind !== "run_event") continue;
    const committed = engine.commit(run, u.event.payload, null);
    adoptAnswers(engine, run, { outputs: {}, contexts: {}, artifacts: [], diffs: {}, full_diffs: {}, updates: [], texts: recorded.texts }, u.event, committed.seq);
    out.push(committed);
  }
  return out;
}

/** The command recorded for `request` from the state `before` (both as recorded, compared canonically), if any. */
export function findRecorded<C extends RecordedCommand<unknown, unknown, unknown>>(recorded: readonly C[], request: unknown, before: unknown): C | undefined {
  return recorded.find((c) => canonical(c.request) === canonical(request) && canonical(c.before) === canonical(before));
}

/**
 * Answers as the recorded command did: its error rejected as the shell
 * would, else its events committed on the runs they name (already
 * localised) and its answer returned.
 */
export function answerRecorded(command: RecordedCommand<unknown, unknown, unknown>, commit: (runId: string, payload: EventPayload) => void): unknown {
  if ("error" in command.outcome) throw new MockError(command.outcome.error);
  for (const u of command.updates) if (u.kind === "run_event") commit(u.runId, u.event.payload);
  return command.outcome.ok;
}
