// An edit's card reviews its file like the Changes tab does, through the
// same store, so the card and the tab never disagree about a file.
import type { ArtifactItem } from "../../bindings";
import type { ArtifactsStore } from "../artifacts";
import type { ToolCardItem } from "./conversation";

/** What the run view lends its cards for reviewing files (null while the run may still write). */
export interface CardReviewHost {
  /** The Changes tab's store. */
  changes: ArtifactsStore;
  /** Opens Changes on `path`. */
  onreview: (path: string) => void;
  /** The kept hunks' keys of `path`, from the run's events (lib/artifacts/keptHunks.ts). */
  kept: (path: string) => ReadonlySet<string>;
}

/**
 * What a card offers for its file: Keep / Revert / Re-apply when this call
 * alone changed it (the file's review is then this call's); a way to
 * Changes when other calls changed it too (reverting the file would undo
 * them as well, and a per-call revert is another operation); nothing for
 * other tools, writes that did not complete, or files Changes does not list.
 */
export type CardReview = { kind: "actions"; item: ArtifactItem } | { kind: "changes"; path: string } | null;

export function cardReview(
  card: ToolCardItem,
  changedBy: (path: string, callId: string) => "alone" | "shared" | null,
  items: readonly ArtifactItem[],
): CardReview {
  if ((card.name !== "write_file" && card.name !== "edit_file") || card.result === null || card.failed) return null;
  // The path as the run recorded it, the one Changes lists (the arguments may spell it otherwise).
  const path = card.paths.length === 1 ? card.paths[0] : null;
  const item = path === null ? undefined : items.find((i) => i.path === path);
  if (path === null || !item) return null;
  const by = changedBy(path, card.callId);
  if (by === "alone") return { kind: "actions", item };
  return by === "shared" ? { kind: "changes", path } : null;
}
