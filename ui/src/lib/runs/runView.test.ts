import { describe, expect, it } from "vitest";
import type { EventEnvelope } from "../../bindings";
import { RunViewStore } from "./runView.svelte";
import { envelope, fakeRunsApi, projection, settle } from "./testSupport";

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => envelope(from + i));
const seqs = (store: RunViewStore) => store.events().map((e) => e.seq);
const created = (): EventEnvelope =>
  envelope(1, {
    type: "run_created",
    goal: "g",
    workspace_id: "ws-1",
    workspace_path: "/w",
    profile: "default",
    budgets: projection().budgets,
    approval_mode: "ask_writes",
    context_caps: { max_context_bytes: 1, max_tool_result_bytes: 1 },
    max_invalid_outputs: 2,
    provider: "openai",
    model: "m",
    config_versions: {},
  }, null);

describe("RunViewStore: loading and live updates", () => {
  it("subscribes first, then pages the whole log from seq 0 (500 per page)", async () => {
    const fake = fakeRunsApi(range(1, 1203));
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();

    expect(fake.api.onRunEvent).toHaveBeenCalledOnce();
    expect(fake.api.onRunEvent.mock.invocationCallOrder[0]).toBeLessThan(fake.api.listEvents.mock.invocationCallOrder[0]);
    expect(fake.api.listEvents.mock.calls.map((c) => [c[1], c[2]])).toEqual([
      [0, 500],
      [500, 500],
      [1000, 500],
    ]);
    expect(store.count).toBe(1203);
    expect(store.loaded).toBe(true);
    expect(store.detail?.projection.run_id).toBe("run-1");
    expect(seqs(store)).toEqual(range(1, 1203).map((e) => e.seq));
  });

  it("applies live events once, ignoring duplicates and other runs", async () => {
    const fake = fakeRunsApi(range(1, 3));
    const store = new RunViewStore(fake.api, "run-1", { refreshDelayMs: 0 });
    await store.open();

    fake.store(envelope(4));
    fake.push(envelope(4));
    fake.push(envelope(4));
    fake.push(envelope(3));
    fake.push(envelope(5, undefined, 4, "run-2"), "run-2");
    await settle();
    expect(seqs(store)).toEqual([1, 2, 3, 4]);
    expect(fake.api.listEvents).toHaveBeenCalledTimes(1);
    // A live event refreshes the projection (coalesced).
    expect(fake.api.get.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it("fills a gap from the store before applying: 1-3, then 10 pages 4-9", async () => {
    const fake = fakeRunsApi(range(1, 3));
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();

    fake.store(...range(4, 10));
    fake.push(envelope(10));
    await settle();

    expect(fake.api.listEvents.mock.calls.slice(1).map((c) => c[1])).toEqual([3]);
    expect(seqs(store)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // The projection is refreshed after the paged events too.
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(fake.api.get.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it("pages a long gap in several pages and keeps order", async () => {
    const fake = fakeRunsApi(range(1, 2));
    const store = new RunViewStore(fake.api, "run-1", { pageSize: 4 });
    await store.open();

    fake.store(...range(3, 12));
    fake.push(envelope(12));
    await settle(6);
    expect(fake.api.listEvents.mock.calls.slice(1).map((c) => c[1])).toEqual([2, 6, 10]);
    expect(seqs(store)).toEqual(range(1, 12).map((e) => e.seq));
  });

  it("handles out-of-order live arrival without paging when the gap closes by itself", async () => {
    const fake = fakeRunsApi(range(1, 2));
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    const before = fake.api.listEvents.mock.calls.length;

    fake.store(envelope(3), envelope(4));
    fake.push(envelope(4));
    fake.push(envelope(3));
    await settle();
    expect(seqs(store)).toEqual([1, 2, 3, 4]);
    // The early 4 started a gap fill; its page (3, 4) deduplicates with the pushes.
    expect(fake.api.listEvents.mock.calls.length - before).toBeLessThanOrEqual(1);
  });

  it("buffers events pushed while the initial load is still paging", async () => {
    const fake = fakeRunsApi(range(1, 5));
    let release!: () => void;
    const original = fake.api.listEvents.getMockImplementation()!;
    fake.api.listEvents.mockImplementationOnce(async (...args) => {
      await new Promise<void>((resolve) => (release = resolve));
      return original(...args);
    });
    const store = new RunViewStore(fake.api, "run-1");
    const opening = store.open();
    await settle();
    // Two events commit during the first page request: 6 is pushed, 7 is pushed.
    fake.store(envelope(6), envelope(7));
    fake.push(envelope(7));
    fake.push(envelope(6));
    expect(store.count).toBe(0);
    release();
    await opening;
    await settle();
    expect(seqs(store)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("stops paging when the store has nothing to close the gap with (no busy loop)", async () => {
    const fake = fakeRunsApi(range(1, 3));
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    fake.push(envelope(9)); // never stored: the page comes back empty
    await settle();
    expect(seqs(store)).toEqual([1, 2, 3]);
    expect(fake.api.listEvents.mock.calls.length).toBe(2);
  });

  it("reload forgets everything and pages from seq 0 again", async () => {
    const fake = fakeRunsApi(range(1, 4));
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    store.streaming.set(2, "partial");
    fake.store(envelope(5));

    await store.reload();
    expect(fake.api.listEvents.mock.calls.map((c) => c[1])).toEqual([0, 0]);
    expect(seqs(store)).toEqual([1, 2, 3, 4, 5]);
    expect(store.streaming.size).toBe(0);
    expect(store.loaded).toBe(true);
  });

  it("reports a paging error and recovers on reload", async () => {
    const fake = fakeRunsApi(range(1, 2));
    fake.api.listEvents.mockResolvedValueOnce({ ok: false, error: { code: "storage", message: "database is locked" } });
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    expect(store.error).toEqual({ code: "storage", message: "database is locked" });
    expect(store.loaded).toBe(false);
    await store.reload();
    expect(store.error).toBeNull();
    expect(store.count).toBe(2);
  });

  it("unsubscribes on close and ignores pushes after it", async () => {
    const fake = fakeRunsApi(range(1, 1));
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    store.close();
    expect(fake.unlisten).toHaveBeenCalledTimes(2);
    fake.push(envelope(2));
    expect(store.count).toBe(1);
  });
});

describe("RunViewStore: streaming model text", () => {
  const started = (seq: number) => envelope(seq, { type: "model_call_started", provider: "p", model: "m" }, seq - 1);
  const requested = (seq: number) => envelope(seq, { type: "model_call_requested", context_version: "c1", context_bytes: 10 }, seq - 1);
  const completed = (seq: number, cause: number) =>
    envelope(seq, { type: "model_call_completed", action: { type: "final_answer", content: "done" }, usage: { input: 1, output: 1 }, stop_reason: "end_turn" }, cause);

  it("accumulates deltas per model call and drops them when the completion commits", async () => {
    const fake = fakeRunsApi([created(), envelope(2), requested(3), started(4)]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();

    fake.text(4, "Let me ");
    fake.text(4, "look.");
    fake.text(4, "other run", "run-2");
    expect(store.streaming.get(4)).toBe("Let me look.");
    expect(store.modelCallEnd(4)).toBeNull();

    fake.store(completed(5, 4));
    fake.push(completed(5, 4));
    expect(store.streaming.has(4)).toBe(false);
    expect(store.modelCallEnd(4)).toBe(5);
    // A late delta for a finished call is ignored.
    fake.text(4, " late");
    expect(store.streaming.has(4)).toBe(false);
    expect(store.requestedSeqOf(store.eventBySeq(5)!)).toBe(3);
  });
});

describe("RunViewStore: approvals, cancel, context", () => {
  const asked = [
    created(),
    envelope(2),
    envelope(3, { type: "tool_call_requested", call: { call_id: "c1", tool_name: "write_file", arguments: { path: "a.md" } } }),
    envelope(4, { type: "approval_requested", call_id: "c1", tool_name: "write_file", summary: "write a.md" }),
  ];

  it("sends the decision once and closes the request when the grant commits", async () => {
    const fake = fakeRunsApi(asked);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    expect(store.isAnswerable("c1")).toBe(true);
    expect(store.toolCallOf("c1")?.seq).toBe(3);

    await expect(store.decide("c1", "always")).resolves.toBe(true);
    expect(fake.api.decide).toHaveBeenCalledWith("run-1", "c1", { approve: true, scope: "tool_for_run", reason: null });
    expect(store.decisions.get("c1")).toEqual({ kind: "sent", choice: "always" });
    expect(store.isAnswerable("c1")).toBe(false);
    await expect(store.decide("c1", "approve")).resolves.toBe(false);
    expect(fake.api.decide).toHaveBeenCalledOnce();

    const granted = envelope(5, { type: "approval_granted", call_id: "c1", by: "user", scope: "tool_for_run" }, 4);
    fake.store(granted);
    fake.push(granted);
    expect(store.decisionOf("c1")?.seq).toBe(5);
  });

  it("sends a denial with its reason and shows a failed decision so it can be retried", async () => {
    const fake = fakeRunsApi(asked);
    fake.api.decide.mockResolvedValueOnce({ ok: false, error: { code: "not_found", message: "pending approval not found" } });
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();

    await expect(store.decide("c1", "deny", "  keep it  ")).resolves.toBe(false);
    expect(fake.api.decide).toHaveBeenCalledWith("run-1", "c1", { approve: false, scope: "once", reason: "keep it" });
    expect(store.decisions.get("c1")).toMatchObject({ kind: "failed", code: "not_found" });
    expect(store.isAnswerable("c1")).toBe(true);
  });

  it("an interrupted run's open request stays answerable; an ended run's does not", async () => {
    const interrupted = fakeRunsApi([...asked, envelope(5, { type: "run_interrupted", reason: "app stopped" })]);
    const a = new RunViewStore(interrupted.api, "run-1");
    await a.open();
    expect(a.isAnswerable("c1")).toBe(true);

    const cancelled = fakeRunsApi([...asked, envelope(5, { type: "run_cancelled", reason: null })]);
    const b = new RunViewStore(cancelled.api, "run-1");
    await b.open();
    expect(b.isAnswerable("c1")).toBe(false);
  });

  it("cancels and loads what the model saw", async () => {
    const fake = fakeRunsApi(asked);
    fake.api.cancel.mockResolvedValueOnce({ ok: false, error: { code: "conflict", message: "not running" } });
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    await store.cancel();
    expect(store.actionError?.code).toBe("conflict");

    await store.showContext(3);
    expect(fake.api.modelContext).toHaveBeenCalledWith("run-1", 3);
    expect(store.context).toMatchObject({ kind: "ready", requestedSeq: 3 });
    store.closeContext();
    expect(store.context).toBeNull();
  });

  it("gives focus to a request only once", async () => {
    const store = new RunViewStore(fakeRunsApi(asked).api, "run-1");
    expect(store.claimAutoFocus("c1")).toBe(true);
    expect(store.claimAutoFocus("c1")).toBe(false);
  });
});
