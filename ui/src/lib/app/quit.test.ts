import { describe, expect, it, vi } from "vitest";
import type { QuitRequested } from "../../bindings";
import { QuitPrompt } from "./quit.svelte";

function fake() {
  let handler: ((r: QuitRequested) => void) | null = null;
  const api = {
    onQuitRequested: vi.fn(async (h: (r: QuitRequested) => void) => {
      handler = h;
      return () => (handler = null);
    }),
    quit: vi.fn(async () => ({ ok: true as const, value: null })),
  };
  return { api, ask: (activeRuns: string[]) => handler?.({ activeRuns }) };
}

describe("QuitPrompt", () => {
  it("asks when the backend reports active runs; staying does nothing", async () => {
    const { api, ask } = fake();
    const prompt = new QuitPrompt(api);
    await prompt.start();
    ask(["r1", "r2"]);
    expect(prompt.activeRuns).toEqual(["r1", "r2"]);
    prompt.stay();
    expect(prompt.activeRuns).toBeNull();
    expect(api.quit).not.toHaveBeenCalled();
  });

  it("quits anyway on request and shows an error if that fails", async () => {
    const { api, ask } = fake();
    api.quit.mockResolvedValueOnce({ ok: false, error: { code: "internal", message: "nope" } } as never);
    const prompt = new QuitPrompt(api);
    await prompt.start();
    ask(["r1"]);
    await prompt.quit();
    expect(api.quit).toHaveBeenCalledOnce();
    expect(prompt.error).toEqual({ code: "internal", message: "nope" });
    prompt.stop();
  });
});
