import { describe, expect, it } from "vitest";
import { dateFormat, formatBytes, formatCount, formatDuration, formatTimestamp, formatTokens, formatUsd, formatUsdPerMtok, millisBetween, numberFormat, statusInfo } from "./format";

describe("statusInfo", () => {
  it("labels every status and never shows a non-terminal one as success", () => {
    expect(statusInfo("awaiting_approval")).toEqual({ label: "Awaiting approval", tone: "attention" });
    expect(statusInfo("succeeded").tone).toBe("success");
    for (const status of ["created", "running", "interrupted", "failed", "cancelled", "budget_exhausted"]) {
      expect(statusInfo(status).tone).not.toBe("success");
    }
    expect(statusInfo("somethingNew")).toEqual({ label: "somethingNew", tone: "neutral" });
  });
});

describe("formatTokens", () => {
  it("abbreviates large counts", () => {
    expect(formatTokens(0, "en-US")).toBe("0");
    expect(formatTokens(9_999, "en-US")).toBe("9,999");
    expect(formatTokens(12_345, "en-US")).toBe("12.3k");
    expect(formatTokens(4_500_000, "en-US")).toBe("4.5M");
    expect(formatTokens(-1, "en-US")).toBe("—");
  });
});

describe("formatTimestamp", () => {
  it("formats RFC 3339 and keeps unparseable text", () => {
    expect(formatTimestamp("2025-03-14T09:30:00Z", "en-US", "UTC")).toBe("Mar 14, 2025, 9:30 AM");
    expect(formatTimestamp("not a date")).toBe("not a date");
  });
});

describe("formatDuration, formatBytes, millisBetween", () => {
  it("formats durations from milliseconds to hours", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(42_000)).toBe("42 s");
    expect(formatDuration(185_000)).toBe("3 min 05 s");
    expect(formatDuration(2 * 3_600_000 + 4 * 60_000)).toBe("2 h 04 min");
    expect(formatDuration(-1)).toBe("—");
  });

  it("formats byte counts", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(2048)).toBe("2.0 KB");
    expect(formatBytes(1.5 * 1024 * 1024)).toBe("1.5 MB");
  });

  it("measures between timestamps or to now", () => {
    expect(millisBetween("2025-03-14T09:30:00Z", "2025-03-14T09:31:30Z")).toBe(90_000);
    expect(millisBetween("2025-03-14T09:30:00Z", Date.parse("2025-03-14T09:30:05Z"))).toBe(5_000);
    expect(millisBetween("nope", "2025-03-14T09:30:00Z")).toBeNull();
  });
});

describe("formatUsd", () => {
  it("prints micro-USD like the CLI and never shows an unknown cost as $0", () => {
    expect(formatUsd(null)).toBe("unknown");
    expect(formatUsd(undefined)).toBe("unknown");
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(1)).toBe("<$0.0001");
    expect(formatUsd(99)).toBe("<$0.0001");
    expect(formatUsd(100)).toBe("$0.0001");
    expect(formatUsd(12_300)).toBe("$0.0123");
    expect(formatUsd(48_236)).toBe("$0.0482");
    expect(formatUsd(1_000_000)).toBe("$1.00");
    expect(formatUsd(1_500_000)).toBe("$1.50");
    expect(formatUsd(1_234_567_890)).toBe("$1234.57");
    expect(formatUsd(-5)).toBe("unknown");
    expect(formatUsd(Number.NaN)).toBe("unknown");
  });

  it("prints prices per million tokens as configured", () => {
    expect(formatUsdPerMtok(3)).toBe("$3.00");
    expect(formatUsdPerMtok(0.075)).toBe("$0.075");
    expect(formatUsdPerMtok(15)).toBe("$15.00");
  });
});

describe("formatters", () => {
  it("are made once for each locale and options, and format as a new one would", () => {
    expect(numberFormat("en-US")).toBe(numberFormat("en-US"));
    expect(numberFormat("en-US", { maximumFractionDigits: 1 })).not.toBe(numberFormat("en-US"));
    expect(dateFormat("en-US", { dateStyle: "medium" })).toBe(dateFormat("en-US", { dateStyle: "medium" }));
    expect(formatCount(1234567, "en-US")).toBe(new Intl.NumberFormat("en-US").format(1234567));
  });
});
