import type { ApiError } from "../../bindings";
import type { RunsApi, Unlisten } from "../runs/api";

/**
 * Closing the window with runs in progress: the backend asks (quit-requested),
 * the user decides. Quitting leaves those runs to be marked interrupted on
 * the next start; staying does nothing.
 */
export class QuitPrompt {
  activeRuns = $state.raw<string[] | null>(null);
  error = $state.raw<ApiError | null>(null);
  quitting = $state(false);
  readonly #api: Pick<RunsApi, "onQuitRequested" | "quit">;
  #unlisten: Unlisten | null = null;

  constructor(api: Pick<RunsApi, "onQuitRequested" | "quit">) {
    this.#api = api;
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#api.onQuitRequested(({ activeRuns }) => {
      this.error = null;
      this.activeRuns = activeRuns;
    });
  }

  stop(): void {
    this.#unlisten?.();
    this.#unlisten = null;
  }

  async quit(): Promise<void> {
    this.quitting = true;
    const outcome = await this.#api.quit();
    this.quitting = false;
    if (!outcome.ok) this.error = outcome.error;
  }

  stay(): void {
    this.activeRuns = null;
    this.error = null;
  }
}
