import { describe, expect, it } from "vitest";
import type { EventEnvelope, RunStatus } from "../../bindings";
import { RunViewStore } from "./runView.svelte";
import { envelope, fakeRunsApi, ok, projection, settle } from "./testSupport";

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
    expect(fake.unlisten).toHaveBeenCalledTimes(5);
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

  it("drops the text of an attempt that failed mid-stream and shows only the retry's", async () => {
    const fake = fakeRunsApi([created(), envelope(2), requested(3), started(4)]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();

    fake.text(4, "Hel");
    fake.discard(4, "run-2");
    expect(store.streaming.get(4)).toBe("Hel");
    fake.discard(4);
    expect(store.streaming.has(4)).toBe(false);
    fake.text(4, "Hello again.");
    expect(store.streaming.get(4)).toBe("Hello again.");
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

describe("RunViewStore: a run another process executes", () => {
  const asked = [
    created(),
    envelope(2),
    envelope(3, { type: "tool_call_requested", call: { call_id: "c1", tool_name: "write_file", arguments: { path: "a.md" } } }),
    envelope(4, { type: "approval_requested", call_id: "c1", tool_name: "write_file", summary: "write a.md" }),
  ];
  const cli = { kind: "elsewhere", pid: 4242, program: "bearagent" } as const;
  const elsewhere = (status: RunStatus = { kind: "awaiting_approval" }, lastSeq = 4) => ({
    projection: projection({ status, last_seq: lastSeq }),
    active: false,
    owner: cli,
  });
  const finished = (lastSeq: number) => ({
    projection: projection({ status: { kind: "succeeded" }, last_seq: lastSeq }),
    active: false,
    owner: { kind: "nobody" } as const,
  });

  it("shows its open request read-only: nothing to approve, deny or cancel from here", async () => {
    const fake = fakeRunsApi(asked);
    fake.setDetail(elsewhere());
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();

    expect(store.otherOwner).toEqual(cli);
    expect(store.isAnswerable("c1")).toBe(false);
    expect(store.awaitsOtherProcess("c1")).toBe(true);
    await expect(store.decide("c1", "approve")).resolves.toBe(false);
    await store.cancel();
    expect(fake.api.decide).not.toHaveBeenCalled();
    expect(fake.api.cancel).not.toHaveBeenCalled();
  });

  it("answers nothing before the detail says who executes the run", async () => {
    const fake = fakeRunsApi(asked);
    let release!: () => void;
    fake.api.get.mockImplementationOnce(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return ok(elsewhere());
    });
    const store = new RunViewStore(fake.api, "run-1");
    const opening = store.open();
    await settle();
    expect(store.loaded).toBe(true);
    expect(store.isAnswerable("c1")).toBe(false);
    release();
    await opening;
    expect(store.isAnswerable("c1")).toBe(false);
    expect(store.awaitsOtherProcess("c1")).toBe(true);
  });

  it("follows it to its end: the terminal event refreshes status and owner", async () => {
    const fake = fakeRunsApi(asked);
    fake.setDetail(elsewhere());
    const store = new RunViewStore(fake.api, "run-1", { refreshDelayMs: 0 });
    await store.open();

    const events = [
      envelope(5, { type: "approval_granted", call_id: "c1", by: "user", scope: "once" }, 4),
      envelope(6, { type: "run_succeeded", answer: "done" }),
    ];
    fake.store(...events);
    fake.setDetail(finished(6));
    events.forEach((e) => fake.push(e));
    await settle(5);

    expect(store.detail?.projection.status.kind).toBe("succeeded");
    expect(store.detail?.owner.kind).toBe("nobody");
    expect(store.otherOwner).toBeNull();
    expect(store.awaitsOtherProcess("c1")).toBe(false);
  });

  it("refreshes when events newer than the detail arrive during the first load", async () => {
    const fake = fakeRunsApi(asked);
    fake.setDetail(elsewhere());
    let release!: () => void;
    const original = fake.api.listEvents.getMockImplementation()!;
    fake.api.listEvents.mockImplementationOnce(async (...args) => {
      await new Promise<void>((resolve) => (release = resolve));
      return original(...args);
    });
    const store = new RunViewStore(fake.api, "run-1", { refreshDelayMs: 0 });
    const opening = store.open();
    await settle();
    expect(store.detail?.projection.last_seq).toBe(4);

    // The other process ends the run while the first page is on its way.
    const ended = envelope(5, { type: "run_cancelled", reason: "cancelled in the CLI" });
    fake.store(ended);
    fake.setDetail({ ...finished(5), projection: projection({ status: { kind: "cancelled" }, last_seq: 5 }) });
    fake.push(ended);
    release();
    await opening;
    await settle(5);

    expect(store.detail?.projection.status.kind).toBe("cancelled");
    expect(store.otherOwner).toBeNull();
  });

  it("asks again when events arrive while the detail is on its way", async () => {
    const fake = fakeRunsApi(asked);
    const stale = elsewhere();
    let releaseGet!: () => void;
    let releasePage!: () => void;
    fake.api.get.mockImplementationOnce(async () => {
      await new Promise<void>((resolve) => (releaseGet = resolve));
      return ok(stale);
    });
    const original = fake.api.listEvents.getMockImplementation()!;
    fake.api.listEvents.mockImplementationOnce(async (...args) => {
      await new Promise<void>((resolve) => (releasePage = resolve));
      return original(...args);
    });
    const store = new RunViewStore(fake.api, "run-1", { refreshDelayMs: 0 });
    const opening = store.open();
    await settle();

    const ended = envelope(5, { type: "run_succeeded", answer: "done" });
    fake.store(ended);
    fake.setDetail(finished(5));
    fake.push(ended);
    releasePage();
    await settle();
    releaseGet();
    await opening;
    await settle(5);

    expect(store.detail?.projection.status.kind).toBe("succeeded");
    expect(fake.api.get).toHaveBeenCalledTimes(2);
  });

  it("does not refresh again and again when the detail already matches the log", async () => {
    const fake = fakeRunsApi(asked);
    fake.setDetail(elsewhere());
    const store = new RunViewStore(fake.api, "run-1", { refreshDelayMs: 0 });
    await store.open();
    await settle(5);
    expect(fake.api.get).toHaveBeenCalledTimes(1);
  });

  it("ignores a stale owner once the run has ended", async () => {
    const fake = fakeRunsApi([...asked, envelope(5, { type: "run_succeeded", answer: "done" })]);
    fake.setDetail(elsewhere({ kind: "succeeded" }, 5));
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    expect(store.otherOwner).toBeNull();
    expect(store.awaitsOtherProcess("c1")).toBe(false);
  });
});

describe("RunViewStore: a run aborted in this process", () => {
  it("keeps the reason and refreshes the detail; other runs' aborts are ignored", async () => {
    const fake = fakeRunsApi([created(), envelope(2)]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    expect(fake.api.onRunAborted).toHaveBeenCalledOnce();
    const gets = fake.api.get.mock.calls.length;

    fake.abort("disk full", "run-2");
    expect(store.aborted).toBeNull();

    fake.setDetail({ projection: projection({ status: { kind: "failed", reason: "disk full" }, last_seq: 2 }), active: false, owner: { kind: "nobody" } });
    fake.abort("BearAgent could not record this run's events: disk full");
    await settle();
    expect(store.aborted).toBe("BearAgent could not record this run's events: disk full");
    expect(fake.api.get.mock.calls.length).toBe(gets + 1);
    expect(store.detail?.projection.status.kind).toBe("failed");
  });
});
