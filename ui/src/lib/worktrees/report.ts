import type { ApplyReportView, WorktreeRefusal } from "../../bindings";

const files = (n: number) => (n === 1 ? "1 file" : `${n} files`);

/** "notes.md (the main checkout changed the same lines since the worktree's start)" */
export function refusalText(r: WorktreeRefusal): string {
  return `${r.path} (${r.reason})`;
}

/**
 * One line for what applying a worktree did: "Applied 2 files to the main
 * checkout; merged README.md; refused notes.md (reason)". Merged files
 * count as applied: they landed too, merged with the checkout's own edits.
 */
export function applyReportText(report: Pick<ApplyReportView, "applied" | "merged" | "refused">): string {
  const landed = report.applied.length + report.merged.length;
  const parts = [landed === 0 ? "Applied nothing to the main checkout" : `Applied ${files(landed)} to the main checkout`];
  if (report.merged.length > 0) parts.push(`merged ${report.merged.join(", ")}`);
  if (report.refused.length > 0) parts.push(`refused ${report.refused.map(refusalText).join(", ")}`);
  return parts.join("; ");
}

/** A worktree's removal: thrown away by the user, or pruned once applied. */
export function removedText(discarded: boolean): string {
  return discarded ? "Worktree discarded" : "Worktree removed after it was applied";
}
