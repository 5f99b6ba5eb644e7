import { describe, expect, it, vi } from "vitest";
import type { LiveUpdate } from "../../bindings";
import { startLivePull, type NextLiveUpdates } from "./livePull";

const text = (t: string): LiveUpdate => ({ kind: "model_text", runId: "r1", modelCall: 1, text: t });
const ok = (cursor: number, updates: LiveUpdate[], skipped = 0) => ({ status: "ok" as const, data: { cursor, skipped, updates } });

/** A shell answering from a script of pages; then it waits forever, as a long poll would. */
function shell(pages: Awaited<ReturnType<NextLiveUpdates>>[]) {
  const asked: (number | null)[] = [];
  const next: NextLiveUpdates = (cursor) => {
    asked.push(cursor);
    const page = pages.shift();
    return page ? Promise.resolve(page) : new Promise(() => {});
  };
  return { asked, next };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("startLivePull", () => {
  it("starts from the shell's cursor, then asks with each answer's cursor and delivers in order", async () => {
    const { asked, next } = shell([ok(7, []), ok(9, [text("a"), text("b")]), ok(10, [text("c")])]);
    const seen: string[] = [];
    const stop = await startLivePull(next, (u) => seen.push(u.kind === "model_text" ? u.text : u.kind));
    await settle();
    expect(asked).toEqual([null, 7, 9, 10]);
    expect(seen).toEqual(["a", "b", "c"]);
    stop();
  });

  it("fails to start when the first ask fails, and asks again after a later failure", async () => {
    const refused = { status: "error" as const, error: { code: "internal" as const, message: "no" } };
    await expect(startLivePull(shell([refused]).next, () => {})).rejects.toEqual(refused.error);

    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { asked, next } = shell([ok(1, []), refused, ok(2, [text("x")], 3)]);
    const seen: LiveUpdate[] = [];
    const stop = await startLivePull(next, (u) => seen.push(u), 5);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(asked).toEqual([null, 1, 1, 2]);
    expect(seen).toEqual([text("x")]);
    expect(warn).toHaveBeenCalledWith("live updates: 3 missed");
    warn.mockRestore();
    stop();
  });

  it("keeps delivering when a handler throws, and stops asking once stopped", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const release: { pass?: () => void } = {};
    const asked: (number | null)[] = [];
    const pages = [ok(0, []), ok(2, [text("bad"), text("good")])];
    const next: NextLiveUpdates = (cursor) => {
      asked.push(cursor);
      const page = pages.shift();
      if (page) return Promise.resolve(page);
      return new Promise((resolve) => (release.pass = () => resolve(ok(3, [text("late")]))));
    };
    const seen: string[] = [];
    const stop = await startLivePull(next, (u) => {
      if (u.kind === "model_text" && u.text === "bad") throw new Error("handler bug");
      seen.push(u.kind === "model_text" ? u.text : u.kind);
    });
    await settle();
    expect(seen).toEqual(["good"]);
    expect(error).toHaveBeenCalledTimes(1);
    stop();
    release.pass?.();
    await settle();
    expect(seen).toEqual(["good"]);
    expect(asked).toEqual([null, 0, 2]);
    error.mockRestore();
  });
});
