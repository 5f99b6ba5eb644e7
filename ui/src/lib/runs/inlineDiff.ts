// An edit card's diff shown inline, without a click: all of it when it is
// small, else its first hunk (itself cut when long) and how much more
// there is. The whole diff stays one click away (the card opens on it, or
// Changes).
import type { DiffHunkView, DiffLineView, FileDiffView } from "../../bindings";
import type { LineDiff } from "./lineDiff";

/** Changed lines (added + removed) a card shows inline in full. */
export const INLINE_CHANGED_LINES = 12;

export interface InlineHunk {
  /** Its number in the file's diff (from 1): what a per-hunk Keep / Revert names. */
  number: number;
  hunk: DiffHunkView;
}

export interface InlineDiff {
  hunks: InlineHunk[];
  /** Changed lines not shown. */
  moreLines: number;
  /** Hunks not shown (a cut first hunk is shown). */
  moreHunks: number;
}

const changed = (lines: readonly DiffLineView[]) => lines.filter((l) => l.kind !== "context").length;

/** The first `limit` changed lines of `hunk` (with the context between them). */
function cut(hunk: DiffHunkView, limit: number): DiffHunkView {
  const lines: DiffLineView[] = [];
  let seen = 0;
  for (const line of hunk.lines) {
    if (line.kind !== "context") {
      if (seen === limit) break;
      seen += 1;
    }
    lines.push(line);
  }
  return { ...hunk, lines };
}

/** What a card shows of `hunks` inline. */
export function inlineDiff(hunks: readonly DiffHunkView[], limit = INLINE_CHANGED_LINES): InlineDiff {
  const total = hunks.reduce((sum, h) => sum + changed(h.lines), 0);
  if (total <= limit) return { hunks: hunks.map((hunk, i) => ({ number: i + 1, hunk })), moreLines: 0, moreHunks: 0 };
  const first = cut(hunks[0], limit);
  return { hunks: [{ number: 1, hunk: first }], moreLines: total - changed(first.lines), moreHunks: hunks.length - 1 };
}

/** The hunks of a backend diff, or of a diff computed from a call's arguments; none for a binary or stats-only one. */
export function hunksOf(diff: FileDiffView | LineDiff | null): DiffHunkView[] {
  if (diff === null) return [];
  if ("kind" in diff) return diff.kind === "text" && !diff.stats_only ? diff.hunks : [];
  return diff.hunks;
}

/** "3 more changed lines in 2 more hunks". */
export function moreText(diff: InlineDiff): string {
  const lines = `${diff.moreLines} more changed ${diff.moreLines === 1 ? "line" : "lines"}`;
  return diff.moreHunks > 0 ? `${lines} in ${diff.moreHunks} more ${diff.moreHunks === 1 ? "hunk" : "hunks"}` : lines;
}
