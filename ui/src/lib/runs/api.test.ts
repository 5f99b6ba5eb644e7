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
    runImage: vi.fn(),
    nextLiveUpdates: vi.fn(),
  },
  listen: { quit: vi.fn() },
}));

vi.mock("../../bindings", () => ({
  commands: mocks.commands,
  events: {
    quitRequested: { listen: mocks.listen.quit },
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
    const images = [{ name: "error.png", dataBase64: "iVBORw0KGgo=" }];
    await expect(tauriRunsApi.reply("r1", "and the tests?", null, images)).resolves.toEqual({ ok: true, value: { runId: "r2" } });
    expect(mocks.commands.replyToRun).toHaveBeenLastCalledWith("r1", "and the tests?", null, images);
    mocks.commands.replyToRun.mockResolvedValue({ status: "error", error: { code: "conflict", message: "still in progress" } });
    await expect(tauriRunsApi.reply("r1", "try again", 7, [])).resolves.toEqual({ ok: false, error: { code: "conflict", message: "still in progress" } });
    expect(mocks.commands.replyToRun).toHaveBeenLastCalledWith("r1", "try again", 7, []);

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

  it("reads a run's image by its blob", async () => {
    const view = { name: "shot.png", mediaType: "image/png", dataUrl: "data:image/png;base64,iVBORw0KGgo=" };
    mocks.commands.runImage.mockResolvedValue({ status: "ok", data: view });
    await expect(tauriRunsApi.runImage("r1", "ab12")).resolves.toEqual({ ok: true, value: view });
    expect(mocks.commands.runImage).toHaveBeenCalledWith("r1", "ab12");
    mocks.commands.runImage.mockResolvedValue({ status: "error", error: { code: "not_found", message: "image not found: ab12" } });
    await expect(tauriRunsApi.runImage("r1", "ab12")).resolves.toEqual({ ok: false, error: { code: "not_found", message: "image not found: ab12" } });
  });

  it("pulls live updates once for all handlers and gives each kind's handlers theirs in the order they happened", async () => {
    const event = (seq: number) => ({ kind: "run_event", runId: "r1", event: { seq } });
    const pages = [
      { cursor: 0, skipped: 0, updates: [] },
      {
        cursor: 7,
        skipped: 0,
        updates: [
          { kind: "model_text", runId: "r1", modelCall: 4, text: "Hel" },
          { kind: "model_text_discarded", runId: "r1", modelCall: 4 },
          { kind: "model_text", runId: "r1", modelCall: 4, text: "Hello" },
          event(5),
          { kind: "command_output", runId: "r1", callId: "c1", text: "ok" },
          event(6),
          { kind: "run_aborted", runId: "r1", message: "disk full" },
        ],
      },
      { cursor: 9, skipped: 0, updates: [event(7), { kind: "model_text", runId: "r1", modelCall: 8, text: "x" }] },
    ];
    // Each answer waits for the test to let it through; after the script, the shell keeps the poll open.
    const gates: (() => void)[] = [];
    mocks.commands.nextLiveUpdates.mockImplementation(() => {
      const page = pages.shift();
      return new Promise((resolve) => (page ? gates.push(() => resolve({ status: "ok", data: page })) : undefined));
    });
    const pass = async () => {
      gates.shift()?.();
      await new Promise((resolve) => setTimeout(resolve, 0));
    };
    const seen: string[] = [];
    const subscribed = tauriRunsApi.onRunEvent((p) => seen.push(`event ${p.runId} #${p.event.seq}`));
    await pass();
    const offRun = await subscribed;
    await tauriRunsApi.onModelText((p) => seen.push(`text ${p.modelCall} ${p.text}`));
    await tauriRunsApi.onRunAborted((p) => seen.push(`aborted ${p.message}`));
    await tauriRunsApi.onModelTextDiscarded((p) => seen.push(`discarded ${p.modelCall}`));
    await tauriRunsApi.onCommandOutput((p) => seen.push(`output ${p.callId} ${p.text}`));

    await pass();
    expect(seen).toEqual(["text 4 Hel", "discarded 4", "text 4 Hello", "event r1 #5", "output c1 ok", "event r1 #6", "aborted disk full"]);

    seen.length = 0;
    offRun();
    await pass();
    expect(seen).toEqual(["text 8 x"]);
    expect(mocks.commands.nextLiveUpdates.mock.calls).toEqual([[null], [0], [7], [9]]);
  });
});
