import { describe, expect, it } from "vitest";
import { helpersUnderParents } from "./helperList";
import { runSummary } from "./testSupport";

const by = (runId: string, depth: number, description: string) => ({ runId, callId: `call-${description}`, depth, description });

describe("helpers under their parents", () => {
  it("lists each helper right under its parent, oldest first, indented by nesting", () => {
    // Newest first, as the backend lists them.
    const runs = [
      runSummary({ runId: "other", goal: "other" }),
      runSummary({ runId: "grand", delegatedBy: by("child-a", 2, "deeper") }),
      runSummary({ runId: "child-b", delegatedBy: by("top", 1, "b") }),
      runSummary({ runId: "child-a", delegatedBy: by("top", 1, "a") }),
      runSummary({ runId: "top" }),
    ];
    expect(helpersUnderParents(runs).map((r) => [r.run.runId, r.level])).toEqual([
      ["other", 0],
      ["top", 0],
      ["child-a", 1],
      ["grand", 2],
      ["child-b", 1],
    ]);
  });

  it("puts a helper whose parent is not listed at the top", () => {
    const runs = [runSummary({ runId: "child", delegatedBy: by("gone", 1, "a") }), runSummary({ runId: "plain" })];
    expect(helpersUnderParents(runs).map((r) => [r.run.runId, r.level])).toEqual([
      ["child", 0],
      ["plain", 0],
    ]);
  });
});
