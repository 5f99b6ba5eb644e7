import { describe, expect, it } from "vitest";
import type { RunSummaryView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import { RunListStore } from "./runList.svelte";
import { fakeRunsApi, ok, settle } from "./testSupport";

function summary(runId: string, workspaceId = "ws-1"): RunSummaryView {
  return {
    runId, workspaceId, goal: "write the report", status: "succeeded", statusDetail: null, provider: "local", model: "m",
    createdAt: "2025-03-14T09:30:00Z", updatedAt: "2025-03-14T09:31:00Z",
    modelCalls: 2, toolCalls: 1, inputTokens: 1200, outputTokens: 300, costMicroUsd: null, parentRunId: null,
  };
}

describe("RunListStore", () => {
  it("asks searchRuns for the workspace's runs and maps the filter", async () => {
    const { api } = fakeRunsApi();
    api.search.mockResolvedValue(ok([summary("r1")]));
    const list = new RunListStore(api);
    await list.setWorkspace("ws-1");
    expect(api.search).toHaveBeenLastCalledWith({ workspaceId: "ws-1", status: null, text: null, limit: 50 });
    expect(list.state).toEqual({ kind: "loaded", workspaceId: "ws-1", runs: [summary("r1")] });
    expect(list.filtered).toBe(false);

    await list.setFilter({ status: "awaiting_approval" });
    await list.setFilter({ text: "  report " });
    // The backend filters on the stored (snake_case) status kind.
    expect(api.search).toHaveBeenLastCalledWith({ workspaceId: "ws-1", status: "awaiting_approval", text: "report", limit: 50 });
    expect(list.filtered).toBe(true);

    await list.setFilter({ status: "budget_exhausted", text: "" });
    expect(api.search).toHaveBeenLastCalledWith({ workspaceId: "ws-1", status: "budget_exhausted", text: null, limit: 50 });
  });

  it("asks for a page of runs, a page more on Show more, and a page again in another workspace", async () => {
    const { api } = fakeRunsApi();
    const page = (n: number) => ok(Array.from({ length: n }, (_, i) => summary(`r${i}`)));
    api.search.mockResolvedValue(page(50));
    const list = new RunListStore(api);
    await list.setWorkspace("ws-1");
    expect(list.hasMore).toBe(true);
    api.search.mockResolvedValue(page(73));
    await list.showMore();
    expect(api.search).toHaveBeenLastCalledWith({ workspaceId: "ws-1", status: null, text: null, limit: 100 });
    expect(list.hasMore).toBe(false);
    api.search.mockResolvedValue(page(3));
    await list.setWorkspace("ws-2");
    expect(api.search).toHaveBeenLastCalledWith({ workspaceId: "ws-2", status: null, text: null, limit: 50 });
  });

  it("shows nothing without a workspace and never another workspace's runs", async () => {
    const { api } = fakeRunsApi();
    const list = new RunListStore(api);
    await list.setWorkspace(null);
    expect(list.state).toEqual({ kind: "idle" });
    expect(api.search).not.toHaveBeenCalled();

    let release!: (value: Outcome<RunSummaryView[]>) => void;
    api.search.mockImplementationOnce(() => new Promise((resolve) => (release = resolve)));
    const first = list.setWorkspace("ws-1");
    await settle();
    expect(list.state).toEqual({ kind: "loading" });
    api.search.mockResolvedValueOnce(ok([summary("r2", "ws-2")]));
    await list.setWorkspace("ws-2");
    release(ok([summary("stale")]));
    await first;
    expect(list.state).toEqual({ kind: "loaded", workspaceId: "ws-2", runs: [summary("r2", "ws-2")] });
  });

  it("keeps the list while refreshing the same workspace and reports errors", async () => {
    const { api } = fakeRunsApi();
    api.search.mockResolvedValue(ok([summary("r1")]));
    const list = new RunListStore(api);
    await list.setWorkspace("ws-1");
    let release!: (value: Outcome<RunSummaryView[]>) => void;
    api.search.mockImplementationOnce(() => new Promise((resolve) => (release = resolve)));
    const refreshing = list.refresh();
    expect(list.state.kind).toBe("loaded");
    release({ ok: false, error: { code: "storage", message: "locked" } });
    await refreshing;
    expect(list.error).toEqual({ code: "storage", message: "locked" });
    expect(list.state).toEqual({ kind: "idle" });
  });

  it("throttles refreshes after run changes", async () => {
    const { api } = fakeRunsApi();
    const list = new RunListStore(api);
    await list.setWorkspace("ws-1");
    api.search.mockClear();
    list.notifyChange(5);
    list.notifyChange(5);
    list.notifyChange(5);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(api.search).toHaveBeenCalledOnce();
    list.stop();
  });
});

