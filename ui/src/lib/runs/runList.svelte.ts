import type { ApiError, RunStatusKind, RunSummaryView } from "../../bindings";
import type { RunsApi } from "./api";

export type RunListState =
  | { kind: "idle" }
  | { kind: "loading" }
  | { kind: "loaded"; workspaceId: string; runs: RunSummaryView[] };

export interface RunFilter {
  status: RunStatusKind | null;
  text: string;
}

/** How many runs the home list asks for. */
export const RUN_LIST_LIMIT = 200;

/**
 * The runs of the current workspace, filtered by status and goal text
 * (the backend filters: `searchRuns`). Only the newest request's answer is
 * ever shown, and never another workspace's runs.
 */
export class RunListStore {
  state = $state.raw<RunListState>({ kind: "idle" });
  filter = $state.raw<RunFilter>({ status: null, text: "" });
  error = $state.raw<ApiError | null>(null);

  readonly #api: RunsApi;
  #workspaceId: string | null = null;
  #request = 0;
  #throttle: ReturnType<typeof setTimeout> | null = null;

  constructor(api: RunsApi) {
    this.#api = api;
  }

  get workspaceId(): string | null {
    return this.#workspaceId;
  }

  /** Show the runs of another workspace (or none); reloads when it changes. */
  async setWorkspace(workspaceId: string | null): Promise<void> {
    if (workspaceId === this.#workspaceId && this.state.kind !== "idle") return;
    this.#workspaceId = workspaceId;
    await this.refresh();
  }

  async setFilter(change: Partial<RunFilter>): Promise<void> {
    this.filter = { ...this.filter, ...change };
    await this.refresh();
  }

  get filtered(): boolean {
    return this.filter.status !== null || this.filter.text.trim() !== "";
  }

  /** A run changed somewhere: refresh soon, at most twice a second. */
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
    const workspaceId = this.#workspaceId;
    if (workspaceId === null) {
      this.state = { kind: "idle" };
      return;
    }
    // Keep showing the list while refreshing the same workspace.
    if (this.state.kind !== "loaded" || this.state.workspaceId !== workspaceId) {
      this.state = { kind: "loading" };
    }
    const text = this.filter.text.trim();
    const outcome = await this.#api.search({
      workspaceId,
      status: this.filter.status,
      text: text === "" ? null : text,
      limit: RUN_LIST_LIMIT,
    });
    if (request !== this.#request) return;
    if (outcome.ok) {
      this.state = { kind: "loaded", workspaceId, runs: outcome.value };
      this.error = null;
    } else {
      this.state = { kind: "idle" };
      this.error = outcome.error;
    }
  }
}
