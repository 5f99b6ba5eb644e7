// Line diffs the conversation computes itself, from a tool call's own
// arguments: an edit's old and new text, a new file's content, or the
// unified diff an edit_file call gave. Shaped like the backend's diffs so
// the Changes diff view renders them.
import type { DiffHunkView, DiffLineView } from "../../bindings";

export interface LineDiff {
  hunks: DiffHunkView[];
  added: number;
  removed: number;
}

/** Above this many cells the diff is not searched: all old lines go, all new ones come. */
const MAX_CELLS = 4_000_000;

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function stats(hunks: DiffHunkView[]): LineDiff {
  let added = 0;
  let removed = 0;
  for (const h of hunks) for (const l of h.lines) if (l.kind === "added") added++;
  else if (l.kind === "removed") removed++;
  return { hunks, added, removed };
}

/** The longest common subsequence's pairs, as a table walk (inputs are small: an edit's snippets). */
function lcsLines(a: string[], b: string[]): DiffLineView[] {
  const n = a.length;
  const m = b.length;
  const out: DiffLineView[] = [];
  if (n * m > MAX_CELLS) {
    a.forEach((text, i) => out.push({ kind: "removed", oldLine: i + 1, newLine: null, text }));
    b.forEach((text, j) => out.push({ kind: "added", oldLine: null, newLine: j + 1, text }));
    return out;
  }
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: "context", oldLine: i + 1, newLine: j + 1, text: a[i] });
      i++;
      j++;
    } else if (j >= m || (i < n && table[i + 1][j] >= table[i][j + 1])) {
      out.push({ kind: "removed", oldLine: i + 1, newLine: null, text: a[i++] });
    } else {
      out.push({ kind: "added", oldLine: null, newLine: j + 1, text: b[j++] });
    }
  }
  return out;
}

/**
 * The change from `before` to `after` as one hunk. Line numbers count from
 * the snippet's first line: where it sits in the file is not known here,
 * so views hide them for snippets.
 */
export function diffLines(before: string, after: string): LineDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  const lines = lcsLines(a, b);
  if (lines.length === 0) return { hunks: [], added: 0, removed: 0 };
  return stats([{ oldStart: a.length === 0 ? 0 : 1, oldLen: a.length, newStart: b.length === 0 ? 0 : 1, newLen: b.length, lines }]);
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of a unified diff of one file (file headers ignored); null when it has none. */
export function parseUnifiedDiff(text: string): LineDiff | null {
  const hunks: DiffHunkView[] = [];
  let current: DiffHunkView | null = null;
  let oldLine = 0;
  let newLine = 0;
  for (const line of splitLines(text)) {
    const header = HUNK.exec(line);
    if (header) {
      oldLine = Number(header[1]);
      newLine = Number(header[3]);
      current = { oldStart: oldLine, oldLen: Number(header[2] ?? 1), newStart: newLine, newLen: Number(header[4] ?? 1), lines: [] };
      hunks.push(current);
      continue;
    }
    if (!current || line.startsWith("\\")) continue;
    const sign = line[0];
    const body = line.slice(1);
    if (sign === "-") current.lines.push({ kind: "removed", oldLine: oldLine++, newLine: null, text: body });
    else if (sign === "+") current.lines.push({ kind: "added", oldLine: null, newLine: newLine++, text: body });
    else if (sign === " " || line === "") current.lines.push({ kind: "context", oldLine: oldLine++, newLine: newLine++, text: body });
  }
  return hunks.length > 0 ? stats(hunks) : null;
}
