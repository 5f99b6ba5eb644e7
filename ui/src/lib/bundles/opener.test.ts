import { describe, expect, it, vi } from "vitest";
import type { ApiError, ImportedRunView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { RunFilesApi } from "./api";
import { runFileErrorTitle } from "./errors";
import { RunFileOpener } from "./opener.svelte";

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const failed = (error: ApiError): Outcome<never> => ({ ok: false, error });
const IMPORTED: ImportedRunView = { runId: "run-b", added: ["run-a", "run-b"] };
const DAMAGED: ApiError = { code: "invalid_input", message: "the bundle is damaged: run run-b had not ended" };

function fakeApi(more: Partial<RunFilesApi> = {}) {
  return {
    open: vi.fn<RunFilesApi["open"]>(async () => ok(IMPORTED)),
    importFile: vi.fn<RunFilesApi["importFile"]>(async () => ok(IMPORTED)),
    openedAtStart: vi.fn<RunFilesApi["openedAtStart"]>(async () => ok(null)),
    pickExport: vi.fn<RunFilesApi["pickExport"]>(async () => ok(null)),
    exportTo: vi.fn<RunFilesApi["exportTo"]>(async () => failed(DAMAGED)),
    ...more,
  } satisfies RunFilesApi;
}

function opener(api: RunFilesApi) {
  const opened: string[] = [];
  return { store: new RunFileOpener(api, (runId) => opened.push(runId)), opened };
}

describe("RunFileOpener", () => {
  it("opens the picked file's run", async () => {
    const { store, opened } = opener(fakeApi());
    expect(await store.choose()).toBe(true);
    expect(opened).toEqual(["run-b"]);
    expect(store.busy).toBe(false);
  });

  it("does nothing when the pick is cancelled, clearing an earlier error", async () => {
    const open = vi.fn<RunFilesApi["open"]>(async () => failed(DAMAGED));
    const { store, opened } = opener(fakeApi({ open }));
    await store.choose();
    expect(store.error).toEqual(DAMAGED);
    open.mockResolvedValueOnce(ok(null));
    expect(await store.choose()).toBe(false);
    expect(store.error).toBeNull();
    expect(opened).toEqual([]);
  });

  it("keeps a refused file's error and opens nothing", async () => {
    const { store, opened } = opener(fakeApi({ open: vi.fn(async () => failed(DAMAGED)) }));
    expect(await store.choose()).toBe(false);
    expect(store.error).toEqual(DAMAGED);
    expect(opened).toEqual([]);
    store.dismissError();
    expect(store.error).toBeNull();
  });

  it("a run the import did not add (already here) opens all the same", async () => {
    const { store, opened } = opener(fakeApi({ open: vi.fn(async () => ok({ runId: "run-b", added: [] })) }));
    expect(await store.choose()).toBe(true);
    expect(opened).toEqual(["run-b"]);
  });

  it("imports the file the app was started with and opens its run", async () => {
    const api = fakeApi({ openedAtStart: vi.fn(async () => ok("/home/me/bug.bearagent-run")) });
    const { store, opened } = opener(api);
    expect(await store.openAtStart()).toBe(true);
    expect(api.importFile).toHaveBeenCalledWith("/home/me/bug.bearagent-run");
    expect(api.open).not.toHaveBeenCalled();
    expect(opened).toEqual(["run-b"]);
  });

  it("at start without a file asks for nothing more", async () => {
    const api = fakeApi();
    const { store, opened } = opener(api);
    expect(await store.openAtStart()).toBe(false);
    expect(api.importFile).not.toHaveBeenCalled();
    expect(opened).toEqual([]);
    expect(store.error).toBeNull();
  });

  it("shows the error of the file the app was started with", async () => {
    const conflict: ApiError = { code: "conflict", message: "a different run with id run-b is already in this store; the bundle was not imported" };
    const api = fakeApi({ openedAtStart: vi.fn(async () => ok("/tmp/x.bearagent-run")), importFile: vi.fn(async () => failed(conflict)) });
    const { store, opened } = opener(api);
    expect(await store.openAtStart()).toBe(false);
    expect(store.error).toEqual(conflict);
    expect(opened).toEqual([]);
  });

  it("one import at a time", async () => {
    let finish: (value: Outcome<ImportedRunView | null>) => void = () => {};
    const api = fakeApi({ open: vi.fn(() => new Promise<Outcome<ImportedRunView | null>>((resolve) => (finish = resolve))) });
    const { store } = opener(api);
    const first = store.choose();
    expect(store.busy).toBe(true);
    expect(await store.choose()).toBe(false);
    finish(ok(IMPORTED));
    expect(await first).toBe(true);
    expect(api.open).toHaveBeenCalledOnce();
  });
});

describe("runFileErrorTitle", () => {
  it("titles a refused file by its code", () => {
    expect(runFileErrorTitle("invalid_input")).toBe("This run file cannot be opened");
    expect(runFileErrorTitle("conflict")).toMatch(/different run with this id/);
    expect(runFileErrorTitle("dialog")).toBe("File picker unavailable");
    expect(runFileErrorTitle("storage")).toBe("Storage error");
    expect(runFileErrorTitle("brand_new")).toBe("Error (brand_new)");
  });
});
