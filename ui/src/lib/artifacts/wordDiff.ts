import type { DiffLineView } from "../../bindings";

/** A changed segment of a line, in UTF-16 string offsets: text.slice(start, end). */
export interface ChangeRange {
  start: number;
  end: number;
}

/** The changed middle of a removed line and the added line paired with it. */
export interface WordChange {
  /** Range in the removed (old) line; null when nothing was removed there (pure insertion). */
  old: ChangeRange | null;
  /** Range in the added (new) line; null when nothing was added there (pure deletion). */
  new: ChangeRange | null;
}

const WORD = /[\p{L}\p{N}_]/u;
const isWord = (ch: string | undefined) => ch !== undefined && WORD.test(ch);

/**
 * The changed middle of two strings: everything between their common prefix
 * and common suffix, widened to whole words where the cut would split one.
 * Works on code points, so surrogate pairs (emoji, etc.) are never split.
 * Returns null when the lines are identical, or when they share nothing at
 * either end (marking the whole line adds nothing to the line's own colour).
 */
export function wordChange(before: string, after: string): WordChange | null {
  if (before === after) return null;
  const a = Array.from(before);
  const b = Array.from(after);
  const max = Math.min(a.length, b.length);
  let pre = 0;
  while (pre < max && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < max - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  // Back off to word boundaries: don't cut inside a word on either side.
  while (pre > 0 && isWord(a[pre - 1]) && (isWord(a[pre]) || isWord(b[pre]))) pre--;
  while (suf > 0 && isWord(a[a.length - suf]) && (isWord(a[a.length - suf - 1]) || isWord(b[b.length - suf - 1]))) suf--;
  if (pre === 0 && suf === 0) return null;
  const range = (chars: string[]): ChangeRange | null => {
    const startCp = pre;
    const endCp = chars.length - suf;
    if (endCp <= startCp) return null;
    const start = chars.slice(0, startCp).join("").length;
    return { start, end: start + chars.slice(startCp, endCp).join("").length };
  };
  const change = { old: range(a), new: range(b) };
  return change.old || change.new ? change : null;
}

/**
 * Word-level changes for a hunk's lines: each run of removed lines is paired
 * 1:1 by position with the run of added lines right after it. The map is keyed
 * by the line objects, so it serves both the unified and side-by-side layouts.
 */
export function wordChanges(lines: DiffLineView[]): Map<DiffLineView, ChangeRange> {
  const out = new Map<DiffLineView, ChangeRange>();
  let i = 0;
  while (i < lines.length) {
    if (lines[i].kind !== "removed") {
      i++;
      continue;
    }
    const removed: DiffLineView[] = [];
    const added: DiffLineView[] = [];
    while (i < lines.length && lines[i].kind === "removed") removed.push(lines[i++]);
    while (i < lines.length && lines[i].kind === "added") added.push(lines[i++]);
    for (let k = 0; k < Math.min(removed.length, added.length); k++) {
      const change = wordChange(removed[k].text, added[k].text);
      if (change?.old) out.set(removed[k], change.old);
      if (change?.new) out.set(added[k], change.new);
    }
  }
  return out;
}
