import { commands } from "../../bindings";
import type { ApplyReportView, WorktreeView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

/** What worktree runs need from the backend: the worktrees, and landing or dropping one. */
export interface WorktreesApi {
  /** Every worktree a run made, newest first (removed ones too: the list hides them). */
  list(): Promise<Outcome<WorktreeView[]>>;
  /** Applies the run's worktree to the main checkout: `paths`, or every changed file when empty. */
  apply(runId: string, paths: string[]): Promise<Outcome<ApplyReportView>>;
  /** Removes the run's worktree and branch without applying it. */
  discard(runId: string): Promise<Outcome<null>>;
  /** Removes the worktrees that were applied. */
  prune(): Promise<Outcome<WorktreeView[]>>;
}

/** The real implementation: the generated tauri-specta commands. */
export const tauriWorktreesApi: WorktreesApi = {
  list: () => call(() => commands.listWorktrees()),
  apply: (runId, paths) => call(() => commands.applyWorktree(runId, paths)),
  discard: (runId) => call(() => commands.discardWorktree(runId)),
  prune: () => call(() => commands.pruneWorktrees()),
};
