import { describe, expect, it } from "vitest";
import type { RunStatus, ThreadRunView } from "../../bindings";
import { runSummary } from "./testSupport";
import { answerPreview, canReply, earlierRuns, isSendShortcut, parentRelation, replyErrorTitle, sendShortcutLabel, threadMarker, threadRelation } from "./threads";

const entry = (runId: string, parentRunId: string | null, forkedAt: number | null = null, finalAnswer: string | null = null): ThreadRunView => ({
  run: runSummary({ runId, parentRunId }),
  finalAnswer,
  forkedAt,
});

describe("canReply", () => {
  it("offers a reply once the run has ended or was interrupted, never while it moves", () => {
    const yes: RunStatus[] = [
      { kind: "succeeded" },
      { kind: "failed", reason: "x" },
      { kind: "cancelled" },
      { kind: "budget_exhausted", which: "cost" },
      { kind: "interrupted" },
    ];
    const no: RunStatus[] = [{ kind: "created" }, { kind: "running" }, { kind: "awaiting_approval" }];
    expect(yes.map(canReply)).toEqual(yes.map(() => true));
    expect(no.map(canReply)).toEqual(no.map(() => false));
  });
});

describe("send shortcut", () => {
  const key = (k: Partial<KeyboardEvent>) => ({ key: "Enter", ctrlKey: false, metaKey: false, isComposing: false, ...k });
  it("sends on Ctrl+Enter or Cmd+Enter, not on Enter alone or while composing", () => {
    expect(isSendShortcut(key({ ctrlKey: true }))).toBe(true);
    expect(isSendShortcut(key({ metaKey: true }))).toBe(true);
    expect(isSendShortcut(key({}))).toBe(false);
    expect(isSendShortcut(key({ ctrlKey: true, isComposing: true }))).toBe(false);
    expect(isSendShortcut(key({ key: "a", ctrlKey: true }))).toBe(false);
  });

  it("names the shortcut per platform", () => {
    expect(sendShortcutLabel("MacIntel")).toBe("⌘+Enter");
    expect(sendShortcutLabel("Linux x86_64")).toBe("Ctrl+Enter");
    expect(sendShortcutLabel("")).toBe("Ctrl+Enter");
  });
});

describe("replyErrorTitle", () => {
  it("picks the title by code, for a reply or a fork", () => {
    expect(replyErrorTitle("conflict", false)).toBe("This run cannot be continued");
    expect(replyErrorTitle("invalid_input", false)).toBe("Cannot send this reply");
    expect(replyErrorTitle("invalid_input", true)).toBe("Cannot start this fork");
    expect(replyErrorTitle("not_found", true)).toMatch(/workspace folder/);
    expect(replyErrorTitle("storage", false)).toBe("Storage error");
    expect(replyErrorTitle("brand_new", false)).toBe("Error (brand_new)");
  });
});

describe("answerPreview", () => {
  it("flattens the answer to one line and cuts long ones at a word", () => {
    expect(answerPreview(null)).toBeNull();
    expect(answerPreview("  \n ")).toBeNull();
    expect(answerPreview("Done:\n\n- wrote  the plan")).toBe("Done: - wrote the plan");
    const long = "word ".repeat(60);
    const cut = answerPreview(long, 40)!;
    expect(cut.length).toBeLessThanOrEqual(40);
    expect(cut.endsWith("word…")).toBe(true);
    expect(answerPreview("x".repeat(50), 20)).toBe(`${"x".repeat(19)}…`);
  });
});

describe("thread relations", () => {
  it("says how a run continues the one before it", () => {
    expect(threadRelation(entry("r1", null))).toBeNull();
    expect(threadRelation(entry("r2", "r1"))).toBe("follow-up");
    expect(threadRelation(entry("r3", "r2", 12))).toBe("forked at #12");
    expect(parentRelation({ run_id: "r1", through_seq: 40, fork: false })).toBe("follow-up");
    expect(parentRelation({ run_id: "r1", through_seq: 7, fork: true })).toBe("forked at #7");
  });

  it("lists the earlier runs of a thread without the open run", () => {
    const thread = [entry("r1", null), entry("r2", "r1"), entry("r3", "r2", 5)];
    expect(earlierRuns(thread, "r3").map((e) => e.run.runId)).toEqual(["r1", "r2"]);
    expect(earlierRuns([entry("r1", null)], "r1")).toEqual([]);
  });

  it("marks follow-ups in the run list, naming the parent's goal when listed", () => {
    const parent = runSummary({ runId: "r1", goal: "Write the plan" });
    const lookup = (id: string) => (id === "r1" ? parent : undefined);
    expect(threadMarker(runSummary({ runId: "r1" }), lookup)).toBeNull();
    expect(threadMarker(runSummary({ runId: "r2", parentRunId: "r1" }), lookup)).toEqual({ label: "↳ follow-up", title: "Continues the run “Write the plan”" });
    expect(threadMarker(runSummary({ runId: "r3", parentRunId: "gone" }), lookup)?.title).toBe("Continues run gone");
  });
});
