import type { RunSummaryView, WorktreeView } from "../../bindings";
import { listedWorktree } from "./state";

/** One entry of the run list: a plain run, or a worktree with its runs beneath. */
export type RunListEntry = { kind: "run"; run: RunSummaryView } | { kind: "worktree"; worktree: WorktreeView; runs: RunSummaryView[] };

/**
 * The listed runs (newest first) with each worktree's runs gathered under
 * it, where its newest listed run would be. Under the header the runs go
 * oldest first, as the worktree's story went (a follow-up after its run).
 * Runs of removed worktrees, and of none, list as they are.
 */
export function groupRuns(runs: readonly RunSummaryView[], worktrees: readonly WorktreeView[]): RunListEntry[] {
  const treeOf = new Map<string, WorktreeView>();
  for (const tree of worktrees) {
    if (!listedWorktree(tree.state)) continue;
    for (const runId of tree.runs) treeOf.set(runId, tree);
  }
  const listed = new Map(runs.map((r) => [r.runId, r]));
  const placed = new Set<WorktreeView>();
  const entries: RunListEntry[] = [];
  for (const run of runs) {
    const tree = treeOf.get(run.runId);
    if (!tree) {
      entries.push({ kind: "run", run });
      continue;
    }
    if (placed.has(tree)) continue;
    placed.add(tree);
    const own = tree.runs.flatMap((id) => listed.get(id) ?? []);
    entries.push({ kind: "worktree", worktree: tree, runs: own });
  }
  return entries;
}

/** The worktree a run worked in, among those listed. */
export function worktreeOfRun(worktrees: readonly WorktreeView[], runId: string): WorktreeView | null {
  return worktrees.find((w) => w.runs.includes(runId)) ?? null;
}
