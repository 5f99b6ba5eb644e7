import { describe, expect, it, vi } from "vitest";
import type { Outcome } from "../ipc/outcome";
import { CommandOutputs, liveText } from "./commandOutput.svelte";
import { ok } from "./testSupport";

const fetcher = () => vi.fn(async (callId: string): Promise<Outcome<string>> => ok(`stored ${callId}\n`));

describe("CommandOutputs", () => {
  it("batches live chunks and applies them on flush", () => {
    vi.useFakeTimers();
    try {
      const outputs = new CommandOutputs(fetcher(), { flushMs: 50 });
      outputs.begin("c1");
      outputs.push("c1", "a");
      outputs.push("c1", "b\n");
      expect(outputs.live.get("c1")).toBeUndefined();
      vi.advanceTimersByTime(50);
      const live = outputs.live.get("c1")!;
      expect(liveText(live)).toBe("ab\n");
      expect(live).toMatchObject({ received: 3, dropped: 0, fromStart: true });
    } finally {
      vi.useRealTimers();
    }
  });

  it("applies what is pending when the command finishes and ignores later chunks", () => {
    const outputs = new CommandOutputs(fetcher(), { flushMs: 10_000 });
    outputs.push("c1", "last line\n");
    outputs.finish("c1");
    expect(liveText(outputs.live.get("c1")!)).toBe("last line\n");
    expect(outputs.live.get("c1")?.fromStart).toBe(false);
    outputs.push("c1", "stale");
    outputs.flush();
    expect(liveText(outputs.live.get("c1")!)).toBe("last line\n");
    expect(outputs.isFinished("c1")).toBe(true);
    outputs.close();
  });

  it("keeps the live output of the newest finished commands only", () => {
    const outputs = new CommandOutputs(fetcher(), { keepLive: 2 });
    for (const id of ["c1", "c2", "c3"]) {
      outputs.push(id, id);
      outputs.finish(id);
    }
    expect([...outputs.live.keys()]).toEqual(["c2", "c3"]);
  });

  it("fetches stored output once, again after a failure, and evicts the oldest over its budget", async () => {
    const fetch = fetcher();
    fetch.mockResolvedValueOnce({ ok: false, error: { code: "not_found", message: "gone" } });
    const outputs = new CommandOutputs(fetch, { storedBudget: 25 });
    await outputs.load("c1");
    expect(outputs.stored.get("c1")).toEqual({ kind: "failed", error: { code: "not_found", message: "gone" } });
    await outputs.load("c1");
    await outputs.load("c1");
    expect(outputs.stored.get("c1")).toEqual({ kind: "ready", text: "stored c1\n" });
    expect(fetch).toHaveBeenCalledTimes(2);
    await outputs.load("c2");
    await outputs.load("c1"); // used again: now the newest
    await outputs.load("c3");
    expect([...outputs.stored.keys()]).toEqual(["c1", "c3"]);
  });
});
