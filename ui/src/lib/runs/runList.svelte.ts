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

/**
 * How many runs the home list asks for at first, and how many more each
 * "Show more" adds: a year-old workspace has hundreds, and a page of them
 * is what a start has to paint.
 */
export const RUN_LIST_PAGE = 50;

/**
 * The runs of the current workspace, filtered by status and goal text
 * (the backend filters: `searchRuns`). Only the newest request's answer is
 * ever shown, and never another workspace's runs.
 */
export class RunListStore {
  state = $state.raw<RunListState>({ kind: "idle" });
  filter = $state.raw<RunFilter>({ status: null, text: "" });
  error = $state.raw<ApiError | null>(null);
  /** Runs asked for: a page, then a page more each "Show more". */
  limit = $state(RUN_LIST_PAGE);

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
    this.limit = RUN_LIST_PAGE;
    await this.refresh();
  }

  async setFilter(change: Partial<RunFilter>): Promise<void> {
    this.filter = { ...this.filter, ...change };
    await this.refresh();
  }

  /** The last answer filled the page: there may be older runs. */
  get hasMore(): boolean {
    return this.state.kind === "loaded" && this.state.runs.length >= this.limit;
  }

  /** The next page of older runs. */
  async showMore(): Promise<void> {
    this.limit += RUN_LIST_PAGE;
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
      limit: this.limit,
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
