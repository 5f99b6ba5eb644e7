import { describe, expect, it, vi } from "vitest";
import type { ApiError, ArtifactItem, FileDiffView, UntrackedItem } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { ArtifactsApi } from "./api";
import { ArtifactsStore } from "./store.svelte";

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const fail = (code: ApiError["code"], message: string = code): Outcome<never> => ({ ok: false, error: { code, message } });

const item = (path: string, state: ArtifactItem["state"] = "pending", change: ArtifactItem["change"] = "modified"): ArtifactItem => ({
  path,
  change,
  state,
  beforeBytes: 10,
  afterBytes: 12,
  lines: null,
  byHooks: [],
});

const textDiff = (added: number, removed: number, stats_only = false): FileDiffView => ({
  kind: "text",
  added,
  removed,
  stats_only,
  hunks: stats_only ? [] : [{ oldStart: 1, oldLen: 1, newStart: 1, newLen: 1, lines: [{ kind: "removed", oldLine: 1, newLine: null, text: "a" }, { kind: "added", oldLine: null, newLine: 1, text: "b" }] }],
});

function fakeApi(items: ArtifactItem[], untracked: UntrackedItem[] = []) {
  let list = [...items];
  const setState = (path: string, state: ArtifactItem["state"]) => (list = list.map((i) => (i.path === path ? { ...i, state } : i)));
  const api = {
    list: vi.fn(async () => ok(list)),
    untracked: vi.fn(async (): Promise<Outcome<UntrackedItem[]>> => ok(untracked)),
    diff: vi.fn(async (_r: string, _p: string, full: boolean) => ok(textDiff(2, 1, !full && _p === "big.log"))),
    keep: vi.fn(async (_r: string, path: string): Promise<Outcome<null>> => (setState(path, "kept"), ok(null))),
    revert: vi.fn(async (_r: string, path: string, force: boolean): Promise<Outcome<null>> => {
      if (list.find((i) => i.path === path)?.state === "conflict" && !force) return fail("conflict", "the file changed since the run wrote it");
      setState(path, "reverted");
      return ok(null);
    }),
    revertHunks: vi.fn(async (_r: string, path: string, _hunks: number[]): Promise<Outcome<null>> => (setState(path, "partial"), ok(null))),
    keepHunks: vi.fn(async (): Promise<Outcome<null>> => ok(null)),
    reapply: vi.fn(async (_r: string, path: string): Promise<Outcome<null>> => (setState(path, "pending"), ok(null))),
    exportRun: vi.fn(async () => ok({ jsonPath: "/data/exports/run-1.json", markdownPath: "/data/exports/run-1.md" })),
    pending: vi.fn(async () => ok(null)),
  } satisfies ArtifactsApi;
  return { api, setState };
}

