import { describe, expect, it } from "vitest";
import type { WorktreeStateView } from "../../bindings";
import { branchFor, worktreeInput, worktreeNameError } from "./input";
import { applyReportText, removedText } from "./report";
import { canApply, canDiscard, changesWorktrees, worktreeBusy, worktreeStateInfo } from "./state";

const ALL: WorktreeStateView[] = ["running", "waiting_for_approval", "ready_to_apply", "applied", "discarded", "removed", "missing"];

describe("worktree states", () => {
  it("labels each state in words and never colours a missing one as fine", () => {
    expect(ALL.map((s) => worktreeStateInfo(s).label)).toEqual(["running", "waiting for approval", "ready to apply", "applied", "discarded", "removed", "missing"]);
    expect(worktreeStateInfo("missing").tone).toBe("danger");
    expect(worktreeStateInfo("waiting_for_approval").tone).toBe("attention");
    expect(worktreeStateInfo("from_the_future")).toEqual({ label: "from the future", tone: "neutral" });
  });

  it("offers apply and discard only once its runs are done and while it exists", () => {
    expect(ALL.filter(worktreeBusy)).toEqual(["running", "waiting_for_approval"]);
    expect(ALL.filter(canApply)).toEqual(["ready_to_apply", "applied"]);
    expect(ALL.filter(canDiscard)).toEqual(["ready_to_apply", "applied"]);
  });

  it("lists the worktrees again only for events that can change them", () => {
    expect(changesWorktrees("run_succeeded")).toBe(true);
    expect(changesWorktrees("approval_requested")).toBe(true);
    expect(changesWorktrees("worktree_applied")).toBe(true);
    expect(changesWorktrees("model_call_started")).toBe(false);
    expect(changesWorktrees("tool_call_completed")).toBe(false);
  });
});

describe("apply report wording", () => {
  const reason = "the main checkout changed the same lines since the worktree's start";

  it("counts merged files among the applied ones and names merges and refusals", () => {
    expect(applyReportText({ applied: ["calc.py"], merged: ["README.md"], refused: [{ path: "notes.md", reason }] })).toBe(
      `Applied 2 files to the main checkout; merged README.md; refused notes.md (${reason})`,
    );
    expect(applyReportText({ applied: ["calc.py"], merged: [], refused: [] })).toBe("Applied 1 file to the main checkout");
    expect(applyReportText({ applied: [], merged: [], refused: [{ path: "a", reason: "x" }, { path: "b", reason: "y" }] })).toBe(
      "Applied nothing to the main checkout; refused a (x), b (y)",
    );
  });

  it("says why a worktree went", () => {
    expect(removedText(true)).toBe("Worktree discarded");
    expect(removedText(false)).toBe("Worktree removed after it was applied");
  });
});

describe("the new-run form's worktree", () => {
  it("sends nothing when off, and leaves blank fields to the backend", () => {
    expect(worktreeInput({ enabled: false, name: "x", base: "main", carryChanges: true })).toBeNull();
    expect(worktreeInput({ enabled: true, name: "  ", base: "", carryChanges: false })).toEqual({ name: null, base: null, carryChanges: false });
    expect(worktreeInput({ enabled: true, name: " fix-add ", base: " main ", carryChanges: true })).toEqual({ name: "fix-add", base: "main", carryChanges: true });
  });

  it("checks a name like the backend: letters, digits, . _ -, not leading . or -", () => {
    for (const good of ["", "fix-add", "v1.2_b", "a".repeat(64)]) expect(worktreeNameError(good), good).toBeNull();
    for (const bad of ["-x", ".x", "a b", "a/b", "a..b", "x.lock", "a".repeat(65), "ü"]) expect(worktreeNameError(bad), bad).not.toBeNull();
  });

  it("names the branch in the hint", () => {
    expect(branchFor("")).toBe("bearagent/NAME");
    expect(branchFor(" fix-add ")).toBe("bearagent/fix-add");
  });
});
