import { describe, expect, it, vi } from "vitest";
import type { HelperRunView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import { HelperTree } from "./helpers.svelte";
import { helperShortcut, helperToAnswer, helperWaitsText, rootCallOf, waitingHelpers } from "./helperWaits";
import { ok, runSummary } from "./testSupport";

function helper(runId: string, parent: string, callId: string, depth: number, description: string, asking: string | null = null): HelperRunView {
  return {
    run: runSummary({ runId, status: asking ? "awaiting_approval" : "running", delegatedBy: { runId: parent, callId, depth, description } }),
    pendingApproval: asking ? { call_id: asking, tool_name: "read_file", summary: "read A.md", requested_seq: 5 } : null,
  };
}

const child = helper("child", "top", "call_task", 1, "look around");
const grand = helper("grand", "child", "call_deep", 2, "read A", "call_read");
const sibling = helper("sibling", "top", "call_other", 1, "read B", "call_b");
const always = () => true;
const key = (k: string, shiftKey = false) => ({ key: k, shiftKey, ctrlKey: false, metaKey: false, altKey: false });
const idle = { typing: false, control: false };

describe("helpers that wait for the user", () => {
  it("are those with a question not already being answered, at any depth, in the tree's order", () => {
    expect(waitingHelpers([child, grand, sibling], always).map((h) => h.run.runId)).toEqual(["grand", "sibling"]);
    expect(waitingHelpers([child, grand, sibling], (h) => h !== grand).map((h) => h.run.runId)).toEqual(["sibling"]);
    expect(waitingHelpers([child], always)).toEqual([]);
  });

  it("are named in the header: one by its description, several by their number, none not at all", () => {
    expect(helperWaitsText([grand])).toBe('helper "read A" waits for your approval');
    expect(helperWaitsText([grand, sibling])).toBe("2 helpers wait for your approval");
    expect(helperWaitsText([])).toBeNull();
  });

  it("are answered by the run's keys only when one waits and the run asks nothing itself", () => {
    expect(helperToAnswer([grand], false)).toBe(grand);
    expect(helperToAnswer([grand], true)).toBeNull();
    expect(helperToAnswer([grand, sibling], false)).toBeNull();
    expect(helperShortcut(key("a"), idle, [grand], false)).toEqual({ helper: grand, choice: "approve" });
    expect(helperShortcut(key("d"), idle, [grand], false)).toEqual({ helper: grand, choice: "deny" });
    // Shift+A (always), typing, other keys, several waiting, the run's own question: not the helper's.
    expect(helperShortcut(key("A", true), idle, [grand], false)).toBeNull();
    expect(helperShortcut(key("a"), { typing: true, control: false }, [grand], false)).toBeNull();
    expect(helperShortcut(key("j"), idle, [grand], false)).toBeNull();
    expect(helperShortcut(key("a"), idle, [grand, sibling], false)).toBeNull();
    expect(helperShortcut(key("a"), idle, [grand], true)).toBeNull();
  });

  it("are found under the open run's task call that started their ancestor", () => {
    expect(rootCallOf([child, grand, sibling], grand, "top")).toBe("call_task");
    expect(rootCallOf([child, grand, sibling], sibling, "top")).toBe("call_other");
    expect(rootCallOf([grand], grand, "top")).toBeNull();
    const loop = helper("loop", "loop", "call_x", 1, "loop");
    expect(rootCallOf([loop], loop, "top")).toBeNull();
  });

  it("stop waiting once answered through the tree, and wait again when the answer failed", async () => {
    const decide = vi.fn(async (): Promise<Outcome<null>> => ({ ok: false, error: { code: "not_found", message: "gone" } }));
    const tree = new HelperTree({ helpers: async () => ok([child, grand]), decide, onRunEvent: async () => () => undefined }, "top", 0);
    await tree.open();
    const waiting = () => waitingHelpers(tree.helpers, (h) => tree.isAnswerable(h));
    expect(waiting()).toEqual([grand]);
    const answer = tree.decide(grand, "approve");
    expect(waiting()).toEqual([]);
    expect(await answer).toBe(false);
    expect(waiting()).toEqual([grand]);
  });
});
