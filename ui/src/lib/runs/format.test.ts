import { describe, expect, it } from "vitest";
import { formatTimestamp, formatTokens, statusInfo } from "./format";

describe("statusInfo", () => {
  it("labels every status and never shows a non-terminal one as success", () => {
    expect(statusInfo("awaitingApproval")).toEqual({ label: "Awaiting approval", tone: "attention" });
    expect(statusInfo("succeeded").tone).toBe("success");
    for (const status of ["created", "running", "interrupted", "failed", "cancelled", "budgetExhausted"]) {
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
