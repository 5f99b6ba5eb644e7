import { describe, expect, it, vi } from "vitest";
import { MockArtifacts, diffHunks } from "./artifacts";

describe("mock artifacts", () => {
  it("diffs lines into hunks with context and line numbers", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const after = before.replace("line 5\n", "line five\n").replace("line 18\n", "");
    const hunks = diffHunks(before, after);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toMatchObject({ oldStart: 2, oldLen: 7, newStart: 2, newLen: 7 });
    expect(hunks[0].lines.filter((l) => l.kind !== "context")).toEqual([
      { kind: "removed", oldLine: 5, newLine: null, text: "line 5" },
      { kind: "added", oldLine: null, newLine: 5, text: "line five" },
    ]);
    expect(hunks[1].lines.filter((l) => l.kind === "removed").map((l) => l.oldLine)).toEqual([18]);
    expect(diffHunks("", "a\nb\n")[0]).toMatchObject({ oldStart: 0, oldLen: 0, newStart: 1, newLen: 2 });
  });

  it("refuses to revert over someone else's change unless forced", () => {
    const commit = vi.fn();
    const artifacts = new MockArtifacts(commit);
    artifacts.seed("r1", [{ path: "a.txt", before: "x\n", after: "y\n", current: "z\n" }]);
    expect(artifacts.list("r1")[0].state).toBe("conflict");
    expect(() => artifacts.revert("r1", "a.txt", false)).toThrow();
    artifacts.revert("r1", "a.txt", true);
    expect(artifacts.list("r1")[0].state).toBe("reverted");
    expect(commit).toHaveBeenLastCalledWith("r1", expect.objectContaining({ type: "artifact_reverted", forced: true }));
    artifacts.reapply("r1", "a.txt", false);
    expect(artifacts.list("r1")[0].state).toBe("pending");
  });
});
