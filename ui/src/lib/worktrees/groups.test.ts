import { describe, expect, it } from "vitest";
import { groupRuns, worktreeOfRun } from "./groups";
import { run, worktree } from "./testSupport";

const kinds = (entries: ReturnType<typeof groupRuns>) =>
  entries.map((e) => (e.kind === "run" ? e.run.runId : `${e.worktree.branch}[${e.runs.map((r) => r.runId).join(",")}]`));

describe("groupRuns", () => {
  it("lists runs without a worktree as they are", () => {
    expect(kinds(groupRuns([run("r3"), run("r2"), run("r1")], []))).toEqual(["r3", "r2", "r1"]);
  });

  it("gathers a worktree's runs under it, where its newest run is, oldest first beneath", () => {
    // Newest first, as the list comes: r4 (plain), r3 (follow-up in w1), r2 (w2), r1 (w1).
    const runs = [run("r4"), run("r3", { parentRunId: "r1" }), run("r2"), run("r1")];
    const trees = [worktree("w2", ["r2"]), worktree("w1", ["r1", "r3"])];
    expect(kinds(groupRuns(runs, trees))).toEqual(["r4", "bearagent/w1[r1,r3]", "bearagent/w2[r2]"]);
  });

  it("shows only the listed runs of a worktree (a filter hides the others) and no header without any", () => {
    const trees = [worktree("w1", ["r1", "r3"]), worktree("w9", ["r9"])];
    expect(kinds(groupRuns([run("r3")], trees))).toEqual(["bearagent/w1[r3]"]);
  });

  it("lists the runs of a removed worktree as plain runs; discarded and missing ones keep their header", () => {
    const trees = [worktree("gone", ["r1"], { state: "removed" }), worktree("thrown", ["r2"], { state: "discarded" }), worktree("lost", ["r3"], { state: "missing" })];
    expect(kinds(groupRuns([run("r3"), run("r2"), run("r1")], trees))).toEqual(["bearagent/lost[r3]", "bearagent/thrown[r2]", "r1"]);
  });

  it("finds the worktree a run worked in", () => {
    const trees = [worktree("w1", ["r1", "r3"])];
    expect(worktreeOfRun(trees, "r3")?.branch).toBe("bearagent/w1");
    expect(worktreeOfRun(trees, "r2")).toBeNull();
  });
});
