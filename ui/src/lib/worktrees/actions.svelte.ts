import type { ApiError, ApplyReportView } from "../../bindings";
import type { WorktreesApi } from "./api";

/**
 * Apply, Undo apply and Discard of one run's worktree: one at a time, Discard only
 * after the user confirmed, the last apply's report kept to show. The
 * worktree list is refreshed after either (its state badge changes).
 */
export class WorktreeActions {
  busy = $state.raw<"apply" | "undo" | "discard" | null>(null);
  /** The paths the last undo put back. */
  undone = $state.raw<string[] | null>(null);
  confirming = $state.raw(false);
  report = $state.raw<ApplyReportView | null>(null);
  error = $state.raw<ApiError | null>(null);
  discarded = $state.raw(false);

  readonly #api: WorktreesApi;
  readonly #runId: string;
  readonly #changed: () => void | Promise<void>;

  constructor(api: WorktreesApi, runId: string, changed: () => void | Promise<void>) {
    this.#api = api;
    this.#runId = runId;
    this.#changed = changed;
  }

  async apply(): Promise<void> {
    if (this.busy) return;
    this.busy = "apply";
    this.error = null;
    this.confirming = false;
    try {
      const outcome = await this.#api.apply(this.#runId, []);
      if (outcome.ok) this.report = outcome.value;
      else this.error = outcome.error;
      await this.#changed();
    } finally {
      this.busy = null;
    }
  }

  /**
   * Puts the main checkout back as before the applies. A file the user
   * changed since is refused by name (the error says which); nothing is
   * forced from here.
   */
  async undoApply(): Promise<void> {
    if (this.busy) return;
    this.busy = "undo";
    this.error = null;
    try {
      const outcome = await this.#api.undoApply(this.#runId, false);
      if (outcome.ok) {
        this.undone = outcome.value;
        this.report = null;
      } else {
        this.error = outcome.error;
      }
      await this.#changed();
    } finally {
      this.busy = null;
    }
  }

  /** Discard asks first: the worktree's changes are lost. */
  askDiscard(): void {
    if (!this.busy) this.confirming = true;
  }

  cancelDiscard(): void {
    this.confirming = false;
  }

  async discard(): Promise<void> {
    if (this.busy || !this.confirming) return;
    this.busy = "discard";
    this.error = null;
    try {
      const outcome = await this.#api.discard(this.#runId);
      if (outcome.ok) {
        this.discarded = true;
        this.report = null;
      } else {
        this.error = outcome.error;
      }
      this.confirming = false;
      await this.#changed();
    } finally {
      this.busy = null;
    }
  }

  dismissError(): void {
    this.error = null;
  }
}
