import type { ApiError, WorkspaceView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { Unlisten, WorkspaceApi } from "./api";

/** Which user-visible activity an error belongs to. */
export type ErrorContext = "open" | "choose" | "load";

export type WorkspaceError = ApiError & { context: ErrorContext };

/**
 * The current and recent workspaces. It only reads from the backend and sends
 * commands; the backend stays the source of truth, and `workspace-opened`
 * events trigger a refresh.
 */
export class WorkspaceStore {
  current = $state<WorkspaceView | null>(null);
  recents = $state<WorkspaceView[]>([]);
  error = $state<WorkspaceError | null>(null);
  busy = $state(false);
  ready = $state(false);

  readonly #api: WorkspaceApi;
  #unlisten: Unlisten | null = null;
  #stopped = false;
  #recentsRequest = 0;

  constructor(api: WorkspaceApi) {
    this.#api = api;
  }

  /** Subscribe to backend events and load the initial state. */
  async start(): Promise<void> {
    this.#stopped = false;
    const unlisten = await this.#api.onWorkspaceOpened(({ workspace }) => {
      void this.#adopt(workspace);
    });
    if (this.#stopped) {
      unlisten();
      return;
    }
    this.#unlisten = unlisten;
    await this.refresh();
    this.ready = true;
  }

  stop(): void {
    this.#stopped = true;
    this.#unlisten?.();
    this.#unlisten = null;
  }

  /** Reload the current workspace and recents from the backend. */
  async refresh(): Promise<void> {
    const current = await this.#api.current();
    if (!current.ok) {
      this.#fail("load", current.error);
      await this.#loadRecents();
      return;
    }
    this.current = current.value;
    await this.#loadRecents();
  }

  async openPath(rawPath: string): Promise<boolean> {
    const path = rawPath.trim();
    if (path === "") {
      this.#fail("open", { code: "invalid_input", message: "Enter the full path of a folder to open." });
      return false;
    }
    return this.#run("open", () => this.#api.open(path));
  }

  /** Let the user pick a folder in the native dialog. Cancelling changes nothing. */
  async choose(): Promise<boolean> {
    return this.#run("choose", () => this.#api.choose());
  }

  /** Open a workspace from the recent list. */
  async openRecent(workspace: WorkspaceView): Promise<boolean> {
    return this.#run("open", () => this.#api.open(workspace.path));
  }

  dismissError(): void {
    this.error = null;
  }

  async #run(
    context: ErrorContext,
    request: () => Promise<Outcome<WorkspaceView | null>>,
  ): Promise<boolean> {
    this.busy = true;
    try {
      const outcome = await request();
      if (!outcome.ok) {
        this.#fail(context, outcome.error);
        return false;
      }
      this.error = null;
      if (outcome.value !== null) await this.#adopt(outcome.value);
      return outcome.value !== null;
    } finally {
      this.busy = false;
    }
  }

  async #adopt(workspace: WorkspaceView): Promise<void> {
    this.current = workspace;
    await this.#loadRecents();
  }

  /** Adopt a workspace the backend opened on its own (e.g. the demo's). */
  async adopt(workspace: WorkspaceView): Promise<void> {
    this.error = null;
    await this.#adopt(workspace);
  }

  async #loadRecents(): Promise<void> {
    const request = ++this.#recentsRequest;
    const outcome = await this.#api.recents();
    if (request !== this.#recentsRequest) return;
    if (outcome.ok) this.recents = outcome.value;
    else this.#fail("load", outcome.error);
  }

  #fail(context: ErrorContext, error: ApiError): void {
    this.error = { ...error, context };
  }
}
