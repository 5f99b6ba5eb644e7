import type { EventEnvelope } from "../../bindings";

/** What "Rewind to here" does: the files, the conversation (a fork), or both. */
export type RewindChoice = "files" | "conversation" | "both";

/** The last rewind of a run that is not redone: where to, which files, and the seq of its `rewind_started`. */
export interface ActiveRewind {
  to: number;
  at: number;
  paths: string[];
}

/**
 * The files a refused rewind names ("2 files changed since BearAgent last
 * wrote them: a, b; nothing was touched …"); empty when the message does
 * not name them in that form (the message is then shown as it is).
 */
export function conflictPaths(message: string): string[] {
  const named = /last wrote (?:it|them): (.+?); nothing was touched/.exec(message);
  return named ? named[1].split(", ").filter((p) => p !== "") : [];
}

/**
 * Which effects a rewind put back, maintained as events are applied in seq
 * order: the last rewind not redone, the files it rewound, and the rows
 * after its point that wrote them (`artifact_recorded` of those files and
 * the tool call or command behind each).
 */
export class RewindMarks {
  active: ActiveRewind | null = null;
  /** Every file write of the run: seq, path and the call that made it. */
  readonly #writes: { seq: number; path: string; callId: string }[] = [];
  #rewound = new Set<number>();
  #calls = new Set<string>();

  add(event: EventEnvelope): void {
    const p = event.payload;
    if (p.type === "artifact_recorded") {
      this.#writes.push({ seq: event.seq, path: p.path, callId: p.call_id });
    } else if (p.type === "rewind_started") {
      this.active = p.redo ? null : { to: p.to, at: event.seq, paths: p.paths };
      this.#mark();
    }
  }

  /** The row's effect was put back by the active rewind. */
  isRewound(event: EventEnvelope): boolean {
    if (this.active === null) return false;
    if (this.#rewound.has(event.seq)) return true;
    const p = event.payload;
    const callId =
      p.type === "command_finished" || p.type === "tool_call_started"
        ? p.call_id
        : p.type === "tool_call_completed"
          ? p.result.call_id
          : null;
    return callId !== null && event.seq > this.active.to && event.seq < this.active.at && this.#calls.has(callId);
  }

  /** A tool call whose writes the active rewind put back (its card is marked "rewound"). */
  isCallRewound(callId: string): boolean {
    return this.active !== null && this.#calls.has(callId);
  }

  reset(): void {
    this.active = null;
    this.#writes.length = 0;
    this.#rewound = new Set();
    this.#calls = new Set();
  }

  #mark(): void {
    this.#rewound = new Set();
    this.#calls = new Set();
    const active = this.active;
    if (active === null) return;
    const paths = new Set(active.paths);
    for (const w of this.#writes) {
      if (w.seq > active.to && w.seq < active.at && paths.has(w.path)) {
        this.#rewound.add(w.seq);
        this.#calls.add(w.callId);
      }
    }
  }
}
