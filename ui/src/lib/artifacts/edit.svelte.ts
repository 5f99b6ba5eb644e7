import type { ApiError } from "../../bindings";
import type { ReviewApi } from "./review";

/**
 * Edit before keep, for one run: the file being edited, the run's version
 * it started from, and the save. Cancel leaves everything as it was; a
 * save refused with `conflict` (the file changed since the run wrote it)
 * is remembered so the view can offer "Save anyway".
 */
export class EditStore {
  /** The file open in the editor (null: none). */
  path = $state<string | null>(null);
  /** The run's version, once loaded. */
  base = $state<string | null>(null);
  /** What the editor holds now. */
  draft = $state("");
  saving = $state(false);
  conflict = $state(false);
  error = $state.raw<ApiError | null>(null);
  readonly #api: Pick<ReviewApi, "editBase" | "keepEdited">;
  readonly #runId: string;
  readonly #onsaved: (path: string) => void | Promise<void>;
  #token = 0;

  constructor(api: Pick<ReviewApi, "editBase" | "keepEdited">, runId: string, onsaved: (path: string) => void | Promise<void>) {
    this.#api = api;
    this.#runId = runId;
    this.#onsaved = onsaved;
  }

  get changed(): boolean {
    return this.base !== null && this.draft !== this.base;
  }

  /** Opens `path` in the editor with the run's version. */
  async start(path: string): Promise<void> {
    const token = ++this.#token;
    this.path = path;
    this.base = null;
    this.draft = "";
    this.conflict = false;
    this.error = null;
    const outcome = await this.#api.editBase(this.#runId, path);
    if (token !== this.#token) return;
    if (outcome.ok) {
      this.base = outcome.value;
      this.draft = outcome.value;
    } else {
      this.error = outcome.error;
    }
  }

  cancel(): void {
    this.#token += 1;
    this.path = null;
    this.base = null;
    this.draft = "";
    this.conflict = false;
    this.error = null;
  }

  /** Keeps the draft; true once written. */
  async save(force = false): Promise<boolean> {
    const path = this.path;
    if (path === null || this.base === null || this.saving) return false;
    this.saving = true;
    this.error = null;
    const outcome = await this.#api.keepEdited(this.#runId, path, this.draft, force);
    this.saving = false;
    if (!outcome.ok) {
      this.conflict = outcome.error.code === "conflict";
      this.error = outcome.error;
      return false;
    }
    this.cancel();
    await this.#onsaved(path);
    return true;
  }
}
