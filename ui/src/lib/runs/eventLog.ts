import type { EventEnvelope } from "../../bindings";
import { SharedStrings } from "./sharedStrings";

/**
 * The committed events of one run as the window knows them: contiguous
 * from seq 1, each seq exactly once. Events that arrive ahead of a gap wait
 * in `pending` until the missing ones are paged in; duplicates (a live push
 * that a page also returned, or the other way round) are dropped.
 */
export class EventLog {
  #events: EventEnvelope[] = [];
  #pending = new Map<number, EventEnvelope>();
  readonly #strings = new SharedStrings();

  /** Seq of the last contiguous event; 0 when empty. */
  get lastSeq(): number {
    return this.#events.length;
  }

  get size(): number {
    return this.#events.length;
  }

  /** Events held back because an earlier one is missing. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  at(index: number): EventEnvelope | undefined {
    return this.#events[index];
  }

  bySeq(seq: number): EventEnvelope | undefined {
    return this.#events[seq - 1];
  }

  all(): readonly EventEnvelope[] {
    return this.#events;
  }

  /**
   * The range that must be paged before the held-back events can be
   * applied: `listEvents(after, …)` up to `through`; `null` when nothing is
   * missing.
   */
  get missing(): { after: number; through: number } | null {
    if (this.#pending.size === 0) return null;
    let first = Infinity;
    for (const seq of this.#pending.keys()) first = Math.min(first, seq);
    return { after: this.lastSeq, through: first - 1 };
  }

  /**
   * Offers one event. Returns the events that joined the log because of it,
   * in seq order: none (duplicate, or held back behind a gap), the event
   * itself, or the event followed by held-back ones it unblocked.
   */
  add(event: EventEnvelope): EventEnvelope[] {
    const seq = event.seq;
    if (!Number.isInteger(seq) || seq < 1 || seq <= this.lastSeq) return [];
    if (seq > this.lastSeq + 1) {
      if (!this.#pending.has(seq)) this.#pending.set(seq, event);
      return [];
    }
    this.#keep(event);
    const applied = [event];
    if (this.#pending.size > 0) {
      this.#pending.delete(seq);
      let next = this.#pending.get(this.lastSeq + 1);
      while (next) {
        this.#pending.delete(next.seq);
        this.#keep(next);
        applied.push(next);
        next = this.#pending.get(this.lastSeq + 1);
      }
    }
    return applied;
  }

  /** Offers a page of events (any order); returns those that joined the log, in order. */
  addAll(events: readonly EventEnvelope[]): EventEnvelope[] {
    const applied: EventEnvelope[] = [];
    for (const event of events) {
      for (const joined of this.add(event)) applied.push(joined);
    }
    return applied;
  }

  reset(): void {
    this.#events = [];
    this.#pending.clear();
    this.#strings.clear();
  }

  /** Appends a joining event, its short strings shared with the events before it (see SharedStrings). */
  #keep(event: EventEnvelope): void {
    event.run_id = this.#strings.one(event.run_id);
    this.#strings.shareIn(event.payload);
    this.#events.push(event);
  }
}
