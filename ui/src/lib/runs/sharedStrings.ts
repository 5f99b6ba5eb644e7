// Each event arrives as JSON, and a JSON parse makes its own copy of every
// string longer than a few characters: the run id in every envelope, each
// payload's type, and the tool names, paths and call ids a call's events
// repeat. On the soak's 14 000-event run these copies were a third of the
// log's short strings (1.5 MB of JS heap, bench:ui-memory); keeping one
// instance of each short string drops them.

/** Longer strings (digests, file contents, model text) rarely repeat: not worth a table entry. */
const SHARED_MAX = 48;

/** One instance per short string seen, for the lifetime of a run's log. */
export class SharedStrings {
  readonly #known = new Map<string, string>();

  /** The table's instance of `text` (itself when new or long). */
  one(text: string): string {
    if (text.length > SHARED_MAX) return text;
    const known = this.#known.get(text);
    if (known !== undefined) return known;
    this.#known.set(text, text);
    return text;
  }

  /** Replaces, in place, the short strings inside a parsed JSON value with the table's instances. */
  shareIn(value: object): void {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.#shared(value[i]);
      return;
    }
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = this.#shared(record[key]);
  }

  clear(): void {
    this.#known.clear();
  }

  #shared(value: unknown): unknown {
    if (typeof value === "string") return this.one(value);
    if (value !== null && typeof value === "object") this.shareIn(value);
    return value;
  }
}
