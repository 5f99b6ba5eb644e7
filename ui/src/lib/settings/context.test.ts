import { describe, expect, it } from "vitest";
import { compactAtToText, compactionLabel, compactionToForm, contextWindowLabel, contextWindowToText, parseCompactAt, parseCompaction, parseContextWindow } from "./context";

describe("context window field", () => {
  it("is optional: empty means the model family's default", () => {
    expect(parseContextWindow("")).toEqual({ value: null, error: null });
    expect(parseContextWindow("   ")).toEqual({ value: null, error: null });
    expect(contextWindowToText(null)).toBe("");
    expect(contextWindowToText(undefined)).toBe("");
  });

  it("takes whole numbers of tokens from 1,000 to 10,000,000, with separators", () => {
    expect(parseContextWindow("1000").value).toBe(1_000);
    expect(parseContextWindow("10,000,000").value).toBe(10_000_000);
    expect(parseContextWindow("128 000").value).toBe(128_000);
    expect(contextWindowToText(128_000)).toBe("128000");
  });

  it("refuses anything else with one message naming the range", () => {
    for (const bad of ["999", "0", "10000001", "12.5", "200k", "-2000", "lots"]) {
      const parsed = parseContextWindow(bad);
      expect(parsed.value, bad).toBeNull();
      expect(parsed.error, bad).toMatch(/whole number of tokens from 1,000 to 10,000,000; leave it empty/);
    }
  });

  it("labels a provider's window for its card", () => {
    expect(contextWindowLabel(32_000)).toBe("context window 32,000 tokens");
    expect(contextWindowLabel(null)).toBe("context window: the model's default");
  });
});

describe("compact at field", () => {
  it("takes a share of the window as typed, in per mille", () => {
    expect(parseCompactAt("0.85")).toEqual({ value: 850, error: null });
    expect(parseCompactAt(" .9 ").value).toBe(900);
    expect(parseCompactAt("0.1").value).toBe(100);
    expect(parseCompactAt("0.99").value).toBe(990);
    expect(parseCompactAt("0.875").value).toBe(875);
    expect(parseCompactAt("85%").value).toBe(850);
  });

  it("refuses shares outside 0.1 to 0.99 and non-numbers", () => {
    for (const bad of ["0.05", "0.995", "1", "85", "0,85", "", "half", "-0.5"]) {
      const parsed = parseCompactAt(bad);
      expect(parsed.value, bad).toBeNull();
      expect(parsed.error, bad).toMatch(/share of the window from 0\.1 to 0\.99/);
    }
  });

  it("writes per mille back as the config's share, so stored values round-trip", () => {
    for (const permille of [100, 700, 850, 875, 990]) {
      expect(parseCompactAt(compactAtToText(permille)).value).toBe(permille);
    }
  });

  it("maps on/off: absent is the default 0.85, null is off (the share kept for turning it back on)", () => {
    expect(compactionToForm(undefined)).toEqual({ compaction: true, compactAt: "0.85" });
    expect(compactionToForm(700)).toEqual({ compaction: true, compactAt: "0.7" });
    expect(compactionToForm(null)).toEqual({ compaction: false, compactAt: "0.85" });
    expect(parseCompaction({ compaction: false, compactAt: "not checked" })).toEqual({ value: null, error: null });
    expect(parseCompaction({ compaction: true, compactAt: "0.6" })).toEqual({ value: 600, error: null });
    expect(parseCompaction({ compaction: true, compactAt: "2" }).error).toMatch(/0\.1 to 0\.99/);
  });

  it("labels a profile's compaction for its card", () => {
    expect(compactionLabel(850)).toBe("compacts at 0.85 of the window");
    expect(compactionLabel(undefined)).toBe("compacts at 0.85 of the window");
    expect(compactionLabel(null)).toMatch(/^compaction off: a request over the window fails the run/);
  });
});
