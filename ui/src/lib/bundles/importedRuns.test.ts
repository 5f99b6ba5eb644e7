import { describe, expect, it, vi } from "vitest";
import type { ApiError, RunSummaryView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { RunsApi } from "../runs";
import { IMPORTED_LIST_LIMIT, ImportedRuns } from "./importedRuns.svelte";

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const STORAGE: ApiError = { code: "storage", message: "database is locked" };

function summary(runId: string): RunSummaryView {
  return {
    runId, workspaceId: "ws-elsewhere", goal: "fix the test", status: "succeeded", statusDetail: null, provider: "openai", model: "gpt-4.1",
    createdAt: "2025-03-14T09:30:00Z", updatedAt: "2025-03-14T09:31:00Z",
    modelCalls: 2, toolCalls: 1, inputTokens: 1200, outputTokens: 300, costMicroUsd: null, parentRunId: null, importedFrom: "calc-fix.bearagent-run",
  };
}

const fakeApi = () => ({ search: vi.fn<RunsApi["search"]>(async () => ok([])) });

describe("ImportedRuns", () => {
  it("asks searchRuns for the imported runs of any workspace", async () => {
    const api = fakeApi();
    api.search.mockResolvedValueOnce(ok([summary("r2"), summary("r1")]));
    const list = new ImportedRuns(api);
    expect(list.runs).toEqual([]);
    await list.refresh();
    expect(api.search).toHaveBeenCalledWith({ workspaceId: null, status: null, text: null, limit: IMPORTED_LIST_LIMIT, importedOnly: true });
    expect(list.runs.map((r) => r.runId)).toEqual(["r2", "r1"]);
    expect(list.error).toBeNull();
  });

  it("keeps its list on a failed refresh, with the error, until the next answer", async () => {
    const api = fakeApi();
    api.search.mockResolvedValueOnce(ok([summary("r1")]));
    const list = new ImportedRuns(api);
    await list.refresh();
    api.search.mockResolvedValueOnce({ ok: false, error: STORAGE });
    await list.refresh();
    expect(list.error).toEqual(STORAGE);
    expect(list.runs.map((r) => r.runId)).toEqual(["r1"]);
    list.dismissError();
    expect(list.error).toBeNull();
    api.search.mockResolvedValueOnce({ ok: false, error: STORAGE });
    await list.refresh();
    api.search.mockResolvedValueOnce(ok([summary("r2"), summary("r1")]));
    await list.refresh();
    expect(list.error).toBeNull();
    expect(list.runs).toHaveLength(2);
  });

  it("shows only the newest request's answer", async () => {
    const api = fakeApi();
    let release!: (value: Outcome<RunSummaryView[]>) => void;
    api.search.mockImplementationOnce(() => new Promise((resolve) => (release = resolve)));
    const list = new ImportedRuns(api);
    const first = list.refresh();
    api.search.mockResolvedValueOnce(ok([summary("r2"), summary("r1")]));
    await list.refresh();
    release(ok([summary("r1")]));
    await first;
    expect(list.runs.map((r) => r.runId)).toEqual(["r2", "r1"]);
  });
});
