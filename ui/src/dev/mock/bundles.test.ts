import { describe, expect, it } from "vitest";
import { MockBundles, withSource, type MockBundlesSeed, type MockRunFile } from "./bundles";
import { MockError } from "./errors";

const PATH = "/home/dev/Downloads/calc-fix.bearagent-run";
const FILE: MockRunFile = { runId: "run-1", scenario: "conversation", workspacePath: "/home/alex/src/calc" };

function bundles(seed: Partial<MockBundlesSeed> = {}, here: string[] = []) {
  const runs = new Set(here);
  const added: MockRunFile[] = [];
  const store = {
    has: (runId: string) => runs.has(runId),
    add: (file: MockRunFile) => {
      runs.add(file.runId);
      added.push(file);
    },
    thread: (runId: string) => [
      { runId: "run-0", status: "succeeded" as const },
      { runId, status: runId === "live" ? ("running" as const) : ("succeeded" as const) },
    ],
  };
  return { mock: new MockBundles({ runFiles: { [PATH]: FILE }, pickRunFile: PATH, openedRunFile: null, importedEarlier: {}, exportFolder: "/home/dev/Downloads", ...seed }, store), added };
}

const errorOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof MockError ? e.error : null;
  }
  return null;
};

describe("mock run files", () => {
  it("imports the picked file's run once; the same file again adds nothing", () => {
    const { mock, added } = bundles();
    expect(mock.open()).toEqual({ runId: "run-1", added: ["run-1"] });
    expect(added).toEqual([FILE]);
    expect(mock.sourceOf("run-1")).toBe("calc-fix.bearagent-run");
    expect(mock.importFile(PATH)).toEqual({ runId: "run-1", added: [] });
    expect(added).toHaveLength(1);
  });

  it("a cancelled pick imports nothing", () => {
    const { mock, added } = bundles({ pickRunFile: null });
    expect(mock.open()).toBeNull();
    expect(added).toEqual([]);
  });

  it("refuses a missing or damaged file (invalid_input) and another run with the same id (conflict)", () => {
    const damaged = { code: "invalid_input" as const, message: "the bundle is damaged: run run-2 had not ended" };
    const { mock } = bundles({ runFiles: { [PATH]: FILE, "/tmp/bad.bearagent-run": { error: damaged } } }, ["run-1"]);
    expect(errorOf(() => mock.importFile("/tmp/bad.bearagent-run"))).toEqual(damaged);
    expect(errorOf(() => mock.importFile("/tmp/none.bearagent-run"))?.message).toMatch(/^\/tmp\/none\.bearagent-run is not a readable BearAgent run bundle/);
    expect(errorOf(() => mock.open())?.code).toBe("conflict");
    expect(mock.sourceOf("run-1")).toBeNull();
  });

  it("hands out the file the app was started with once", () => {
    const { mock } = bundles({ openedRunFile: PATH });
    expect(mock.takeOpened()).toBe(PATH);
    expect(mock.takeOpened()).toBeNull();
  });

  it("refuses to change an imported run, not a run made here", () => {
    const { mock } = bundles({}, ["local"]);
    mock.open();
    expect(errorOf(() => mock.checkWritable("run-1", "compacted"))?.message).toMatch(/^run run-1 was imported from calc-fix\.bearagent-run and is read-only here: it cannot be compacted; fork it/);
    expect(errorOf(() => mock.checkWritable("local", "compacted"))).toBeNull();
  });

  it("stores a run imported in an earlier session, marked with its file's name; opening the file again adds nothing", () => {
    const { mock, added } = bundles({ importedEarlier: { [PATH]: FILE } });
    expect(added).toEqual([FILE]);
    expect(mock.sourceOf("run-1")).toBe("calc-fix.bearagent-run");
    expect(mock.open()).toEqual({ runId: "run-1", added: [] });
    expect(added).toHaveLength(1);
    expect(errorOf(() => mock.checkWritable("run-1", "compacted"))?.code).toBe("conflict");
  });

  it("names the bundle only on an imported run's view, like the backend's DTOs", () => {
    expect(withSource({ runId: "run-1" }, "calc-fix.bearagent-run")).toEqual({ runId: "run-1", importedFrom: "calc-fix.bearagent-run" });
    expect(withSource({ runId: "local" }, null)).toEqual({ runId: "local" });
    expect("importedFrom" in withSource({ runId: "local" }, null)).toBe(false);
  });

  it("exports an ended run with the runs it continues to the folder the dialog picks; a live one is refused", () => {
    const { mock } = bundles();
    const path = mock.answer("pick_bundle_file", { runId: "run-b" });
    expect(path).toBe("/home/dev/Downloads/run-b.bearagent-run");
    expect(mock.answer("export_run_bundle", { runId: "run-b", path })).toEqual({ path, runs: ["run-0", "run-b"], withheld: 0, redacted: 0 });
    expect(errorOf(() => mock.answer("export_run_bundle", { runId: "live", path }))?.code).toBe("conflict");
    expect(bundles({ exportFolder: null }).mock.answer("pick_bundle_file", { runId: "run-b" })).toBeNull();
  });
});
