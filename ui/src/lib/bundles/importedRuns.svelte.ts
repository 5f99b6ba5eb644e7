import type { ApiError, RunSummaryView } from "../../bindings";
import type { RunsApi } from "../runs";

/** How many imported runs the home screen lists. */
export const IMPORTED_LIST_LIMIT = 50;

/**
 * The runs imported from run files, newest first, so a later session finds
 * them: the workspace list never shows them, since the workspace they name
 * is the other machine's. The backend marks them (`importedFrom`, in their
 * summary and detail, whichever session imported them) and lists them by
 * `searchRuns({ importedOnly })`, whatever workspace is open, or none.
 * Only the newest request's answer is shown; a failed refresh keeps the
 * list it had and its error.
 */
export class ImportedRuns {
  runs = $state.raw<RunSummaryView[]>([]);
  error = $state.raw<ApiError | null>(null);

  readonly #api: Pick<RunsApi, "search">;
  #request = 0;

  constructor(api: Pick<RunsApi, "search">) {
    this.#api = api;
  }

  async refresh(): Promise<void> {
    const request = ++this.#request;
    const outcome = await this.#api.search({ workspaceId: null, status: null, text: null, limit: IMPORTED_LIST_LIMIT, importedOnly: true });
    if (request !== this.#request) return;
    if (outcome.ok) {
      this.runs = outcome.value;
      this.error = null;
    } else {
      this.error = outcome.error;
    }
  }

  dismissError(): void {
    this.error = null;
  }
}
