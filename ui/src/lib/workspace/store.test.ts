import { describe, expect, it, vi } from "vitest";
import type { WorkspaceOpened, WorkspaceView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { WorkspaceApi } from "./api";
import { WorkspaceStore } from "./store.svelte";

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

function ws(name: string, id = `id-${name}`): WorkspaceView {
  return { id, name, path: `/work/${name}`, lastOpenedAt: "2025-01-01T00:00:00Z" };
}

/** A fake backend with the same behaviour as the commands, plus an event trigger. */
function fakeApi(initial: { current?: WorkspaceView | null; recents?: WorkspaceView[] } = {}) {
  let current = initial.current ?? null;
  let recents = initial.recents ?? [];
  const handlers: ((event: WorkspaceOpened) => void)[] = [];
  const unlisten = vi.fn();
  const adopt = (workspace: WorkspaceView) => {
    current = workspace;
    recents = [workspace, ...recents.filter((w) => w.id !== workspace.id)];
    return workspace;
  };
  const api = {
    open: vi.fn(async (path: string): Promise<Outcome<WorkspaceView>> =>
      path.endsWith(".txt")
        ? { ok: false, error: { code: "not_a_directory", message: `Not a directory: ${path}` } }
        : ok(adopt(ws(path.split("/").pop()!))),
    ),
    choose: vi.fn(async (): Promise<Outcome<WorkspaceView | null>> => ok(null)),
    current: vi.fn(async () => ok(current)),
    recents: vi.fn(async () => ok(recents)),
    onWorkspaceOpened: vi.fn(async (handler: (event: WorkspaceOpened) => void) => {
      handlers.push(handler);
      return unlisten;
    }),
  } satisfies WorkspaceApi;
  const emitOpened = (workspace: WorkspaceView) => handlers.forEach((h) => h({ workspace: adopt(workspace) }));
  return { api, emitOpened, unlisten };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("WorkspaceStore", () => {
  it("starts with no workspace and subscribes to workspace-opened", async () => {
    const { api } = fakeApi();
    const store = new WorkspaceStore(api);
    await store.start();

    expect(store.ready).toBe(true);
    expect(store.current).toBeNull();
    expect(store.recents).toEqual([]);
    expect(api.onWorkspaceOpened).toHaveBeenCalledOnce();
  });

  it("loads the current workspace and recents at start", async () => {
    const busy = ws("busy");
    const { api } = fakeApi({ current: busy, recents: [busy] });
    const store = new WorkspaceStore(api);
    await store.start();

    expect(store.current).toEqual(busy);
    expect(store.recents).toEqual([busy]);
  });

  it("opens a path (trimmed) and refreshes recents", async () => {
    const { api } = fakeApi();
    const store = new WorkspaceStore(api);
    await store.start();

    await expect(store.openPath("  /work/demo  ")).resolves.toBe(true);
    expect(api.open).toHaveBeenCalledWith("/work/demo");
    expect(store.current?.name).toBe("demo");
    expect(store.recents.map((w) => w.name)).toEqual(["demo"]);
    expect(store.error).toBeNull();
    expect(store.busy).toBe(false);
  });

  it("keeps the typed error code and message when opening fails", async () => {
    const { api } = fakeApi();
    const store = new WorkspaceStore(api);
    await store.start();

    await expect(store.openPath("/work/notes.txt")).resolves.toBe(false);
    expect(store.error).toEqual({
      code: "not_a_directory",
      message: "Not a directory: /work/notes.txt",
      context: "open",
    });
    expect(store.current).toBeNull();

    await store.openPath("/work/demo");
    expect(store.error).toBeNull();
  });

  it("rejects an empty path without calling the backend", async () => {
    const { api } = fakeApi();
    const store = new WorkspaceStore(api);
    await store.start();

    await expect(store.openPath("   ")).resolves.toBe(false);
    expect(api.open).not.toHaveBeenCalled();
    expect(store.error?.code).toBe("invalid_input");
  });

  it("treats a cancelled folder dialog as no change", async () => {
    const demo = ws("demo");
    const { api } = fakeApi({ current: demo, recents: [demo] });
    const store = new WorkspaceStore(api);
    await store.start();

    await expect(store.choose()).resolves.toBe(false);
    expect(store.current).toEqual(demo);
    expect(store.error).toBeNull();
  });

  it("shows a dialog error from choose", async () => {
    const { api } = fakeApi();
    api.choose.mockResolvedValueOnce({ ok: false, error: { code: "dialog", message: "no portal" } });
    const store = new WorkspaceStore(api);
    await store.start();

    await store.choose();
    expect(store.error).toEqual({ code: "dialog", message: "no portal", context: "choose" });
  });

  it("opens a recent workspace by its path", async () => {
    const demo = ws("demo");
    const { api } = fakeApi({ recents: [demo] });
    const store = new WorkspaceStore(api);
    await store.start();

    await store.openRecent(demo);
    expect(api.open).toHaveBeenCalledWith("/work/demo");
    expect(store.current?.id).toBe("id-demo");
  });

  it("refreshes on a workspace-opened event from the backend", async () => {
    const { api, emitOpened } = fakeApi();
    const store = new WorkspaceStore(api);
    await store.start();

    emitOpened(ws("busy"));
    await settle();
    expect(store.current?.id).toBe("id-busy");
    expect(store.recents.map((w) => w.id)).toEqual(["id-busy"]);
  });

  it("adopts a workspace the backend opened (the demo's) and clears errors", async () => {
    const { api } = fakeApi();
    const store = new WorkspaceStore(api);
    await store.start();
    await store.openPath("/work/notes.txt");
    expect(store.error).not.toBeNull();

    await store.adopt(ws("demo"));
    expect(store.current?.id).toBe("id-demo");
    expect(store.error).toBeNull();
    expect(api.recents).toHaveBeenCalled();
  });

  it("reports load errors and unsubscribes on stop", async () => {
    const { api, unlisten } = fakeApi();
    api.current.mockResolvedValueOnce({ ok: false, error: { code: "storage", message: "database is locked" } });
    const store = new WorkspaceStore(api);
    await store.start();

    expect(store.error).toEqual({ code: "storage", message: "database is locked", context: "load" });
    store.stop();
    expect(unlisten).toHaveBeenCalledOnce();
  });
});
