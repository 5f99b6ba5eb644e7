import type { ApiError, ImportedRunView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { RunFilesApi } from "./api";

/**
 * Opening a run file: "Open run file…" (the picker) or the file the app
 * was started with. The imported run opens by id, like a run of the list,
 * whichever workspace it was made in (the backend marks it imported: its
 * detail's `importedFrom` makes its view read-only); a refused file's error
 * is kept to show. Cancelling the picker changes nothing.
 */
export class RunFileOpener {
  busy = $state.raw(false);
  error = $state.raw<ApiError | null>(null);

  readonly #api: RunFilesApi;
  readonly #onopen: (runId: string) => void;

  constructor(api: RunFilesApi, onopen: (runId: string) => void) {
    this.#api = api;
    this.#onopen = onopen;
  }

  /** "Open run file…". True when a run was imported and opened. */
  async choose(): Promise<boolean> {
    return this.#import(() => this.#api.open());
  }

  /** At start: the run file the app was started to open, if any. */
  async openAtStart(): Promise<boolean> {
    const opened = await this.#api.openedAtStart();
    if (!opened.ok) {
      this.error = opened.error;
      return false;
    }
    const path = opened.value;
    return path !== null && this.#import(() => this.#api.importFile(path));
  }

  dismissError(): void {
    this.error = null;
  }

  async #import(request: () => Promise<Outcome<ImportedRunView | null>>): Promise<boolean> {
    if (this.busy) return false;
    this.busy = true;
    this.error = null;
    try {
      const outcome = await request();
      if (!outcome.ok) {
        this.error = outcome.error;
        return false;
      }
      if (outcome.value === null) return false;
      this.#onopen(outcome.value.runId);
      return true;
    } finally {
      this.busy = false;
    }
  }
}
