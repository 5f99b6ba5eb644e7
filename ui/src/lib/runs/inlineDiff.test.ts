import { describe, expect, it } from "vitest";
import type { DiffHunkView, DiffLineView } from "../../bindings";
import { inlineDiff, moreText } from "./inlineDiff";

const line = (kind: DiffLineView["kind"], text: string): DiffLineView => ({ kind, oldLine: null, newLine: null, text });
function hunk(changedLines: number, at = 1): DiffHunkView {
  const lines = [line("context", "before")];
  for (let i = 0; i < changedLines; i++) lines.push(line(i % 2 === 0 ? "removed" : "added", `line ${i}`));
  lines.push(line("context", "after"));
  return { oldStart: at, oldLen: 0, newStart: at, newLen: 0, lines };
}

describe("inlineDiff", () => {
  it("shows a small diff whole, each hunk with its number in the file's diff", () => {
    const shown = inlineDiff([hunk(2), hunk(10, 40)]);
    expect(shown.hunks.map((h) => h.number)).toEqual([1, 2]);
    expect(shown.hunks[1].hunk.lines).toHaveLength(12);
    expect(shown.moreLines).toBe(0);
  });

  it("shows a longer one's first hunk and how much more there is", () => {
    const shown = inlineDiff([hunk(4), hunk(6, 20), hunk(3, 50)]);
    expect(shown.hunks.map((h) => h.number)).toEqual([1]);
    expect(shown.hunks[0].hunk.lines).toHaveLength(6);
    expect(shown).toMatchObject({ moreLines: 9, moreHunks: 2 });
    expect(moreText(shown)).toBe("9 more changed lines in 2 more hunks");
  });

  it("cuts a long first hunk after twelve changed lines", () => {
    const shown = inlineDiff([hunk(30)]);
    expect(shown.hunks[0].hunk.lines.filter((l) => l.kind !== "context")).toHaveLength(12);
    expect(shown).toMatchObject({ moreLines: 18, moreHunks: 0 });
    expect(moreText(shown)).toBe("18 more changed lines");
  });
});
