// One workspace's project hooks: the file as last read, and the trust
// prompt, which pins what it SHOWS — trusting sends that sha256, so a file
// edited meanwhile is refused (`conflict`) and shown again for a new review.
import type { ApiError, ProjectHooksView } from "../../bindings";
import { tauriHooksApi, type HooksApi } from "./api";

export class ProjectHooksStore {
  /** The hooks file as last read (null: the workspace has none; undefined: not read yet). */
  view = $state.raw<ProjectHooksView | null | undefined>(undefined);
  /** Reading the file or taking the trust back failed. */
  error = $state.raw<ApiError | null>(null);
  /** The prompt is open. */
  open = $state(false);
  /** The file as the open prompt shows it: what "Trust" pins. */
  shown = $state.raw<ProjectHooksView | null>(null);
  /** The file changed since the prompt showed it: it now shows the file as it is. */
  changed = $state(false);
  /** Why the prompt could not trust (other than a change), or that the file is gone. */
  promptError = $state.raw<ApiError | null>(null);
  busy = $state<"trust" | "untrust" | null>(null);

  readonly workspace: string;
  readonly #api: HooksApi;

  constructor(workspace: string, api: HooksApi = tauriHooksApi) {
    this.workspace = workspace;
    this.#api = api;
  }

  async load(): Promise<void> {
    const outcome = await this.#api.read(this.workspace);
    if (outcome.ok) this.view = outcome.value;
    this.error = outcome.ok ? null : outcome.error;
  }

  /** Opens the prompt on the file as it is now. */
  async review(): Promise<void> {
    this.changed = false;
    this.promptError = null;
    await this.#showCurrent();
    this.open = true;
  }

  close(): void {
    this.open = false;
    this.shown = null;
    this.changed = false;
    this.promptError = null;
  }

  /** Trusts what the prompt shows; a file changed meanwhile is shown again, saying so. */
  async trust(): Promise<boolean> {
    const shown = this.shown;
    if (!shown || this.busy !== null) return false;
    this.busy = "trust";
    try {
      const outcome = await this.#api.trust(this.workspace, shown.sha256);
      if (outcome.ok) {
        this.view = outcome.value;
        this.close();
        return true;
      }
      if (outcome.error.code === "conflict") {
        await this.#showCurrent();
        this.changed = true;
      } else {
        this.promptError = outcome.error;
      }
      return false;
    } finally {
      this.busy = null;
    }
  }

  /** "Stop trusting": the file's commands stop running until it is trusted again. */
  async untrust(): Promise<void> {
    if (this.busy !== null) return;
    this.busy = "untrust";
    try {
      const outcome = await this.#api.untrust(this.workspace);
      await this.load();
      // A refusal stays shown over the reload's success.
      if (!outcome.ok) this.error = outcome.error;
    } finally {
      this.busy = null;
    }
  }

  async #showCurrent(): Promise<void> {
    await this.load();
    this.shown = this.view ?? null;
    if (this.error) this.promptError = this.error;
    else if (this.view === null) this.promptError = { code: "not_found", message: "The workspace has no .bearagent/hooks.toml any more." };
  }
}
