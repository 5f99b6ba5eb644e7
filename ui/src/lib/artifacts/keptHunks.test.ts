import { describe, expect, it } from "vitest";
import type { DiffHunkView, EventPayload } from "../../bindings";
import { keptKeys, keptNumbers, keysOfDiff } from "./keptHunks";

const hunk = (removed: string, added: string): DiffHunkView => ({
  oldStart: 1,
  oldLen: 2,
  newStart: 1,
  newLen: 2,
  lines: [
    { kind: "removed", oldLine: 1, newLine: null, text: removed },
    { kind: "added", oldLine: null, newLine: 1, text: added },
    { kind: "context", oldLine: 2, newLine: 2, text: "same" },
  ],
});
const TOP = hunk("top", "TOP");
const BOTTOM = hunk("bottom", "BOTTOM");
const kept = (diff: string): EventPayload => ({ type: "artifact_hunks_kept", path: "guide.md", hunks: [1], diff });

describe("kept hunks", () => {
  it("reads each hunk of an event's diff by its changed lines", () => {
    expect(keysOfDiff("@@ -1,2 +1,2 @@\n-top\n+TOP\n same\n@@ -9,1 +9,1 @@\n-bottom\n+BOTTOM\n")).toEqual(["-top\n+TOP", "-bottom\n+BOTTOM"]);
  });

  it("marks a kept hunk wherever it is now; a revert of the whole file starts over", () => {
    const events: EventPayload[] = [kept("@@ -1,2 +1,2 @@\n-bottom\n+BOTTOM\n same\n")];
    expect(keptNumbers([TOP, BOTTOM], keptKeys(events, "guide.md"))).toEqual([2]);
    // Hunk 1 reverted: the kept one is hunk 1 now.
    expect(keptNumbers([BOTTOM], keptKeys(events, "guide.md"))).toEqual([1]);
    expect(keptNumbers([TOP, BOTTOM], keptKeys(events, "other.md"))).toEqual([]);
    events.push({ type: "artifact_reverted", path: "guide.md", restored_hash: null, replaced_hash: null, forced: false });
    expect(keptNumbers([TOP, BOTTOM], keptKeys(events, "guide.md"))).toEqual([]);
  });
});
