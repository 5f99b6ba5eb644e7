// Which hunks of a file the user kept, read from the run's events: each
// `artifact_hunks_kept` carries the kept hunks' text, matched to the diff
// shown now by their changed lines (so a hunk keeps its mark when another
// is reverted and the numbers move). A revert, re-apply, edit or rewind of
// the whole file starts its review over.
import type { DiffHunkView, DiffLineView, EventPayload } from "../../bindings";

const FRESH_START = new Set(["artifact_reverted", "artifact_reapplied", "artifact_edited", "artifact_rewound"]);

/** A hunk's changed lines, as its identity. */
export function hunkKey(lines: readonly DiffLineView[]): string {
  return lines
    .filter((l) => l.kind !== "context")
    .map((l) => `${l.kind === "added" ? "+" : "-"}${l.text}`)
    .join("\n");
}

/** The keys of the hunks in a unified diff's text (as an event carries it). */
export function keysOfDiff(diff: string): string[] {
  const keys: string[] = [];
  let lines: string[] | null = null;
  for (const line of diff.split("\n")) {
    if (line.startsWith("@@")) {
      if (lines) keys.push(lines.join("\n"));
      lines = [];
    } else if (lines && (line.startsWith("+") || line.startsWith("-"))) {
      lines.push(line);
    }
  }
  if (lines) keys.push(lines.join("\n"));
  return keys.filter((k) => k !== "");
}

/** The kept hunks' keys of `path`, from a run's events in order. */
export function keptKeys(payloads: Iterable<EventPayload>, path: string): Set<string> {
  let kept = new Set<string>();
  for (const p of payloads) {
    if (!("path" in p) || p.path !== path) continue;
    if (p.type === "artifact_hunks_kept") for (const key of keysOfDiff(p.diff ?? "")) kept.add(key);
    else if (FRESH_START.has(p.type)) kept = new Set();
  }
  return kept;
}

/** The numbers (from 1) of the hunks shown whose changes were kept. */
export function keptNumbers(hunks: readonly DiffHunkView[], keys: ReadonlySet<string>): number[] {
  if (keys.size === 0) return [];
  return hunks.flatMap((h, i) => (keys.has(hunkKey(h.lines)) ? [i + 1] : []));
}
