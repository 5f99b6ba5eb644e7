import { describe, expect, it, vi } from "vitest";
import type { HelperRunView, RunEventPushed } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import { HelperTree } from "./helpers.svelte";
import { envelope, ok, runSummary, settle } from "./testSupport";

const by = (runId: string, callId: string, depth: number, description: string) => ({ runId, callId, depth, description });

function helper(runId: string, parent: string, callId: string, depth: number, description: string, asking: string | null = null): HelperRunView {
  return {
    run: runSummary({ runId, status: asking ? "awaiting_approval" : "running", delegatedBy: by(parent, callId, depth, description) }),
    pendingApproval: asking ? { call_id: asking, tool_name: "read_file", summary: "read A.md", requested_seq: 5 } : null,
  };
}

function fakeApi(answers: HelperRunView[][]) {
  const handlers: ((p: RunEventPushed) => void)[] = [];
  let read = 0;
  const api = {
    helpers: vi.fn(async (): Promise<Outcome<HelperRunView[]>> => ok(answers[Math.min(read++, answers.length - 1)])),
    decide: vi.fn(async (): Promise<Outcome<null>> => ok(null)),
    onRunEvent: vi.fn(async (h: (p: RunEventPushed) => void) => {
      handlers.push(h);
      return () => undefined;
    }),
  };
  const push = (runId: string, payload: Parameters<typeof envelope>[1]) => handlers.forEach((h) => h({ runId, event: envelope(2, payload, null, runId) }));
  return { api, push };
}

describe("a run's helpers", () => {
  const child = helper("child", "top", "call_task", 1, "look");
  const grand = helper("grand", "child", "call_deep", 2, "read A", "call_read");

  it("reads the tree on open and finds each call's helper and a helper's own", async () => {
    const { api } = fakeApi([[child, grand]]);
    const tree = new HelperTree(api, "top", 0);
    await tree.open();
    expect(api.onRunEvent).toHaveBeenCalledBefore(api.helpers);
    expect(tree.childrenOf("top", "call_task").map((h) => h.run.runId)).toEqual(["child"]);
    expect(tree.childrenOf("top", "call_other")).toEqual([]);
    expect(tree.childrenOf("child").map((h) => h.run.runId)).toEqual(["grand"]);
  });

  it("reads again when a helper is born or changes, not for the open run's or another run's events", async () => {
    const { api, push } = fakeApi([[], [child], [child, grand]]);
    const tree = new HelperTree(api, "top", 0);
    await tree.open();
    push("top", { type: "run_started" });
    push("elsewhere", { type: "run_started" });
    await settle();
    expect(api.helpers).toHaveBeenCalledTimes(1);
    push("child", { type: "run_created", goal: "look", delegated_by: { run_id: "top", call_id: "call_task", depth: 1, description: "look" } } as never);
    await settle();
    expect(api.helpers).toHaveBeenCalledTimes(2);
    expect(tree.helpers.map((h) => h.run.runId)).toEqual(["child"]);
    push("child", { type: "run_started" });
    await settle();
    expect(api.helpers).toHaveBeenCalledTimes(3);
    expect(tree.childrenOf("child")[0].pendingApproval?.call_id).toBe("call_read");
  });

  it("answers a helper's approval as the helper, once; a failed answer stays with its error", async () => {
    const { api } = fakeApi([[child, grand]]);
    const tree = new HelperTree(api, "top", 0);
    await tree.open();
    expect(tree.isAnswerable(child)).toBe(false);
    expect(await tree.decide(grand, "approve")).toBe(true);
    expect(api.decide).toHaveBeenCalledWith("grand", "call_read", { approve: true, scope: "once", reason: null });
    expect(tree.decisions.get("grand/call_read")?.kind).toBe("sent");
    expect(await tree.decide(grand, "deny")).toBe(false);
    expect(api.decide).toHaveBeenCalledTimes(1);

    const failing = fakeApi([[grand]]);
    failing.api.decide.mockResolvedValueOnce({ ok: false, error: { code: "not_found", message: "pending approval not found" } });
    const other = new HelperTree(failing.api, "top", 0);
    await other.open();
    expect(await other.decide(grand, "deny")).toBe(false);
    expect(other.decisions.get("grand/call_read")).toMatchObject({ kind: "failed", code: "not_found" });
    expect(other.isAnswerable(grand)).toBe(true);
  });
});
