import type { ApiError, ExportedBundleView } from "../../bindings";
import type { RunFilesApi } from "./api";

/**
 * "Export…" of one run: the native save dialog, then the bundle written
 * there (the same file `bearagent export RUN --bundle FILE` writes). What
 * was written — or why not — is kept to show; cancelling the dialog
 * changes nothing.
 */
export class RunExporter {
  busy = $state.raw(false);
  error = $state.raw<ApiError | null>(null);
  written = $state.raw<ExportedBundleView | null>(null);

  readonly #api: RunFilesApi;
  readonly #runId: string;

  constructor(api: RunFilesApi, runId: string) {
    this.#api = api;
    this.#runId = runId;
  }

  /** The dialog, then the export. True when a file was written. */
  async exportRun(): Promise<boolean> {
    if (this.busy) return false;
    this.busy = true;
    this.error = null;
    try {
      const picked = await this.#api.pickExport(this.#runId);
      if (!picked.ok) {
        this.error = picked.error;
        return false;
      }
      if (picked.value === null) return false;
      const done = await this.#api.exportTo(this.#runId, picked.value);
      if (!done.ok) {
        this.error = done.error;
        return false;
      }
      this.written = done.value;
      return true;
    } finally {
      this.busy = false;
    }
  }

  dismiss(): void {
    this.error = null;
    this.written = null;
  }
}
