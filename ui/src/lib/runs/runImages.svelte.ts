import { SvelteMap } from "svelte/reactivity";
import type { ApiError, RunImageView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";

export type RunImageState = { kind: "loading" } | { kind: "ready"; image: RunImageView } | { kind: "failed"; error: ApiError };

/**
 * A run's images (the goal's, those tools returned), read with `runImage`
 * when a thumbnail first shows. Kept here, not in the row, because windowed
 * rows come and go as the view scrolls; blobs are content-addressed, so an
 * image once read never changes.
 */
export class RunImages {
  readonly #images = new SvelteMap<string, RunImageState>();
  readonly #fetch: (blob: string) => Promise<Outcome<RunImageView>>;

  constructor(fetch: (blob: string) => Promise<Outcome<RunImageView>>) {
    this.#fetch = fetch;
  }

  get(blob: string): RunImageState | undefined {
    return this.#images.get(blob);
  }

  /** Reads the image once; again only after a failure. */
  async load(blob: string): Promise<void> {
    const known = this.#images.get(blob);
    if (known && known.kind !== "failed") return;
    this.#images.set(blob, { kind: "loading" });
    const outcome = await this.#fetch(blob);
    this.#images.set(blob, outcome.ok ? { kind: "ready", image: outcome.value } : { kind: "failed", error: outcome.error });
  }
}
