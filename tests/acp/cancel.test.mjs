// session/cancel: while a permission request waits, and while the model is
// thinking; and a second prompt of a busy session.

import assert from "node:assert/strict";
import path from "node:path";
import { access } from "node:fs/promises";
import { acpTest, makeSandbox, foldToolCalls, trace, agentText, withTimeout, sleep } from "./harness.mjs";

const exists = (p) => access(p).then(() => true, () => false);

acpTest("session/cancel while a permission request is pending: the client answers cancelled, the prompt stops cancelled, nothing written, run cancelled", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "write_file", arguments: { path: "out.md", content: "hello\n" }, call_id: "w1" } },
    { final_answer: "This must not be said." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();

  const asked = [];
  let cancelSentAt;
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    // The user presses stop while the request is on screen: the client sends
    // session/cancel and, as ACP requires, answers the pending request
    // with the cancelled outcome.
    await agent.notify("session/cancel", { sessionId });
    cancelSentAt = Date.now();
    return { outcome: { outcome: "cancelled" } };
  };
  const res = await agent.prompt(sessionId, "Write hello to out.md", 30_000);
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.deepEqual(asked.map((p) => p.toolCall?.toolCallId), ["w1"], where);
  assert.equal(res.stopReason, "cancelled", where);
  assert.ok(Date.now() - cancelSentAt < 10_000, "the prompt answered soon after the cancel");

  const updates = agent.updates(sessionId);
  const w1 = foldToolCalls(updates).get("w1");
  assert.ok(w1, `no tool_call for w1${where}`);
  assert.ok(!w1.statuses.includes("completed"), `w1 must not complete${where}`);
  assert.ok(!w1.statuses.includes("in_progress"), `w1 must not run${where}`);
  assert.ok(!agentText(updates).includes("must not be said"), `the model's next step must not run${where}`);
  assert.equal(await exists(path.join(sb.ws, "out.md")), false, "out.md must not be written");

  const runs = await sb.runs();
  assert.equal(runs.length, 1);
  assert.equal(runs[0].run_id, sessionId);
  assert.equal(runs[0].status?.kind, "cancelled", `run status ${JSON.stringify(runs[0].status)}`);
  const events = await sb.events(sessionId);
  assert.ok(events.some((e) => e.payload.type === "run_cancelled"), "run_cancelled in the store");
  assert.ok(!events.some((e) => e.payload.type === "approval_granted"), "the call was never granted");
  assert.ok(!events.some((e) => e.payload.type === "tool_call_completed"), "no call completed");
});

acpTest("session/cancel while the model thinks: the prompt stops cancelled at once, and the session takes the next prompt as a follow-up", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([{ delay_ms: 6000, final_answer: "Thought it over." }]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();

  const startedAt = Date.now();
  const pending = agent.prompt(sessionId, "Think slowly", 30_000);
  await sleep(800);
  await agent.notify("session/cancel", { sessionId });
  const cancelledAt = Date.now();
  const res = await pending;
  const elapsed = Date.now() - cancelledAt;
  assert.equal(res.stopReason, "cancelled");
  assert.ok(elapsed < 4000, `the prompt answered ${elapsed} ms after the cancel (the model's step takes 6000 ms from ${cancelledAt - startedAt} ms before)`);
  assert.ok(!agentText(agent.updates(sessionId)).includes("Thought it over."));

  let runs = await sb.runs();
  assert.equal(runs.length, 1);
  assert.equal(runs[0].status?.kind, "cancelled");

  // The session is still usable: the next prompt follows the cancelled run up.
  const mark = agent.log.length;
  const second = await agent.prompt(sessionId, "Now answer", 30_000);
  assert.equal(second.stopReason, "end_turn");
  assert.equal(agentText(agent.updates(sessionId, mark)).trim(), "Thought it over.");
  runs = await sb.runs();
  assert.equal(runs.length, 2);
  const newest = runs.find((r) => r.run_id !== sessionId);
  assert.equal(newest.status?.kind, "succeeded");
  const created = await sb.runCreated(newest.run_id);
  assert.equal(created.parent?.run_id, sessionId, "the follow-up's parent is the cancelled run");
});

acpTest("a second prompt while the session's first one runs is refused with invalid params; the first ends normally", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([{ delay_ms: 1500, final_answer: "First done." }]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const first = agent.prompt(sessionId, "first", 30_000);
  await sleep(300);
  let error;
  try {
    const r = await withTimeout(agent.prompt(sessionId, "second", 30_000), 30_000, "the second prompt");
    assert.fail(`the second prompt was answered ${JSON.stringify(r)} instead of refused`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    error = e;
  }
  assert.equal(error.code, -32602, `error ${JSON.stringify({ code: error.code, message: error.message, data: error.data })}`);
  assert.equal((await first).stopReason, "end_turn");
  const runs = await sb.runs();
  assert.equal(runs.length, 1, "the refused prompt made no run");
  assert.equal(runs[0].status?.kind, "succeeded");
});

acpTest("a session/cancel sent right behind its session/prompt is not lost (20 tries)", async (t, { start }) => {
  // The client may cancel at any moment after sending the prompt, even
  // before the agent has started its run.
  const sb = await makeSandbox(t);
  const agent = start(sb, { script: await sb.script([{ delay_ms: 2500, final_answer: "Not cancelled." }]) });
  await agent.initialize();
  const lost = [];
  for (let i = 0; i < 20; i++) {
    const { sessionId } = await agent.newSession();
    const pending = agent.prompt(sessionId, `try ${i}`, 30_000);
    await agent.notify("session/cancel", { sessionId });
    const sentAt = Date.now();
    const res = await pending;
    const elapsed = Date.now() - sentAt;
    if (res.stopReason !== "cancelled" || elapsed > 2000) lost.push(`try ${i}: stopReason ${res.stopReason} after ${elapsed} ms`);
  }
  const runs = await sb.runs();
  const statuses = runs.map((r) => r.status?.kind);
  assert.deepEqual(lost, [], `cancels lost; run statuses ${JSON.stringify(statuses)}`);
  assert.ok(statuses.every((s) => s === "cancelled"), `every run cancelled: ${JSON.stringify(statuses)}`);
});
