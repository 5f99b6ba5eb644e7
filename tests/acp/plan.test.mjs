// The model's todo list (update_plan) reaches the editor as ACP `plan`
// updates: the whole list each time, with each entry's status.

import assert from "node:assert/strict";
import { acpTest, makeSandbox } from "./harness.mjs";

acpTest("update_plan calls become session/update plan entries with their statuses", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const step = (a, b) => ({
    tool_call: { tool_name: "update_plan", arguments: { plan: [{ step: "read notes", status: a }, { step: "answer", status: b }] } },
  });
  const script = await sb.script([step("in_progress", "pending"), step("completed", "in_progress"), { final_answer: "Done." }]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const res = await agent.prompt(sessionId, "read the notes and answer");
  assert.equal(res.stopReason, "end_turn");
  const plans = agent.updates(sessionId).filter((u) => u.sessionUpdate === "plan");
  assert.equal(plans.length, 2, `two plan updates: ${JSON.stringify(plans)}`);
  assert.deepEqual(
    plans.map((p) => p.entries.map((e) => [e.content, e.status])),
    [
      [["read notes", "in_progress"], ["answer", "pending"]],
      [["read notes", "completed"], ["answer", "in_progress"]],
    ],
  );
  for (const p of plans) for (const e of p.entries) assert.ok(["high", "medium", "low"].includes(e.priority));
});
