import { SvelteMap } from "svelte/reactivity";
import type { ApiError, CompactedView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { RunsApi } from "./api";

export type EventTextState = { kind: "loading" } | { kind: "ready"; text: string } | { kind: "failed"; error: ApiError };

/**
 * Texts a run's events reference by blob (a compaction's summary), read
 * with `eventText` when a row expands. They live here rather than in the
 * row because windowed rows come and go as the timeline scrolls; blobs
 * are content-addressed, so a text once read never changes.
 */
export class EventTexts {
  readonly #texts = new SvelteMap<string, EventTextState>();
  readonly #fetch: (blob: string) => Promise<Outcome<string>>;

  constructor(fetch: (blob: string) => Promise<Outcome<string>>) {
    this.#fetch = fetch;
  }

  get(blob: string): EventTextState | undefined {
    return this.#texts.get(blob);
  }

  /** Reads the text once; again only after a failure (Retry). */
  async load(blob: string): Promise<void> {
    const known = this.#texts.get(blob);
    if (known && known.kind !== "failed") return;
    this.#texts.set(blob, { kind: "loading" });
    const outcome = await this.#fetch(blob);
    this.#texts.set(blob, outcome.ok ? { kind: "ready", text: outcome.value } : { kind: "failed", error: outcome.error });
  }
}

/**
 * "Compact" under a finished run: summarises it now so its next follow-up
 * starts from the summary. The new `context_compacted` event reaches the
 * timeline like any committed event; this only keeps what the call said.
 */
export class CompactStore {
  readonly runId: string;
  sending = $state(false);
  result = $state.raw<CompactedView | null>(null);
  error = $state.raw<ApiError | null>(null);

  readonly #api: Pick<RunsApi, "compact">;

  constructor(api: Pick<RunsApi, "compact">, runId: string) {
    this.#api = api;
    this.runId = runId;
  }

  /** One call at a time; its result or error replaces whatever the last one said. */
  async compact(): Promise<boolean> {
    if (this.sending) return false;
    this.sending = true;
    this.error = null;
    this.result = null;
    try {
      const outcome = await this.#api.compact(this.runId);
      if (!outcome.ok) {
        this.error = outcome.error;
        return false;
      }
      this.result = outcome.value;
      return true;
    } finally {
      this.sending = false;
    }
  }

  dismissError(): void {
    this.error = null;
  }
}
