import type { RunSummaryView } from "../../bindings";

/** A listed run and how far it is indented: 0, or one more than the listed run that started it. */
export interface ListedRun {
  run: RunSummaryView;
  level: number;
}

/**
 * The runs (newest first) with each helper right under the run whose
 * `task` call started it, oldest helper first, indented one level more
 * than its parent; a helper whose parent is not listed stands at the top
 * (as `bearagent runs` lists them).
 */
export function helpersUnderParents(runs: readonly RunSummaryView[]): ListedRun[] {
  const listed = new Set(runs.map((r) => r.runId));
  const childrenOf = new Map<string, RunSummaryView[]>();
  for (const run of runs) {
    const parent = run.delegatedBy?.runId;
    if (parent === undefined || !listed.has(parent)) continue;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), run]);
  }
  const out: ListedRun[] = [];
  const placed = new Set<string>();
  const place = (run: RunSummaryView, level: number) => {
    if (placed.has(run.runId)) return;
    placed.add(run.runId);
    out.push({ run, level });
    for (const child of [...(childrenOf.get(run.runId) ?? [])].reverse()) place(child, level + 1);
  };
  for (const run of runs) {
    const parent = run.delegatedBy?.runId;
    if (parent === undefined || !listed.has(parent)) place(run, 0);
  }
  return out;
}
