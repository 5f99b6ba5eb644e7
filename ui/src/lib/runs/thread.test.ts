import { describe, expect, it, vi } from "vitest";
import type { ApiError, StartedRun, ThreadRunView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import { ReplyStore, ThreadStore } from "./thread.svelte";
import { PNG, PNG_BASE64, ok, runSummary } from "./testSupport";

const fail = (code: ApiError["code"], message = "no"): Outcome<never> => ({ ok: false, error: { code, message } });

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const thread: ThreadRunView[] = [
  { run: runSummary({ runId: "r1" }), finalAnswer: "Plan written.", forkedAt: null },
  { run: runSummary({ runId: "r2", parentRunId: "r1" }), finalAnswer: null, forkedAt: 9 },
];

describe("ThreadStore", () => {
  it("reads the thread once and lists the earlier runs", async () => {
    const api = { thread: vi.fn(async () => ok(thread)) };
    const store = new ThreadStore(api, "r2");
    expect(store.earlier).toEqual([]);
    await store.ensureLoaded();
    await store.ensureLoaded();
    expect(api.thread).toHaveBeenCalledOnce();
    expect(api.thread).toHaveBeenCalledWith("r2");
    expect(store.earlier.map((e) => e.run.runId)).toEqual(["r1"]);
    store.toggle("r1");
    expect(store.expanded.has("r1")).toBe(true);
    store.toggle("r1");
    expect(store.expanded.has("r1")).toBe(false);
  });

  it("keeps the error and loads again when asked", async () => {
    const api = { thread: vi.fn(async (): Promise<Outcome<ThreadRunView[]>> => fail("not_found", "run not found")) };
    const store = new ThreadStore(api, "r2");
    await store.ensureLoaded();
    expect(store.error?.code).toBe("not_found");
    expect(store.entries).toBeNull();
    api.thread.mockResolvedValue(ok(thread));
    await store.ensureLoaded();
    expect(store.error).toBeNull();
    expect(store.entries).toHaveLength(2);
  });

  it("ignores an answer that arrives after the view closed", async () => {
    const late = deferred<Outcome<ThreadRunView[]>>();
    const store = new ThreadStore({ thread: () => late.promise }, "r2");
    const loading = store.load();
    store.close();
    late.resolve(ok(thread));
    await loading;
    expect(store.entries).toBeNull();
  });
});

describe("ReplyStore", () => {
  const setup = () => {
    const api = { reply: vi.fn(async (): Promise<Outcome<StartedRun>> => ok({ runId: "r9" })) };
    const started = vi.fn();
    return { api, started, store: new ReplyStore(api, "r1", started) };
  };

  it("sends nothing while the message is empty; sends the trimmed reply and opens the new run", async () => {
    const { api, started, store } = setup();
    expect(store.canReply).toBe(false);
    store.message = "   ";
    expect(await store.reply()).toBe(false);
    expect(api.reply).not.toHaveBeenCalled();

    store.message = "  and add tests  ";
    expect(await store.reply()).toBe(true);
    expect(api.reply).toHaveBeenCalledWith("r1", "and add tests", null, []);
    expect(started).toHaveBeenCalledWith("r9");
    expect(store.message).toBe("");
    expect(store.sending).toBeNull();
  });

  it("keeps the draft and the error when the backend refuses", async () => {
    const { api, started, store } = setup();
    api.reply.mockResolvedValue(fail("conflict", "run r1 is still in progress"));
    store.message = "go on";
    expect(await store.reply()).toBe(false);
    expect(store.replyError).toEqual({ code: "conflict", message: "run r1 is still in progress" });
    expect(store.message).toBe("go on");
    expect(started).not.toHaveBeenCalled();
  });

  it("sends the box's images with the reply and clears them once it started; keeps them when refused", async () => {
    const { api, store } = setup();
    await store.images.add([new File([PNG], "error.png")]);
    store.message = "this is what I see";
    api.reply.mockResolvedValueOnce(fail("invalid_input", "provider local does not read images"));
    expect(await store.reply()).toBe(false);
    expect(store.images.items.map((i) => i.name)).toEqual(["error.png"]);
    expect(await store.reply()).toBe(true);
    expect(api.reply).toHaveBeenLastCalledWith("r1", "this is what I see", null, [{ name: "error.png", dataBase64: PNG_BASE64 }]);
    expect(store.images.items).toEqual([]);
  });

  it("waits for images still being read before it can send", async () => {
    const { store } = setup();
    store.message = "look";
    const reading = store.images.add([new File([PNG], "a.png")]);
    expect(store.canReply).toBe(false);
    await reading;
    expect(store.canReply).toBe(true);
  });

  it("sends one request at a time", async () => {
    const { api, store } = setup();
    const pending = deferred<Outcome<StartedRun>>();
    api.reply.mockReturnValue(pending.promise);
    store.message = "one";
    const first = store.reply();
    expect(store.sending).toBe("reply");
    expect(store.canReply).toBe(false);
    store.openFork(3);
    store.forkMessage = "two";
    expect(store.canFork).toBe(false);
    expect(await store.fork()).toBe(false);
    pending.resolve(ok({ runId: "r9" }));
    await first;
    expect(api.reply).toHaveBeenCalledOnce();
    expect(store.canFork).toBe(true);
  });

  it("forks at the open row's seq; a new row starts a fresh draft; focus is claimed once", async () => {
    const { api, started, store } = setup();
    store.openFork(4);
    expect(store.claimForkFocus()).toBe(true);
    expect(store.claimForkFocus()).toBe(false);
    store.forkMessage = "try the other way";
    store.openFork(4);
    expect(store.forkMessage).toBe("try the other way");
    store.openFork(6);
    expect(store.forkMessage).toBe("");
    store.forkMessage = "try the other way";
    api.reply.mockResolvedValueOnce(fail("invalid_input", "cannot fork at 6"));
    expect(await store.fork()).toBe(false);
    expect(store.forkError?.code).toBe("invalid_input");
    expect(store.forkAt).toBe(6);

    expect(await store.fork()).toBe(true);
    expect(api.reply).toHaveBeenLastCalledWith("r1", "try the other way", 6, []);
    expect(started).toHaveBeenCalledWith("r9");
    expect(store.forkAt).toBeNull();
    expect(store.forkError).toBeNull();
  });

  it("closing the prompt drops its draft and error", () => {
    const { store } = setup();
    store.openFork(2);
    store.forkMessage = "x";
    store.closeFork();
    expect(store.forkAt).toBeNull();
    expect(store.forkMessage).toBe("");
    expect(store.canFork).toBe(false);
  });
});
