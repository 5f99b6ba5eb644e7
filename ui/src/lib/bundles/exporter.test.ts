import { describe, expect, it, vi } from "vitest";
import type { ApiError, ExportedBundleView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { RunFilesApi } from "./api";
import { exportErrorTitle } from "./errors";
import { RunExporter } from "./exporter.svelte";

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const failed = (error: ApiError): Outcome<never> => ({ ok: false, error });
const PATH = "/home/dev/run-b.bearagent-run";
const WRITTEN: ExportedBundleView = { path: PATH, runs: ["run-a", "run-b"], withheld: 0, redacted: 1 };
const LIVE: ApiError = { code: "conflict", message: "run run-b is still running: export it once it has ended" };

function fakeApi(more: Partial<RunFilesApi> = {}) {
  return {
    open: vi.fn<RunFilesApi["open"]>(async () => ok(null)),
    importFile: vi.fn<RunFilesApi["importFile"]>(async () => failed(LIVE)),
    openedAtStart: vi.fn<RunFilesApi["openedAtStart"]>(async () => ok(null)),
    pickExport: vi.fn<RunFilesApi["pickExport"]>(async () => ok(PATH)),
    exportTo: vi.fn<RunFilesApi["exportTo"]>(async () => ok(WRITTEN)),
    ...more,
  } satisfies RunFilesApi;
}

describe("RunExporter", () => {
  it("writes the run to the file the dialog picked and keeps what was written", async () => {
    const api = fakeApi();
    const store = new RunExporter(api, "run-b");
    expect(await store.exportRun()).toBe(true);
    expect(api.pickExport).toHaveBeenCalledWith("run-b");
    expect(api.exportTo).toHaveBeenCalledWith("run-b", PATH);
    expect(store.written).toEqual(WRITTEN);
    expect(store.busy).toBe(false);
    store.dismiss();
    expect(store.written).toBeNull();
  });

  it("writes nothing when the dialog is cancelled", async () => {
    const api = fakeApi({ pickExport: vi.fn(async () => ok(null)) });
    const store = new RunExporter(api, "run-b");
    expect(await store.exportRun()).toBe(false);
    expect(api.exportTo).not.toHaveBeenCalled();
    expect(store.written).toBeNull();
    expect(store.error).toBeNull();
  });

  it("keeps a refused export's error, titled by its code", async () => {
    const store = new RunExporter(fakeApi({ exportTo: vi.fn(async () => failed(LIVE)) }), "run-b");
    expect(await store.exportRun()).toBe(false);
    expect(store.error).toEqual(LIVE);
    expect(store.written).toBeNull();
    expect(exportErrorTitle("conflict")).toBe("The run cannot be exported yet");
    expect(exportErrorTitle("dialog")).toBe("Save dialog unavailable");
  });
});
