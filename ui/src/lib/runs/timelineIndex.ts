import type { EventEnvelope } from "../../bindings";
import { compactAtOf, type CompactionMark, type ContextReading } from "./compaction";
import { RewindMarks } from "./rewind";
import type { LoadedInstructions } from "./timeline";

/** Where the events of one tool call sit in the log. */
export interface CallSeqs {
  requested?: number;
  approval?: number;
  decision?: number;
  started?: number;
  /** A run_command call's CommandStarted and CommandFinished. */
  command?: number;
  commandEnd?: number;
  end?: number;
}

/** Where the events of one model call sit, keyed by its ModelCallStarted seq. */
export interface ModelCallSeqs {
  requested: number | null;
  end: number | null;
}

/**
 * Lookups across events, maintained as events are applied (in seq order),
 * so a row can find its tool call's arguments or its model call's end
 * without scanning the whole log.
 */
export class TimelineIndex {
  readonly calls = new Map<string, CallSeqs>();
  readonly modelCalls = new Map<number, ModelCallSeqs>();
  /** Project instructions the run loaded, latest per path. */
  readonly instructions = new Map<string, LoadedInstructions>();
  #openModelCall: number | null = null;
  #lastRequested: number | null = null;
  /** Seq of the run's final event (succeeded, failed, cancelled, budget exhausted). */
  endedAt: number | null = null;
  /** Seq of the last interruption not followed by a resume. */
  interruptedAt: number | null = null;
  /** The latest request that recorded its estimated size and the window (older runs have none). */
  lastContext: ContextReading | null = null;
  /** The run's compactions, oldest first. */
  readonly compactions: CompactionMark[] = [];
  /** Where the run compacts, per mille of the window (null: off), from its run_created. */
  compactAt: number | null = null;
  /** What the last rewind not redone put back. */
  readonly rewinds = new RewindMarks();

  add(event: EventEnvelope): void {
    this.rewinds.add(event);
    const p = event.payload;
    const seq = event.seq;
    switch (p.type) {
      case "run_created":
        this.compactAt = compactAtOf(p.context_caps.compact_at_permille);
        break;
      case "model_call_requested":
        this.#lastRequested = seq;
        if (p.estimated_tokens != null && p.context_window != null) {
          this.lastContext = { seq, estimated: p.estimated_tokens, window: p.context_window };
        }
        break;
      case "context_compacted":
        this.compactions.push({ seq, tokensBefore: p.tokens_before, tokensAfter: p.tokens_after });
        break;
      case "model_call_started":
        this.modelCalls.set(seq, { requested: event.cause ?? this.#lastRequested, end: null });
        this.#openModelCall = seq;
        break;
      case "model_call_completed":
      case "model_call_failed": {
        const started = event.cause !== null && this.modelCalls.has(event.cause) ? event.cause : this.#openModelCall;
        const call = started === null ? undefined : this.modelCalls.get(started);
        if (call && call.end === null) call.end = seq;
        if (started === this.#openModelCall) this.#openModelCall = null;
        break;
      }
      case "tool_call_requested":
        this.#call(p.call.call_id).requested = seq;
        break;
      case "approval_requested":
        this.#call(p.call_id).approval = seq;
        break;
      case "approval_granted":
      case "approval_denied":
        this.#call(p.call_id).decision = seq;
        break;
      case "tool_call_started":
        this.#call(p.call_id).started = seq;
        break;
      case "command_started":
        this.#call(p.call_id).command = seq;
        break;
      case "command_finished":
        this.#call(p.call_id).commandEnd = seq;
        break;
      case "tool_call_completed":
      case "tool_call_failed":
        this.#call(p.result.call_id).end = seq;
        break;
      case "run_succeeded":
      case "run_failed":
      case "run_cancelled":
      case "budget_exhausted":
        this.endedAt = seq;
        break;
      case "run_interrupted":
        this.interruptedAt = seq;
        break;
      case "run_resumed":
        this.interruptedAt = null;
        break;
      case "instructions_loaded":
        this.instructions.set(p.path, { path: p.path, bytes: p.bytes, truncated: p.truncated, seq });
        break;
      default:
        break;
    }
  }

  /** The ModelCallRequested seq behind any row of a model call (what `modelContext` takes). */
  requestedSeqOf(event: EventEnvelope): number | null {
    switch (event.payload.type) {
      case "model_call_requested":
        return event.seq;
      case "model_call_started":
        return this.modelCalls.get(event.seq)?.requested ?? null;
      case "model_call_completed":
      case "model_call_failed":
      case "model_call_retry_scheduled":
        return event.cause === null ? null : (this.modelCalls.get(event.cause)?.requested ?? null);
      default:
        return null;
    }
  }

  reset(): void {
    this.calls.clear();
    this.modelCalls.clear();
    this.instructions.clear();
    this.#openModelCall = null;
    this.#lastRequested = null;
    this.endedAt = null;
    this.interruptedAt = null;
    this.lastContext = null;
    this.compactions.length = 0;
    this.compactAt = null;
    this.rewinds.reset();
  }

  #call(id: string): CallSeqs {
    let seqs = this.calls.get(id);
    if (!seqs) {
      seqs = {};
      this.calls.set(id, seqs);
    }
    return seqs;
  }
}
