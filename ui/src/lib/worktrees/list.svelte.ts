import type { ApiError, WorktreeView } from "../../bindings";
import type { WorktreesApi } from "./api";
import { worktreeOfRun } from "./groups";

/**
 * The worktrees runs made, shared by the run list (its headers) and a run
 * view (state badge, apply / discard). Refreshed when runs change, at most
 * twice a second; only the newest answer is kept.
 */
export class WorktreeListStore {
  items = $state.raw<WorktreeView[]>([]);
  loaded = $state.raw(false);
  error = $state.raw<ApiError | null>(null);

  readonly #api: WorktreesApi;
  #request = 0;
  #throttle: ReturnType<typeof setTimeout> | null = null;

  constructor(api: WorktreesApi) {
    this.#api = api;
  }

  get api(): WorktreesApi {
    return this.#api;
  }

  /** The worktree `runId` worked in, once listed. */
  forRun(runId: string): WorktreeView | null {
    return worktreeOfRun(this.items, runId);
  }

  /** Something changed: list again soon (a burst of events is one call). */
  notifyChange(delayMs = 500): void {
    if (this.#throttle !== null) return;
    this.#throttle = setTimeout(() => {
      this.#throttle = null;
      void this.refresh();
    }, delayMs);
  }

  stop(): void {
    if (this.#throttle !== null) clearTimeout(this.#throttle);
    this.#throttle = null;
  }

  async refresh(): Promise<void> {
    const request = ++this.#request;
    const outcome = await this.#api.list();
    if (request !== this.#request) return;
    if (outcome.ok) {
      this.items = outcome.value;
      this.loaded = true;
      this.error = null;
    } else {
      // The run list still shows the runs, ungrouped.
      this.error = outcome.error;
    }
  }
}
