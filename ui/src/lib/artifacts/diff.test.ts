import { describe, expect, it } from "vitest";
import type { DiffHunkView, DiffLineView } from "../../bindings";
import { capHunks, hunkHeader, lineCount, splitRows } from "./diff";

const ctx = (o: number, n: number, text = "same"): DiffLineView => ({ kind: "context", oldLine: o, newLine: n, text });
const del = (o: number, text = "old"): DiffLineView => ({ kind: "removed", oldLine: o, newLine: null, text });
const add = (n: number, text = "new"): DiffLineView => ({ kind: "added", oldLine: null, newLine: n, text });
const hunk = (lines: DiffLineView[]): DiffHunkView => ({ oldStart: 3, oldLen: 4, newStart: 3, newLen: 5, lines });

describe("diff helpers", () => {
  it("formats hunk headers", () => {
    expect(hunkHeader(hunk([]))).toBe("@@ -3,4 +3,5 @@");
  });

  it("pairs removed and added runs side by side", () => {
    const rows = splitRows([ctx(1, 1), del(2), del(3), add(2), ctx(4, 3), add(4)]);
    expect(rows.map((r) => [r.left?.kind ?? null, r.right?.kind ?? null])).toEqual([
      ["context", "context"],
      ["removed", "added"],
      ["removed", null],
      ["context", "context"],
      [null, "added"],
    ]);
  });

  it("caps the rendered lines across hunks", () => {
    const hunks = [hunk([ctx(1, 1), del(2), add(2)]), hunk([ctx(5, 5), ctx(6, 6)])];
    expect(lineCount(hunks)).toBe(5);
    expect(capHunks(hunks, 10)).toEqual({ hunks, hidden: 0 });
    const capped = capHunks(hunks, 4);
    expect(capped.hidden).toBe(1);
    expect(capped.hunks.map((h) => h.lines.length)).toEqual([3, 1]);
  });
});
