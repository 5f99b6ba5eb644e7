import { beforeEach, describe, expect, it, vi } from "vitest";

const mocks = vi.hoisted(() => ({
  commands: {
    startRun: vi.fn(),
    startDemoRun: vi.fn(),
    cancelRun: vi.fn(),
    decideApproval: vi.fn(),
    searchRuns: vi.fn(),
    getRun: vi.fn(),
    listEvents: vi.fn(),
    modelContext: vi.fn(),
    quitApp: vi.fn(),
    replyToRun: vi.fn(),
    getThread: vi.fn(),
    compactRun: vi.fn(),
    eventText: vi.fn(),
  },
  listen: { run: vi.fn(), text: vi.fn(), quit: vi.fn(), aborted: vi.fn(), discarded: vi.fn() },
}));

vi.mock("../../bindings", () => ({
  commands: mocks.commands,
  events: {
    runEventPushed: { listen: mocks.listen.run },
    modelTextPushed: { listen: mocks.listen.text },
    quitRequested: { listen: mocks.listen.quit },
    runAborted: { listen: mocks.listen.aborted },
    modelTextDiscarded: { listen: mocks.listen.discarded },
  },
}));

import { tauriRunsApi } from "./api";

beforeEach(() => vi.clearAllMocks());

describe("tauriRunsApi", () => {
  it("passes arguments to the generated commands and folds results", async () => {
    mocks.commands.listEvents.mockResolvedValue({ status: "ok", data: { events: [], hasMore: false } });
    await expect(tauriRunsApi.listEvents("r1", 3, 500)).resolves.toEqual({ ok: true, value: { events: [], hasMore: false } });
    expect(mocks.commands.listEvents).toHaveBeenCalledWith("r1", 3, 500);

    mocks.commands.decideApproval.mockResolvedValue({ status: "error", error: { code: "not_found", message: "no pending approval" } });
    const decision = { approve: false, scope: "once" as const, reason: "no" };
    await expect(tauriRunsApi.decide("r1", "c1", decision)).resolves.toEqual({ ok: false, error: { code: "not_found", message: "no pending approval" } });
    expect(mocks.commands.decideApproval).toHaveBeenCalledWith("r1", "c1", decision);

    mocks.commands.modelContext.mockRejectedValue(new Error("IPC down"));
    await expect(tauriRunsApi.modelContext("r1", 7)).resolves.toEqual({ ok: false, error: { code: "internal", message: "IPC down" } });
  });

  it("replies (a follow-up, or a fork at a seq) and reads threads", async () => {
    mocks.commands.replyToRun.mockResolvedValue({ status: "ok", data: { runId: "r2" } });
    await expect(tauriRunsApi.reply("r1", "and the tests?", null)).resolves.toEqual({ ok: true, value: { runId: "r2" } });
    expect(mocks.commands.replyToRun).toHaveBeenLastCalledWith("r1", "and the tests?", null);
    mocks.commands.replyToRun.mockResolvedValue({ status: "error", error: { code: "conflict", message: "still in progress" } });
    await expect(tauriRunsApi.reply("r1", "try again", 7)).resolves.toEqual({ ok: false, error: { code: "conflict", message: "still in progress" } });
    expect(mocks.commands.replyToRun).toHaveBeenLastCalledWith("r1", "try again", 7);

    mocks.commands.getThread.mockResolvedValue({ status: "ok", data: [] });
    await expect(tauriRunsApi.thread("r2")).resolves.toEqual({ ok: true, value: [] });
    expect(mocks.commands.getThread).toHaveBeenCalledWith("r2");
  });

  it("compacts a run and reads the texts its events reference", async () => {
    mocks.commands.compactRun.mockResolvedValue({ status: "ok", data: { tokensBefore: 171_000, tokensAfter: 12_500 } });
    await expect(tauriRunsApi.compact("r1")).resolves.toEqual({ ok: true, value: { tokensBefore: 171_000, tokensAfter: 12_500 } });
    expect(mocks.commands.compactRun).toHaveBeenCalledWith("r1");
    mocks.commands.compactRun.mockResolvedValue({ status: "error", error: { code: "unavailable", message: "the run could not be compacted" } });
    await expect(tauriRunsApi.compact("r1")).resolves.toEqual({ ok: false, error: { code: "unavailable", message: "the run could not be compacted" } });

    mocks.commands.eventText.mockResolvedValue({ status: "ok", data: "Goal: …" });
    await expect(tauriRunsApi.eventText("r1", "ab12")).resolves.toEqual({ ok: true, value: "Goal: …" });
    expect(mocks.commands.eventText).toHaveBeenCalledWith("r1", "ab12");
  });

  it("unwraps event payloads", async () => {
    const unlisten = vi.fn();
    mocks.listen.run.mockResolvedValue(unlisten);
    const handler = vi.fn();
    await expect(tauriRunsApi.onRunEvent(handler)).resolves.toBe(unlisten);
    mocks.listen.run.mock.calls[0][0]({ event: "run-event-pushed", id: 1, payload: { runId: "r1", event: { seq: 1 } } });
    expect(handler).toHaveBeenCalledWith({ runId: "r1", event: { seq: 1 } });
  });

  it("unwraps run-aborted payloads", async () => {
    const unlisten = vi.fn();
    mocks.listen.aborted.mockResolvedValue(unlisten);
    const handler = vi.fn();
    await expect(tauriRunsApi.onRunAborted(handler)).resolves.toBe(unlisten);
    mocks.listen.aborted.mock.calls[0][0]({ event: "run-aborted", id: 2, payload: { runId: "r1", message: "disk full" } });
    expect(handler).toHaveBeenCalledWith({ runId: "r1", message: "disk full" });
  });

  it("unwraps model-text-discarded payloads", async () => {
    const unlisten = vi.fn();
    mocks.listen.discarded.mockResolvedValue(unlisten);
    const handler = vi.fn();
    await expect(tauriRunsApi.onModelTextDiscarded(handler)).resolves.toBe(unlisten);
    mocks.listen.discarded.mock.calls[0][0]({ event: "model-text-discarded", id: 3, payload: { runId: "r1", modelCall: 4 } });
    expect(handler).toHaveBeenCalledWith({ runId: "r1", modelCall: 4 });
  });
});
