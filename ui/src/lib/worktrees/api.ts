import { commands } from "../../bindings";
import type { ApplyReportView, WorktreeView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

/** What worktree runs need from the backend: the worktrees, and landing or dropping one. */
export interface WorktreesApi {
  /** Every worktree a run made, newest first (removed ones too: the list hides them). */
  list(): Promise<Outcome<WorktreeView[]>>;
  /** Applies the run's worktree to the main checkout: `paths`, or every changed file when empty. */
  apply(runId: string, paths: string[]): Promise<Outcome<ApplyReportView>>;
  /** Puts the main checkout back as before the run's applies; refused (naming the files) where the user changed one since, unless `force`. */
  undoApply(runId: string, force: boolean): Promise<Outcome<string[]>>;
  /** Removes the run's worktree and branch without applying it. */
  discard(runId: string): Promise<Outcome<null>>;
  /** Removes the worktrees that were applied. */
  prune(): Promise<Outcome<WorktreeView[]>>;
}

/** The real implementation: the generated tauri-specta commands. */
export const tauriWorktreesApi: WorktreesApi = {
  list: () => call(() => commands.listWorktrees()),
  apply: (runId, paths) => call(() => commands.applyWorktree(runId, paths)),
  undoApply: (runId, force) => call(() => commands.undoApply(runId, force)),
  discard: (runId) => call(() => commands.discardWorktree(runId)),
  prune: () => call(() => commands.pruneWorktrees()),
};
