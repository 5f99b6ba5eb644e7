import { describe, expect, it } from "vitest";
import type { WorkspaceView } from "../../bindings";
import { summary } from "./projection";
import { MockRunEngine, type MockRun } from "./runEngine";
import { modelContext } from "./runs";
import { followUpScript, type MockStep } from "./scripts";
import { MockError } from "./settings";
import { checkReply, lastWrittenPath, parentsFirst, threadOf } from "./threads";

const workspace: WorkspaceView = { id: "ws-1", path: "/w", name: "w", lastOpenedAt: "2025-03-14T09:30:00Z" };
const budgets = { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null };

function engine(agents: Record<string, string> = {}) {
  return new MockRunEngine({
    push: () => {},
    stepMs: 0,
    streamMs: 0,
    gateModelCalls: false,
    gateCommands: false,
    onWrite: () => {},
    readInstructions: (root, rel) => agents[`${root}/${rel}`] ?? null,
  });
}

const newRun = (e: MockRunEngine, goal = "write the plan", parent: MockRun["projection"]["parent"] = null) =>
  e.create({ workspace, goal, provider: "openai", model: "gpt-4.1", profile: "default", approvalMode: "allow_all", budgets, parent });

async function finish(run: MockRun) {
  for (let i = 0; i < 200 && run.active; i++) await new Promise((r) => setTimeout(r, 0));
  expect(run.active).toBe(false);
}

const known = { provider: () => true, folder: () => true };
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof MockError ? e.error.code : "thrown";
  }
  return "ok";
};

const WRITE_THEN_ANSWER: MockStep[] = [
  { text: "", usage: { input: 10, output: 5 }, call: { tool: "write_file", args: { path: "docs/plan.md", content: "# Plan\n" }, writes: true, result: "wrote 7 bytes" } },
  { text: "", usage: { input: 20, output: 5 }, answer: "Plan written." },
];

describe("mock replies and threads", () => {
  it("refuses a run in progress (conflict), a bad fork point (invalid_input), a gone folder or provider (not_found), an empty message", async () => {
    const e = engine();
    const run = newRun(e);
    e.commit(run, { type: "run_started" }, 1, { silent: true });
    expect(codeOf(() => checkReply(e, run.id, "go on", null, known))).toBe("conflict");
    e.commit(run, { type: "run_succeeded", answer: "done" }, 2, { silent: true });
    expect(codeOf(() => checkReply(e, run.id, "go on", null, known))).toBe("ok");
    expect(codeOf(() => checkReply(e, run.id, "go on", 0, known))).toBe("invalid_input");
    expect(codeOf(() => checkReply(e, run.id, "go on", 4, known))).toBe("invalid_input");
    expect(codeOf(() => checkReply(e, run.id, "go on", 3, known))).toBe("ok");
    expect(codeOf(() => checkReply(e, run.id, "  ", null, known))).toBe("invalid_input");
    expect(codeOf(() => checkReply(e, run.id, "go on", null, { ...known, folder: () => false }))).toBe("not_found");
    expect(codeOf(() => checkReply(e, run.id, "go on", null, { ...known, provider: () => false }))).toBe("not_found");
    expect(codeOf(() => checkReply(e, "nope", "go on", null, known))).toBe("not_found");

    expect(checkReply(e, run.id, " go on ", null, known)).toMatchObject({ goal: "go on", parent: { run_id: run.id, through_seq: 3, fork: false } });
    expect(checkReply(e, run.id, "other way", 2, known).parent).toEqual({ run_id: run.id, through_seq: 2, fork: true });
  });

  it("a follow-up records its parent, lists it in its summary and thread, and its context starts with the parent's conversation", async () => {
    const e = engine();
    const first = newRun(e);
    e.start(first, WRITE_THEN_ANSWER);
    await finish(first);
    expect(lastWrittenPath(e, { run_id: first.id, through_seq: first.projection.last_seq, fork: false })).toBe("docs/plan.md");

    const followUp = newRun(e, "and the tests?", { run_id: first.id, through_seq: first.projection.last_seq, fork: false });
    e.start(followUp, followUpScript(false, "and the tests?", "docs/plan.md", "# Plan\n"));
    await finish(followUp);
    expect(followUp.events[0].payload).toMatchObject({ type: "run_created", parent: { run_id: first.id, fork: false } });
    expect(followUp.projection.status.kind).toBe("succeeded");
    expect(summary(followUp.projection).parentRunId).toBe(first.id);
    expect(summary(first.projection).parentRunId).toBeNull();

    const fork = newRun(e, "other way", { run_id: followUp.id, through_seq: 4, fork: true });
    e.commit(fork, { type: "run_cancelled", reason: null }, null, { silent: true });
    const chain = threadOf(e, fork.id);
    expect(chain.map((t) => [t.run.runId, t.forkedAt, t.finalAnswer !== null])).toEqual([
      [first.id, null, true],
      [followUp.id, null, true],
      [fork.id, 4, false],
    ]);

    const requested = followUp.events.find((ev) => ev.payload.type === "model_call_requested")!;
    const history = modelContext(e, followUp.id, requested.seq).history;
    expect(history[0]).toEqual({ type: "message", role: "user", content: "write the plan" });
    expect(history).toContainEqual({ type: "message", role: "assistant", content: "Plan written." });
    expect(history.at(-1)).toEqual({ type: "message", role: "user", content: "and the tests?" });
  });

  it("a follow-up whose file is gone fails the read and says so", async () => {
    const e = engine();
    const run = newRun(e, "and now?");
    e.start(run, followUpScript(true, "and now?", "docs/plan.md", null));
    await finish(run);
    expect(run.events.some((ev) => ev.payload.type === "tool_call_failed")).toBe(true);
    expect(run.projection.final_answer).toMatch(/docs\/plan\.md is not there/);
  });

  it("loads the workspace's AGENTS.md at the start and a folder's before a write there, into the system prompt", async () => {
    const e = engine({ "/w/AGENTS.md": "Use tabs.", "/w/docs/AGENTS.md": "Plans are short." });
    const run = newRun(e);
    e.start(run, WRITE_THEN_ANSWER);
    await finish(run);
    const loaded = run.events.flatMap((ev) => (ev.payload.type === "instructions_loaded" ? [[ev.seq, ev.payload.path, ev.payload.bytes]] : []));
    expect(loaded).toEqual([
      [3, "AGENTS.md", 9],
      [expect.any(Number), "docs/AGENTS.md", 16],
    ]);
    const lastCall = run.events.filter((ev) => ev.payload.type === "model_call_requested").at(-1)!;
    expect(modelContext(e, run.id, lastCall.seq).system).toMatch(/--- AGENTS\.md ---\nUse tabs\.[\s\S]*--- docs\/AGENTS\.md ---\nPlans are short\./);
  });

  it("seeds parents before the runs that continue them", () => {
    const order = parentsFirst([
      { runId: "c", parentRunId: "b" },
      { runId: "b", parentRunId: "a" },
      { runId: "x", parentRunId: "not seeded" },
      { runId: "a" },
    ]).map((r) => r.runId);
    expect(order.indexOf("a")).toBeLessThan(order.indexOf("b"));
    expect(order.indexOf("b")).toBeLessThan(order.indexOf("c"));
    expect(order).toHaveLength(4);
  });
});
