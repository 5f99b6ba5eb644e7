import { commands } from "../../bindings";
import type { RewindReportView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

/** Turn-grain review: rewind a finished run's files (and redo), and keep the user's edit of a file. */
export interface ReviewApi {
  /** Every file the run changed after event `to` goes back to what it held then; `conflict` (naming the files) when some changed since, unless `force`. */
  rewind(runId: string, to: number, force: boolean): Promise<Outcome<RewindReportView>>;
  /** Undoes the last rewind. */
  redo(runId: string, force: boolean): Promise<Outcome<RewindReportView>>;
  /** The run's version of `path`, the text the user edits. */
  editBase(runId: string, path: string): Promise<Outcome<string>>;
  /** Writes and keeps the user's edit; `conflict` when the file changed since, unless `force`. */
  keepEdited(runId: string, path: string, content: string, force: boolean): Promise<Outcome<null>>;
}

export const tauriReviewApi: ReviewApi = {
  rewind: (runId, to, force) => call(() => commands.rewindRun(runId, to, force)),
  redo: (runId, force) => call(() => commands.redoRewind(runId, force)),
  editBase: (runId, path) => call(() => commands.editBase(runId, path)),
  keepEdited: (runId, path, content, force) => call(() => commands.keepEdited(runId, path, content, force)),
};
