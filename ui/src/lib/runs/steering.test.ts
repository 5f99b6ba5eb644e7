import { describe, expect, it } from "vitest";
import type { EventEnvelope, EventPayload, TodoItem } from "../../bindings";
import { decisionFor } from "./approvals";
import { ConversationFold } from "./conversation";
import { PLAN_APPROVAL_MESSAGE, createdTitle, isPlanMode, planApprovalMessage, planEdited } from "./plan";
import { todoNote, todoProgress, todoShort, todoSummary } from "./todo";
import { ruleWhere, rememberFromValue } from "../settings/remembered";

const ITEMS: TodoItem[] = [
  { step: "a", status: "completed" },
  { step: "b", status: "in_progress" },
  { step: "c", status: "pending" },
];

const envelope = (seq: number, payload: EventPayload): EventEnvelope => ({ schema_version: 1, run_id: "r", seq, at: "2025-03-14T09:30:00Z", cause: null, payload });

function created(planMode: boolean): EventPayload {
  return { type: "run_created", goal: "g", workspace_id: "w", workspace_path: "/w", profile: "default", provider: "demo", model: "m", ...(planMode ? { plan_mode: true } : {}) } as EventPayload;
}

describe("todo list", () => {
  it("counts finished steps and says so", () => {
    expect(todoProgress(ITEMS)).toEqual({ done: 1, total: 3 });
    expect(todoSummary(ITEMS)).toBe("1 of 3 done");
    expect(todoNote(ITEMS)).toBe("Plan updated: 1 of 3 done");
    expect(todoNote([])).toBe("Plan cleared");
    expect(todoShort(ITEMS)).toBe("1/3");
    expect(todoShort(undefined)).toBeNull();
  });
});

describe("plan mode", () => {
  it("reads plan_mode from run_created", () => {
    expect(isPlanMode(created(true))).toBe(true);
    expect(isPlanMode(created(false))).toBe(false);
    expect(createdTitle(created(true) as Extract<EventPayload, { type: "run_created" }>)).toBe("Run created · plan mode");
  });

  it("marks a plan-mode run's answer as the plan, and folds todo updates into one quiet line", () => {
    for (const planMode of [true, false]) {
      const fold = new ConversationFold();
      fold.add(envelope(1, created(planMode)));
      fold.add(envelope(2, { type: "run_started" }));
      fold.add(envelope(3, { type: "todo_updated", items: ITEMS }));
      fold.add(envelope(4, { type: "model_call_started", provider: "demo", model: "m" }));
      fold.add(envelope(5, { type: "model_call_completed", action: { type: "final_answer", content: "## Plan" }, usage: { input: 1, output: 1 }, stop_reason: "end_turn" }));
      expect(fold.items[1]).toMatchObject({ kind: "note", text: "Plan updated: 1 of 3 done", tone: "muted" });
      expect(fold.items[2]).toMatchObject({ kind: "model", answer: true, plan: planMode, text: "## Plan" });
    }
  });
});

describe("remembered approvals", () => {
  it("sends remember only with an allowed prefix", () => {
    expect(decisionFor("allow_prefix", "", "cargo  test", false, "workspace")).toEqual({ approve: true, scope: "once", reason: null, allowPrefix: "cargo test", remember: "workspace" });
    expect(decisionFor("allow_prefix", "", "cargo test")).toEqual({ approve: true, scope: "once", reason: null, allowPrefix: "cargo test" });
    expect(decisionFor("approve", "", "", false, "everywhere")).toEqual({ approve: true, scope: "once", reason: null });
  });

  it("reads the Remember choice and says where a rule holds", () => {
    expect(rememberFromValue("")).toBeNull();
    expect(rememberFromValue("everywhere")).toBe("everywhere");
    const rule = { number: 1, id: "0123456789ab", prefix: "cargo test", network: false, workspace: null, fromRun: "run-1", at: "2025-03-14T09:30:00Z" };
    expect(ruleWhere(rule)).toBe("in every workspace");
    expect(ruleWhere({ ...rule, workspace: "/w" })).toBe("in /w");
  });
});

describe("approving a plan", () => {
  const plan = "## Plan\n\n1. Read the parser.\n2. Run `make test`.";

  it("sends the approval alone when the plan was not edited", () => {
    expect(planApprovalMessage(plan, null)).toBe(PLAN_APPROVAL_MESSAGE);
    expect(planApprovalMessage(plan, `  ${plan}\n\n`)).toBe(PLAN_APPROVAL_MESSAGE);
    expect(planEdited(plan, `${plan}\n`)).toBe(false);
  });

  it("carries the person's version when they edited it", () => {
    const edited = "## Plan\n\n1. Read the parser.\n2. Run `make check` instead.\n";
    expect(planEdited(plan, edited)).toBe(true);
    const message = planApprovalMessage(plan, edited);
    expect(message.startsWith(PLAN_APPROVAL_MESSAGE)).toBe(true);
    expect(message).toContain("Carry out my version below, not the one above");
    expect(message.endsWith("2. Run `make check` instead.")).toBe(true);
  });
});
