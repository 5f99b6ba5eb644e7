import type { ApplyReportView, WorktreeRefusal, WorktreeStep } from "../../bindings";

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

/**
 * One line for a step of writing the main checkout: an apply's or undo's
 * intent (before the disk), an undo's end, an interrupted one settled at
 * the next start, a removal's intent.
 */
export function worktreeStepText(step: WorktreeStep): string {
  switch (step.kind) {
    case "apply_started":
      return `${step.undo ? "Undoing the apply of" : "Applying"} ${files(step.files.length)}${step.forced ? " (forced)" : ""}`;
    case "apply_undone":
      return `Apply undone: ${files(step.restored.length)} back as before`;
    case "apply_settled": {
      const line = `Interrupted ${step.undo ? "undo" : "apply"} settled: ${step.done.length} done, ${step.not_done.length} not done`;
      return step.neither.length > 0 ? `${line}; changed since: ${step.neither.join(", ")}` : line;
    }
    case "removal_started":
      return step.discarded ? "Discarding the worktree" : "Removing the applied worktree";
  }
}

/** A settled step with files changed since asks for the user's eye. */
export function worktreeStepTone(step: WorktreeStep): "attention" | "muted" {
  return step.kind === "apply_settled" && step.neither.length > 0 ? "attention" : "muted";
}
