import type { ApiError, RewindReportView } from "../../bindings";
import type { ReviewApi } from "../artifacts/review";
import { conflictPaths, type RewindChoice } from "./rewind";

/** A rewind (or redo) the backend refused because files changed since: the user may force it. */
export interface RewindConflict {
  /** The model turn's seq (null: a redo). */
  to: number | null;
  choice: RewindChoice;
  message: string;
  paths: string[];
}

export interface RewindHooks {
  /** Files changed: the Changes panel loads again. */
  onchanged(): void | Promise<void>;
  /** Opens the fork prompt at `seq` ("conversation only" and "both"). */
  openFork(seq: number): void;
}

/**
 * "Rewind to here" on a finished run's model turns: which turn's menu is
 * open, the rewind or redo in flight, a refusal naming the files changed
 * since (offered again with force), and the last report. What was rewound
 * is read from the run's events (RewindMarks), not kept here.
 */
export class RewindStore {
  /** The model turn whose menu is open. */
  openAt = $state<number | null>(null);
  busy = $state(false);
  conflict = $state.raw<RewindConflict | null>(null);
  error = $state.raw<ApiError | null>(null);
  report = $state.raw<RewindReportView | null>(null);
  readonly #api: Pick<ReviewApi, "rewind" | "redo">;
  readonly #runId: string;
  readonly #hooks: RewindHooks;

  constructor(api: Pick<ReviewApi, "rewind" | "redo">, runId: string, hooks: RewindHooks) {
    this.#api = api;
    this.#runId = runId;
    this.#hooks = hooks;
  }

  open(seq: number): void {
    this.openAt = seq;
    this.conflict = null;
    this.error = null;
  }

  close(): void {
    this.openAt = null;
    this.conflict = null;
    this.error = null;
  }

  /** Rewinds to `seq` as chosen; true when done (the fork prompt opens for "conversation" and "both"). */
  async choose(seq: number, choice: RewindChoice, force = false): Promise<boolean> {
    if (this.busy) return false;
    if (choice === "conversation") {
      this.close();
      this.#hooks.openFork(seq);
      return true;
    }
    this.busy = true;
    this.error = null;
    const outcome = await this.#api.rewind(this.#runId, seq, force);
    this.busy = false;
    if (!outcome.ok) {
      this.#refused(seq, choice, outcome.error);
      return false;
    }
    this.report = outcome.value;
    this.close();
    await this.#hooks.onchanged();
    if (choice === "both") this.#hooks.openFork(seq);
    return true;
  }

  /** Undoes the last rewind. */
  async redo(force = false): Promise<boolean> {
    if (this.busy) return false;
    this.busy = true;
    this.error = null;
    const outcome = await this.#api.redo(this.#runId, force);
    this.busy = false;
    if (!outcome.ok) {
      this.#refused(null, "files", outcome.error);
      return false;
    }
    this.report = outcome.value;
    this.conflict = null;
    await this.#hooks.onchanged();
    return true;
  }

  dismiss(): void {
    this.conflict = null;
    this.error = null;
  }

  #refused(to: number | null, choice: RewindChoice, error: ApiError): void {
    // Files changed since BearAgent wrote them can be replaced on purpose; other refusals cannot.
    if (error.code === "conflict" && /changed since/.test(error.message)) {
      this.conflict = { to, choice, message: error.message, paths: conflictPaths(error.message) };
    } else {
      this.conflict = null;
      this.error = error;
    }
  }
}
