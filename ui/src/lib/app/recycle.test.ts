import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IdleOutcome } from "../../bindings";
import { IdleWatcher, hasUnsavedTyping, keepOnRecycle, takeKept, type PageApi } from "./recycle";

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => void items.set(k, v),
  };
}

function pageApi(answer: IdleOutcome) {
  const api = {
    idles: 0,
    pageReady: async () => ({ ok: true as const, value: { idle_ms: 1000, off: false } }),
    pageIdle: async () => {
      api.idles++;
      return { ok: true as const, value: answer };
    },
  };
  return api satisfies PageApi;
}

/** Starts a watcher under fake timers (its settle wait is a timer too). */
async function start(watcher: IdleWatcher) {
  const started = watcher.start();
  await vi.advanceTimersByTimeAsync(0);
  await started;
}

/** A window with a document whose text fields are `fields` (no DOM in these tests). */
function fakeWindow(fields: { value: string; defaultValue: string }[] = []) {
  const doc = Object.assign(new EventTarget(), { visibilityState: "visible", querySelectorAll: () => fields });
  return Object.assign(new EventTarget(), { document: doc }) as unknown as Window;
}

describe("recycling an idle page's web process", () => {
  let window: Window;
  beforeEach(() => {
    vi.useFakeTimers();
    window = fakeWindow();
  });
  afterEach(() => vi.useRealTimers());

  it("offers after the policy's idle time, and input puts the offer off", async () => {
    const api = pageApi({ kind: "kept", web_kb: 1, baseline_kb: 1 });
    const watcher = new IdleWatcher(api, window, memoryStorage(), 0);
    await start(watcher);
    await vi.advanceTimersByTimeAsync(900);
    window.dispatchEvent(new Event("keydown"));
    await vi.advanceTimersByTimeAsync(900);
    expect(api.idles).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(api.idles).toBe(1);
    // Kept: it offers again after another idle time.
    await vi.advanceTimersByTimeAsync(1000);
    expect(api.idles).toBe(2);
    watcher.stop();
  });

  it("never offers while typed text would be lost", async () => {
    const api = pageApi({ kind: "kept", web_kb: 1, baseline_kb: 1 });
    window = fakeWindow([{ value: "half a goal", defaultValue: "" }]);
    expect(hasUnsavedTyping(window.document)).toBe(true);
    expect(hasUnsavedTyping(fakeWindow([{ value: "  ", defaultValue: "" }]).document)).toBe(false);
    const watcher = new IdleWatcher(api, window, memoryStorage(), 0);
    await start(watcher);
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.idles).toBe(0);
    watcher.stop();
  });

  it("keeps the views' places for the page in the new process, read once; dropped when not recycled", async () => {
    const storage = memoryStorage();
    const unregister = keepOnRecycle(() => ["run:r1", { tab: "timeline" }]);
    const recycling = new IdleWatcher(pageApi({ kind: "recycling", web_kb: 300, baseline_kb: 170 }), window, storage, 0);
    await start(recycling);
    await vi.advanceTimersByTimeAsync(1000);
    recycling.stop();
    expect(takeKept("run:r1", storage)).toEqual({ tab: "timeline" });
    expect(takeKept("run:r1", storage)).toBeNull();

    const kept = new IdleWatcher(pageApi({ kind: "runs_active" }), window, storage, 0);
    await start(kept);
    await vi.advanceTimersByTimeAsync(1000);
    kept.stop();
    expect(takeKept("run:r1", storage)).toBeNull();
    unregister();
  });

  it("does nothing when the shell turned recycling off", async () => {
    const api = { ...pageApi({ kind: "unknown" }), pageReady: async () => ({ ok: true as const, value: { idle_ms: 1000, off: true } }) };
    const watcher = new IdleWatcher(api, window, memoryStorage(), 0);
    await start(watcher);
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.idles).toBe(0);
  });
});
