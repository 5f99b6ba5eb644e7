import { SvelteMap } from "svelte/reactivity";
import type { ApiError } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import { LIVE_OUTPUT_CAP, TerminalBuffer, type TerminalSegment } from "./terminal";

/** What the timeline shows of a command's live output (a new object per flush). */
export interface LiveOutput {
  segments: readonly TerminalSegment[];
  /** Characters received in all. */
  received: number;
  /** Characters dropped from the front (over the client's cap). */
  dropped: number;
  /** The command started while this view listened: no output came before the first chunk kept. */
  fromStart: boolean;
}

export type StoredOutput = { kind: "loading" } | { kind: "ready"; text: string } | { kind: "failed"; error: ApiError };

export interface CommandOutputOptions {
  /** Live chunks are applied at most this often (a flood must not re-render per chunk). */
  flushMs?: number;
  /** Characters of live output kept per command. */
  liveCap?: number;
  /** Finished commands whose live output is kept; older ones read their stored output. */
  keepLive?: number;
  /** Characters of fetched stored output kept across commands (oldest evicted first). */
  storedBudget?: number;
}

/**
 * One run's command output: live chunks (batched, capped per command) and
 * the stored output of finished commands, fetched on demand and cached
 * within a budget.
 */
export class CommandOutputs {
  readonly live = new SvelteMap<string, LiveOutput>();
  readonly stored = new SvelteMap<string, StoredOutput>();
  readonly #fetch: (callId: string) => Promise<Outcome<string>>;
  readonly #buffers = new Map<string, TerminalBuffer>();
  readonly #pending = new Map<string, string>();
  readonly #finished = new Set<string>();
  readonly #fromStart = new Set<string>();
  /** Finished commands with live output, oldest first. */
  readonly #finishedLive: string[] = [];
  readonly #flushMs: number;
  readonly #liveCap: number;
  readonly #keepLive: number;
  readonly #storedBudget: number;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(fetch: (callId: string) => Promise<Outcome<string>>, options: CommandOutputOptions = {}) {
    this.#fetch = fetch;
    this.#flushMs = options.flushMs ?? 50;
    this.#liveCap = options.liveCap ?? LIVE_OUTPUT_CAP;
    this.#keepLive = options.keepLive ?? 16;
    this.#storedBudget = options.storedBudget ?? 8 * 1024 * 1024;
  }

  /** A live chunk; output of a command already finished is stale and ignored. */
  push(callId: string, text: string): void {
    if (this.#finished.has(callId)) return;
    const pending = (this.#pending.get(callId) ?? "") + text;
    this.#pending.set(callId, pending);
    // A flood is applied at once rather than piling up (the buffer drops its front).
    if (pending.length > this.#liveCap) this.#apply(callId);
    else if (this.#timer === null) this.#timer = setTimeout(() => this.flush(), this.#flushMs);
  }

  /** Applies the chunks waiting for the next flush. */
  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    for (const callId of [...this.#pending.keys()]) this.#apply(callId);
  }

  /** The command's `command_started` arrived live: its output is seen from the start. */
  begin(callId: string): void {
    this.#fromStart.add(callId);
  }

  /** The command's `command_finished` is committed: its live output is complete. */
  finish(callId: string): void {
    if (this.#finished.has(callId)) return;
    this.#apply(callId);
    this.#finished.add(callId);
    if (!this.#buffers.has(callId)) return;
    this.#finishedLive.push(callId);
    // Old commands' live text gives way; they show their stored output.
    while (this.#finishedLive.length > this.#keepLive) {
      const old = this.#finishedLive.shift();
      if (old === undefined) break;
      this.#buffers.delete(old);
      this.live.delete(old);
    }
  }

  isFinished(callId: string): boolean {
    return this.#finished.has(callId);
  }

  /** Fetches a finished command's stored output once (again after a failure). */
  async load(callId: string): Promise<void> {
    const known = this.stored.get(callId);
    if (known && known.kind !== "failed") {
      if (known.kind === "ready") this.#touch(callId, known);
      return;
    }
    this.stored.set(callId, { kind: "loading" });
    const outcome = await this.#fetch(callId);
    this.stored.set(callId, outcome.ok ? { kind: "ready", text: outcome.value } : { kind: "failed", error: outcome.error });
    if (outcome.ok) this.#evict(callId);
  }

  close(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending.clear();
  }

  #apply(callId: string): void {
    const text = this.#pending.get(callId);
    if (text === undefined) return;
    this.#pending.delete(callId);
    let buffer = this.#buffers.get(callId);
    if (!buffer) {
      buffer = new TerminalBuffer(this.#liveCap);
      this.#buffers.set(callId, buffer);
    }
    buffer.append(text);
    this.live.set(callId, { segments: [...buffer.segments], received: buffer.received, dropped: buffer.dropped, fromStart: this.#fromStart.has(callId) });
  }

  /** Most recently used last, so eviction takes the oldest. */
  #touch(callId: string, value: StoredOutput): void {
    this.stored.delete(callId);
    this.stored.set(callId, value);
  }

  #evict(keep: string): void {
    let total = 0;
    for (const value of this.stored.values()) if (value.kind === "ready") total += value.text.length;
    for (const [callId, value] of [...this.stored]) {
      if (total <= this.#storedBudget) break;
      if (callId === keep || value.kind !== "ready") continue;
      total -= value.text.length;
      this.stored.delete(callId);
    }
  }
}

/** All the kept live text, escapes included. */
export function liveText(live: LiveOutput): string {
  return live.segments.map((s) => s.raw).join("");
}
