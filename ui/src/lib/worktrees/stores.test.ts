import { describe, expect, it, vi } from "vitest";
import { WorktreeActions } from "./actions.svelte";
import { WorktreeListStore } from "./list.svelte";
import { fakeWorktreesApi, ok, worktree } from "./testSupport";

describe("WorktreeListStore", () => {
  it("lists the worktrees, finds a run's, and keeps the list when a refresh fails", async () => {
    const api = fakeWorktreesApi();
    api.list.mockResolvedValueOnce(ok([worktree("w1", ["r1", "r2"])]));
    const store = new WorktreeListStore(api);
    await store.refresh();
    expect(store.loaded).toBe(true);
    expect(store.forRun("r2")?.branch).toBe("bearagent/w1");
    api.list.mockResolvedValueOnce({ ok: false, error: { code: "storage", message: "locked" } });
    await store.refresh();
    expect(store.items).toHaveLength(1);
    expect(store.error?.code).toBe("storage");
  });

  it("lists again once for a burst of changes", async () => {
    vi.useFakeTimers();
    try {
      const api = fakeWorktreesApi();
      const store = new WorktreeListStore(api);
      store.notifyChange(100);
      store.notifyChange(100);
      await vi.advanceTimersByTimeAsync(150);
      expect(api.list).toHaveBeenCalledTimes(1);
      store.notifyChange(100);
      store.stop();
      await vi.advanceTimersByTimeAsync(150);
      expect(api.list).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("WorktreeActions", () => {
  it("applies every changed file, keeps the report and refreshes the list", async () => {
    const api = fakeWorktreesApi();
    const report = { applied: ["calc.py"], merged: [], refused: [{ path: "notes.md", reason: "conflict" }] };
    api.apply.mockResolvedValueOnce(ok(report));
    const changed = vi.fn();
    const actions = new WorktreeActions(api, "r1", changed);
    await actions.apply();
    expect(api.apply).toHaveBeenCalledWith("r1", []);
    expect(actions.report).toEqual(report);
    expect(actions.busy).toBeNull();
    expect(changed).toHaveBeenCalledTimes(1);
  });

  it("discards only after the user confirmed", async () => {
    const api = fakeWorktreesApi();
    const actions = new WorktreeActions(api, "r1", () => {});
    await actions.discard();
    expect(api.discard).not.toHaveBeenCalled();
    actions.askDiscard();
    actions.cancelDiscard();
    await actions.discard();
    expect(api.discard).not.toHaveBeenCalled();
    actions.askDiscard();
    await actions.discard();
    expect(api.discard).toHaveBeenCalledWith("r1");
    expect(actions.discarded).toBe(true);
    expect(actions.confirming).toBe(false);
  });

  it("undoes the apply unforced, keeps what came back and shows a refusal naming the file", async () => {
    const api = fakeWorktreesApi();
    api.undoApply.mockResolvedValueOnce(ok(["calc.py", "new.txt"]));
    api.undoApply.mockResolvedValueOnce({ ok: false, error: { code: "conflict", message: "changed since the apply: calc.py; nothing was touched" } });
    const changed = vi.fn();
    const actions = new WorktreeActions(api, "r1", changed);
    await actions.undoApply();
    expect(api.undoApply).toHaveBeenCalledWith("r1", false);
    expect(actions.undone).toEqual(["calc.py", "new.txt"]);
    expect(changed).toHaveBeenCalledTimes(1);
    await actions.undoApply();
    expect(actions.error?.message).toContain("calc.py");
    expect(actions.busy).toBeNull();
  });

  it("shows the backend's refusal and stays usable", async () => {
    const api = fakeWorktreesApi();
    api.apply.mockResolvedValueOnce({ ok: false, error: { code: "conflict", message: "a run of worktree /w is still in progress" } });
    const actions = new WorktreeActions(api, "r1", () => {});
    await actions.apply();
    expect(actions.error?.code).toBe("conflict");
    expect(actions.report).toBeNull();
    actions.dismissError();
    expect(actions.error).toBeNull();
  });
});
