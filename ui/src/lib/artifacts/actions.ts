import type { ArtifactItem } from "../../bindings";
import type { PendingAction } from "./store.svelte";

/** The review buttons a changed file offers, in the Changes list and on an edit's card alike. */
export interface FileActions {
  /** Bring the run's version back (after a revert, or a refused re-apply to force). */
  reapply: boolean;
  /** "Keep" (shown as a disabled "Kept" once kept). */
  keep: boolean;
  /** Put the file back as it was before the run (for a partly reverted one: the rest). */
  revert: boolean;
}

/**
 * What a file in state `state` offers. A reverted file, or one whose
 * re-apply was refused, only offers Re-apply: keeping or reverting again
 * would act on content the run did not write.
 */
export function fileActions(state: ArtifactItem["state"], conflict: PendingAction | undefined): FileActions {
  const undone = state === "reverted" || conflict === "reapply";
  if (state === "partial") return { reapply: true, keep: false, revert: true };
  return { reapply: undone, keep: !undone, revert: !undone };
}

/** The state's badge text; none for a file nobody decided on yet. */
export const STATE_LABEL: Record<ArtifactItem["state"], string | null> = {
  pending: null,
  kept: "kept",
  reverted: "reverted",
  partial: "partly reverted",
  conflict: "conflict",
};
