import type { DiffHunkView, DiffLineView } from "../../bindings";

/** Lines rendered before "Show all" is needed. */
export const DIFF_LINE_CAP = 5_000;

export function hunkHeader(h: DiffHunkView): string {
  return `@@ -${h.oldStart},${h.oldLen} +${h.newStart},${h.newLen} @@`;
}

export function lineCount(hunks: DiffHunkView[]): number {
  return hunks.reduce((sum, h) => sum + h.lines.length, 0);
}

/** The first `limit` lines of the hunks (a hunk may be cut), and how many were left out. */
export function capHunks(hunks: DiffHunkView[], limit: number): { hunks: DiffHunkView[]; hidden: number } {
  const total = lineCount(hunks);
  if (total <= limit) return { hunks, hidden: 0 };
  const shown: DiffHunkView[] = [];
  let left = limit;
  for (const h of hunks) {
    if (left <= 0) break;
    shown.push(h.lines.length <= left ? h : { ...h, lines: h.lines.slice(0, left) });
    left -= h.lines.length;
  }
  return { hunks: shown, hidden: total - limit };
}

/** One row of the side-by-side view: the old line on the left, the new one on the right. */
export interface SplitRow {
  left: DiffLineView | null;
  right: DiffLineView | null;
}

/**
 * Pairs a hunk's lines for side by side: context on both sides; a run of
 * removed lines and the added lines after it side by side, row by row.
 */
export function splitRows(lines: DiffLineView[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.kind === "context") {
      rows.push({ left: line, right: line });
      i++;
      continue;
    }
    const removed: DiffLineView[] = [];
    const added: DiffLineView[] = [];
    while (i < lines.length && lines[i].kind === "removed") removed.push(lines[i++]);
    while (i < lines.length && lines[i].kind === "added") added.push(lines[i++]);
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      rows.push({ left: removed[k] ?? null, right: added[k] ?? null });
    }
  }
  return rows;
}
