import { describe, expect, it } from "vitest";
import { Router, hrefFor, parseHash } from "./router.svelte";

describe("routes", () => {
  it("parses and builds hashes", () => {
    expect(parseHash("")).toEqual({ name: "home" });
    expect(parseHash("#/settings")).toEqual({ name: "settings" });
    expect(parseHash("#/run/run%2F1")).toEqual({ name: "run", runId: "run/1" });
    expect(parseHash("#/run/")).toEqual({ name: "home" });
    expect(parseHash("#/nowhere")).toEqual({ name: "home" });
    expect(hrefFor({ name: "run", runId: "run/1" })).toBe("#/run/run%2F1");
  });

  it("follows hash changes and navigates", () => {
    const listeners: (() => void)[] = [];
    const win = {
      location: { hash: "#/settings" } as Location,
      addEventListener: (_: string, fn: () => void) => listeners.push(fn),
      removeEventListener: () => listeners.pop(),
    } as unknown as Window;
    const router = new Router(win);
    expect(router.route).toEqual({ name: "settings" });
    const stop = router.start();
    win.location.hash = "#/run/abc";
    listeners.forEach((fn) => fn());
    expect(router.route).toEqual({ name: "run", runId: "abc" });
    router.go({ name: "home" });
    expect(win.location.hash).toBe("#/");
    stop();
    expect(listeners).toHaveLength(0);
  });
});
