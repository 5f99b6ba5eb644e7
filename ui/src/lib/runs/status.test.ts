import { describe, expect, it } from "vitest";
import type { RunStatus } from "../../bindings";
import { budgetName, isLive, isTerminal, statusKind, verdict } from "./status";
import { projection } from "./testSupport";

const ALL: RunStatus[] = [
  { kind: "created" }, { kind: "running" }, { kind: "awaiting_approval" }, { kind: "succeeded" },
  { kind: "failed", reason: "boom" }, { kind: "cancelled" }, { kind: "budget_exhausted", which: "tool_calls" }, { kind: "interrupted" },
];

describe("run status", () => {
  it("spells a list status as the projection's kind (one spelling across IPC)", () => {
    for (const status of ALL) expect(statusKind(status)).toBe(status.kind);
    expect(statusKind({ kind: "awaiting_approval" })).toBe("awaiting_approval");
  });

  it("knows what is live, terminal, or neither (interrupted can resume)", () => {
    expect(ALL.filter(isLive).map((s) => s.kind)).toEqual(["created", "running", "awaiting_approval"]);
    expect(ALL.filter(isTerminal).map((s) => s.kind)).toEqual(["succeeded", "failed", "cancelled", "budget_exhausted"]);
    expect(isTerminal({ kind: "interrupted" }) || isLive({ kind: "interrupted" })).toBe(false);
  });

  it("only a clean success is shown as success", () => {
    for (const status of ALL) {
      const v = verdict(projection({ status }));
      expect(v.tone === "success").toBe(status.kind === "succeeded");
    }
    const unknown = verdict(projection({ status: { kind: "succeeded" }, unknown_effects: 2 }));
    expect(unknown.tone).toBe("attention");
    expect(unknown.label).toMatch(/unknown/);
    expect(unknown.detail).toMatch(/2 side effects with unknown outcome/);
  });

  it("explains failures, budgets and interruptions in words", () => {
    expect(verdict(projection({ status: { kind: "failed", reason: "provider error: 503" } }))).toMatchObject({ tone: "danger", detail: "provider error: 503" });
    expect(verdict(projection({ status: { kind: "budget_exhausted", which: "input_tokens" } })).detail).toMatch(/input tokens budget/);
    // The cost limit stops a run before a call that could pass it, so it says so (and names the limit).
    const capped = projection({ status: { kind: "budget_exhausted", which: "cost" }, budgets: { ...projection().budgets, max_cost_micro_usd: 500_000 } });
    expect(verdict(capped)).toMatchObject({ label: "Cost limit reached", tone: "attention" });
    expect(verdict(capped).detail).toBe("Stopped before the next model call: it could have taken the cost past the limit ($0.5000).");
    const waiting = verdict(projection({ status: { kind: "interrupted" }, pending_approval: { call_id: "c", tool_name: "write_file", summary: "s", requested_seq: 9 } }));
    expect(waiting).toMatchObject({ label: "Interrupted", tone: "danger" });
    expect(waiting.detail).toMatch(/Answer the request below to resume/);
    expect(verdict(projection({ status: { kind: "interrupted" } })).detail).toMatch(/did not finish/);
  });

  it("names every budget in words", () => {
    expect(budgetName("wall_time")).toBe("wall time");
    expect(budgetName("cost")).toBe("cost");
    expect(budgetName("some_new_kind")).toBe("some new kind");
  });
});
