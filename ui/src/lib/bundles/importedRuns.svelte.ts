import { SvelteSet } from "svelte/reactivity";
import type { ImportedRunView } from "../../bindings";

/**
 * The runs this window imported from run files, so their view says they
 * are read-only and offers no reply box. The backend knows which runs were
 * imported (it refuses to continue one with `conflict`), but the run
 * projection has no such flag yet: until it has, a run imported in an
 * earlier session, or re-imported (the import adds nothing then), is not
 * known here.
 */
export class ImportedRuns {
  readonly #ids = new SvelteSet<string>();

  /** The runs an import added: the bundle's run and the earlier runs of its thread this store lacked. */
  add(view: ImportedRunView): void {
    for (const runId of view.added) this.#ids.add(runId);
  }

  has(runId: string): boolean {
    return this.#ids.has(runId);
  }
}
