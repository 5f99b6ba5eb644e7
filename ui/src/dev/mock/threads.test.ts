import { describe, expect, it } from "vitest";
import type { WorkspaceView } from "../../bindings";
import { MockRunEngine, type MockRun } from "./runEngine";
import { MockError } from "./settings";
import { checkReply, parentsFirst } from "./threads";

const workspace: WorkspaceView = { id: "ws-1", path: "/w", name: "w", lastOpenedAt: "2025-03-14T09:30:00Z" };
const budgets = { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null };

function engine() {
  return new MockRunEngine({
    push: () => {},
    stepMs: 0,
    streamMs: 0,
    gateModelCalls: false,
    gateCommands: false,
  });
}

const newRun = (e: MockRunEngine, goal = "write the plan", parent: MockRun["projection"]["parent"] = null) =>
  e.create({ workspace, goal, provider: "openai", model: "gpt-4.1", profile: "default", approvalMode: "allow_all", budgets, parent });

const known = { provider: () => true, folder: () => true, imported: () => null, current: () => null };
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof MockError ? e.error.code : "thrown";
  }
  return "ok";
};

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

  it("an imported run: a reply is conflict (read-only), a fork works in the workspace open here (invalid_input with none); its folder is never looked for", () => {
    const e = engine();
    const run = newRun(e);
    e.commit(run, { type: "run_succeeded", answer: "done" }, 1, { silent: true });
    const here: WorkspaceView = { id: "ws-2", path: "/home/dev/projects/bear-demo", name: "bear-demo", lastOpenedAt: "2025-03-14T10:00:00Z" };
    const imported = { ...known, folder: (path: string) => path === here.path, imported: () => "calc-fix.bearagent-run", current: () => here };
    const error = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof MockError ? e.error : null;
      }
      return null;
    };
    expect(error(() => checkReply(e, run.id, "go on", null, imported))).toEqual({
      code: "conflict",
      message: `run ${run.id} was imported from calc-fix.bearagent-run and is read-only here: it cannot be continued; fork it (\`run --fork ${run.id} --at SEQ --workspace DIR\`) to go on from it in a workspace of yours`,
    });
    expect(checkReply(e, run.id, " go on ", 1, imported)).toMatchObject({ goal: "go on", workspace: here, parent: { run_id: run.id, through_seq: 1, fork: true } });
    expect(error(() => checkReply(e, run.id, "go on", 1, { ...imported, current: () => null }))).toEqual({
      code: "invalid_input",
      message: `run ${run.id} was imported: open the workspace its fork is to work in, or name it`,
    });
    // The workspace open here is gone: not_found, like a run made here whose folder is gone.
    expect(codeOf(() => checkReply(e, run.id, "go on", 1, { ...imported, folder: () => false }))).toBe("not_found");
    // A run made here forks in its own workspace, whichever is open.
    expect(checkReply(e, run.id, "go on", 1, { ...known, current: () => here }).workspace).toBeNull();
    // A fork point that is not one of its events is refused first, as for any run.
    expect(codeOf(() => checkReply(e, run.id, "go on", 9, imported))).toBe("invalid_input");
    expect(error(() => checkReply(e, run.id, "go on", 9, imported))?.message).toMatch(/cannot fork at 9/);
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
