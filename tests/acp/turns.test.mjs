// Harder turns: reject_always over several calls of one model turn, a
// cancel while a command runs, and a model that fails.

import assert from "node:assert/strict";
import path from "node:path";
import { access } from "node:fs/promises";
import { acpTest, makeSandbox, foldToolCalls, trace, agentText, withTimeout } from "./harness.mjs";

const exists = (p) => access(p).then(() => true, () => false);

acpTest("reject_always on the first of two writes in one model turn: asked once, both fail, neither file written", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    {
      tool_calls: [
        { tool_name: "write_file", arguments: { path: "a.txt", content: "A\n" }, call_id: "w1" },
        { tool_name: "write_file", arguments: { path: "b.txt", content: "B\n" }, call_id: "w2" },
      ],
    },
    { final_answer: "Both refused." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const asked = [];
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "reject_always" } };
  };
  const res = await agent.prompt(sessionId, "Write a.txt and b.txt");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.deepEqual(asked.map((p) => p.toolCall?.toolCallId), ["w1"], `only the first call is asked${where}`);
  const calls = foldToolCalls(agent.updates(sessionId));
  assert.equal(calls.get("w1")?.status, "failed", where);
  assert.equal(calls.get("w2")?.status, "failed", `the rest of the turn is rejected too${where}`);
  assert.ok(!calls.get("w2").statuses.includes("in_progress"), where);
  assert.equal(await exists(path.join(sb.ws, "a.txt")), false);
  assert.equal(await exists(path.join(sb.ws, "b.txt")), false);
  assert.match(agentText(agent.updates(sessionId)), /Both refused\./);
  const events = await sb.events(sessionId);
  const denied = events.filter((e) => e.payload.type === "approval_denied");
  assert.equal(denied[0]?.payload.call_id, "w1");
  assert.equal(denied[0]?.payload.scope, "rest_of_turn");
  const failed = events.filter((e) => e.payload.type === "tool_call_failed").map((e) => e.payload.result.call_id);
  assert.deepEqual(failed, ["w1", "w2"]);
});

acpTest("session/cancel while a command runs: the prompt stops cancelled within seconds, the run is cancelled", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "run_command", arguments: { command: "echo started; sleep 60; echo finished" }, call_id: "c1" } },
    { final_answer: "The command finished." },
  ]);
  const agent = start(sb, { script, approve: "all" });
  await agent.initialize();
  const { sessionId, modes } = await agent.newSession();
  assert.equal(modes?.currentModeId, "all", "--approve all starts sessions in mode all");
  const pending = agent.prompt(sessionId, "Run the slow command", 90_000);
  // Wait until the command is running (its tool call is in progress).
  await withTimeout(
    (async () => {
      while (!agent.updates(sessionId).some((u) => u.toolCallId === "c1" && u.status === "in_progress")) {
        await new Promise((r) => setTimeout(r, 50));
      }
    })(),
    20_000,
    "the command to start",
  );
  await agent.notify("session/cancel", { sessionId });
  const cancelledAt = Date.now();
  const res = await pending;
  const elapsed = Date.now() - cancelledAt;
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "cancelled", where);
  assert.ok(elapsed < 10_000, `the prompt answered ${elapsed} ms after the cancel`);
  const c1 = foldToolCalls(agent.updates(sessionId)).get("c1");
  assert.notEqual(c1?.status, "completed", `the command must not report completed${where}`);
  assert.ok(!agentText(agent.updates(sessionId)).includes("The command finished."), where);
  const runs = await sb.runs();
  assert.equal(runs[0].status?.kind, "cancelled");
});

acpTest("a model error: the prompt answers a JSON-RPC error naming it, the run is failed, the process goes on", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([{ error: { message: "the scripted model broke down", retryable: false } }]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  let error;
  try {
    const r = await agent.prompt(sessionId, "Do something");
    assert.fail(`the prompt answered ${JSON.stringify(r)} for a failed run`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    error = e;
  }
  assert.ok(Number.isInteger(error?.code), `a JSON-RPC error, got ${error}`);
  assert.match(`${error.message} ${JSON.stringify(error.data ?? "")}`, /scripted model broke down/, `the error says why: ${JSON.stringify({ code: error.code, message: error.message, data: error.data })}`);
  const runs = await sb.runs();
  assert.equal(runs.length, 1);
  assert.equal(runs[0].status?.kind, "failed");
  const init = await agent.initialize();
  assert.equal(init.protocolVersion, 1, "the process still answers");
  const other = await agent.newSession();
  assert.ok(other.sessionId);
});