describe("ArtifactsStore", () => {
  it("loads the list, selects the first file and keeps its line stats", async () => {
    const { api } = fakeApi([item("a.txt"), item("b.txt", "pending", "added")]);
    const store = new ArtifactsStore(api, "run-1");
    await store.load();
    expect(store.loaded).toBe(true);
    expect(store.items.map((i) => i.path)).toEqual(["a.txt", "b.txt"]);
    expect(store.selected).toBe("a.txt");
    expect(store.diff.kind).toBe("loaded");
    expect(store.stats.get("a.txt")).toEqual({ added: 2, removed: 1 });
    expect(api.diff).toHaveBeenCalledWith("run-1", "a.txt", false);
  });

  it("lists what the run's commands changed that cannot be restored, and keeps the files when that list fails", async () => {
    const target: UntrackedItem = { seq: 9, command: "cargo build", path: "target/", why: "build_output", change: "made", size: { files: 1200, bytes: 800 * 1024 * 1024, at_least: false } };
    const { api } = fakeApi([item("a.txt")], [target]);
    const store = new ArtifactsStore(api, "run-1");
    await store.load();
    expect(store.untracked).toEqual([target]);
    api.untracked.mockResolvedValueOnce(fail("not_found", "no such run"));
    await store.load();
    expect(store.items.map((i) => i.path)).toEqual(["a.txt"]);
    expect(store.loadError?.code).toBe("not_found");
  });

  it("keeps a load error by code", async () => {
    const { api } = fakeApi([]);
    api.list.mockResolvedValueOnce(fail("not_found", "run not found"));
    const store = new ArtifactsStore(api, "run-9");
    await store.load();
    expect(store.loadError).toEqual({ code: "not_found", message: "run not found" });
    expect(store.items).toEqual([]);
  });

  it("refreshes the list and the diff after each action", async () => {
    const { api } = fakeApi([item("a.txt")]);
    const store = new ArtifactsStore(api, "run-1");
    await store.load();
    api.list.mockClear();
    api.diff.mockClear();
    await expect(store.revert("a.txt")).resolves.toBe(true);
    expect(api.revert).toHaveBeenCalledWith("run-1", "a.txt", false);
    expect(store.items[0].state).toBe("reverted");
    expect(api.list).toHaveBeenCalledTimes(1);
    expect(api.diff).toHaveBeenCalledWith("run-1", "a.txt", false);
    await store.reapply("a.txt");
    expect(api.reapply).toHaveBeenCalledWith("run-1", "a.txt", false);
    expect(store.items[0].state).toBe("pending");
    await store.keep("a.txt");
    expect(store.items[0].state).toBe("kept");
    expect(store.busy).toBeNull();
  });

  it("remembers a conflict and lets the user force the revert", async () => {
    const { api } = fakeApi([item("c.txt", "conflict")]);
    const store = new ArtifactsStore(api, "run-1");
    await store.load();
    await expect(store.revert("c.txt")).resolves.toBe(false);
    expect(store.conflicts.get("c.txt")).toBe("revert");
    expect(store.actionError).toBeNull();
    await expect(store.revert("c.txt", true)).resolves.toBe(true);
    expect(api.revert).toHaveBeenLastCalledWith("run-1", "c.txt", true);
    expect(store.conflicts.has("c.txt")).toBe(false);
    expect(store.items[0].state).toBe("reverted");
  });

  it("shows other action errors without marking a conflict", async () => {
    const { api } = fakeApi([item("a.txt")]);
    api.keep.mockResolvedValueOnce(fail("storage", "disk full"));
    const store = new ArtifactsStore(api, "run-1");
    await store.load();
    await store.keep("a.txt");
    expect(store.actionError?.code).toBe("storage");
    expect(store.conflicts.size).toBe(0);
    store.dismissError();
    expect(store.actionError).toBeNull();
  });

  it("reverts all but leaves conflicts to decide one by one", async () => {
    const { api } = fakeApi([item("a.txt"), item("b.txt", "reverted"), item("c.txt", "conflict")]);
    const store = new ArtifactsStore(api, "run-1");
    await store.load();
    await store.revertAll();
    expect(api.revert.mock.calls.map((c) => c[1])).toEqual(["a.txt", "c.txt"]);
    expect(store.items.map((i) => i.state)).toEqual(["reverted", "reverted", "conflict"]);
    expect([...store.conflicts.keys()]).toEqual(["c.txt"]);
  });

  it("renders a large file in full on request and keeps it full after an action", async () => {
    const { api } = fakeApi([item("big.log")]);
    const store = new ArtifactsStore(api, "run-1");
    await store.load();
    expect(store.diff.kind === "loaded" && store.diff.diff.kind === "text" && store.diff.diff.stats_only).toBe(true);
    await store.renderFull();
    expect(api.diff).toHaveBeenLastCalledWith("run-1", "big.log", true);
    expect(store.diff.kind === "loaded" && store.diff.diff.kind === "text" && store.diff.diff.stats_only).toBe(false);
    await store.keep("big.log");
    expect(api.diff).toHaveBeenLastCalledWith("run-1", "big.log", true);
  });

  it("exports the run and shows both paths", async () => {
    const { api } = fakeApi([]);
    const store = new ArtifactsStore(api, "run-1");
    await store.exportRun();
    expect(store.exported).toEqual({ jsonPath: "/data/exports/run-1.json", markdownPath: "/data/exports/run-1.md" });
    api.exportRun.mockResolvedValueOnce(fail("storage"));
    await store.exportRun();
    expect(store.actionError?.code).toBe("storage");
  });
  it("reverts one hunk of the selected file: the file reads as partly reverted and its diff is read again", async () => {
    const { api } = fakeApi([item("a.txt")]);
    const store = new ArtifactsStore(api, "run-1");
    await store.load();
    const diffsBefore = api.diff.mock.calls.length;
    expect(await store.revertHunk("a.txt", 2)).toBe(true);
    expect(api.revertHunks).toHaveBeenCalledWith("run-1", "a.txt", [2], false);
    expect(store.items[0].state).toBe("partial");
    expect(api.diff.mock.calls.length).toBeGreaterThan(diffsBefore);
  });
});
