// Test doubles for the worktrees port (imported by *.test.ts only).
import { vi } from "vitest";
import type { ApplyReportView, RunSummaryView, WorktreeView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { WorktreesApi } from "./api";

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

export function worktree(name: string, runs: string[], more: Partial<WorktreeView> = {}): WorktreeView {
  return {
    path: `/data/worktrees/demo-1a2b3c4d/${name}`,
    repo: "/work/demo",
    branch: `bearagent/${name}`,
    base: "0".repeat(40),
    carriedChanges: false,
    state: "ready_to_apply",
    sizeBytes: 4096,
    runs,
    ...more,
  };
}

export function run(runId: string, more: Partial<RunSummaryView> = {}): RunSummaryView {
  return {
    runId, workspaceId: "ws-1", goal: `goal of ${runId}`, status: "succeeded", statusDetail: null, provider: "openai", model: "gpt-4.1",
    createdAt: "2025-03-14T09:30:00Z", updatedAt: "2025-03-14T09:31:00Z",
    modelCalls: 1, toolCalls: 1, inputTokens: 100, outputTokens: 10, costMicroUsd: null, parentRunId: null, ...more,
  };
}

export function fakeWorktreesApi() {
  const api = {
    list: vi.fn<() => Promise<Outcome<WorktreeView[]>>>(async () => ok([])),
    apply: vi.fn<(runId: string, paths: string[]) => Promise<Outcome<ApplyReportView>>>(async () => ok({ applied: [], merged: [], refused: [] })),
    undoApply: vi.fn<(runId: string, force: boolean) => Promise<Outcome<string[]>>>(async () => ok([])),
    discard: vi.fn<(runId: string) => Promise<Outcome<null>>>(async () => ok(null)),
    prune: vi.fn<() => Promise<Outcome<WorktreeView[]>>>(async () => ok([])),
  } satisfies WorktreesApi;
  return api;
}
