// Answers to session/request_permission other than allow_once: a rejected
// write is not made and the model goes on; allow_always covers the same tool
// for the rest of the run.

import assert from "node:assert/strict";
import path from "node:path";
import { readFile, access } from "node:fs/promises";
import { acpTest, makeSandbox, foldToolCalls, trace, agentText, withTimeout, PERMISSION_OPTIONS } from "./harness.mjs";

const exists = (p) => access(p).then(() => true, () => false);

acpTest("reject_once: the write is not made, its tool call fails, the model answers and the turn ends end_turn", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "write_file", arguments: { path: "out.md", content: "hello\n" }, call_id: "w1" } },
    { final_answer: "Could not write." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const asked = [];
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "reject_once" } };
  };
  const res = await agent.prompt(sessionId, "Write hello to out.md");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.deepEqual(asked.map((p) => p.toolCall?.toolCallId), ["w1"], where);
  assert.deepEqual(asked[0].options.map((o) => ({ optionId: o.optionId, kind: o.kind })), PERMISSION_OPTIONS);

  const updates = agent.updates(sessionId);
  const w1 = foldToolCalls(updates).get("w1");
  assert.ok(w1, `no tool_call for w1${where}`);
  assert.equal(w1.kind, "edit");
  assert.deepEqual(w1.statuses, ["pending", "failed"], `w1 never runs: pending then failed${where}`);
  const after = updates.slice(updates.findLastIndex((u) => u.toolCallId === "w1") + 1);
  assert.equal(agentText(after).trim(), "Could not write.", `the model answers after the failed call${where}`);

  assert.equal(await exists(path.join(sb.ws, "out.md")), false, "out.md must not be written");

  const runs = await sb.runs();
  assert.equal(runs.length, 1);
  assert.equal(runs[0].run_id, sessionId);
  assert.equal(runs[0].status?.kind, "succeeded");
  const events = await sb.events(sessionId);
  const denied = events.filter((e) => e.payload.type === "approval_denied");
  assert.deepEqual(denied.map((e) => [e.payload.call_id, e.payload.scope]), [["w1", "once"]]);
  assert.ok(events.some((e) => e.payload.type === "tool_call_failed" && e.payload.result?.call_id === "w1"), "tool_call_failed for w1 in the store");
  assert.ok(!events.some((e) => e.payload.type === "artifact_recorded"), "no file artifact recorded");
  assert.ok(!events.some((e) => e.payload.type === "approval_granted"), "nothing granted");
});

acpTest("allow_always: the first write is asked once, the second write of the run is not asked, both files written", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "write_file", arguments: { path: "a.txt", content: "A\n" }, call_id: "w1" } },
    { tool_call: { tool_name: "write_file", arguments: { path: "b.txt", content: "B\n" }, call_id: "w2" } },
    { final_answer: "Both written." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const asked = [];
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_always" } };
  };
  const res = await agent.prompt(sessionId, "Write a.txt and b.txt");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.deepEqual(asked.map((p) => p.toolCall?.toolCallId), ["w1"], `only the first write is asked${where}`);
  assert.equal(await readFile(path.join(sb.ws, "a.txt"), "utf8"), "A\n");
  assert.equal(await readFile(path.join(sb.ws, "b.txt"), "utf8"), "B\n");
  const calls = foldToolCalls(agent.updates(sessionId));
  for (const id of ["w1", "w2"]) {
    assert.equal(calls.get(id)?.status, "completed", `${id} completed${where}`);
    const diff = (calls.get(id).content ?? []).find((c) => c.type === "diff");
    assert.ok(diff, `${id} shows a diff: ${JSON.stringify(calls.get(id).content)}`);
    assert.ok(diff.oldText === null || diff.oldText === undefined, `${id} creates a new file: oldText ${JSON.stringify(diff.oldText)}`);
  }
  assert.equal(calls.get("w2").content.find((c) => c.type === "diff").newText, "B\n");
  const events = await sb.events(sessionId);
  const granted = events.filter((e) => e.payload.type === "approval_granted");
  assert.equal(granted[0]?.payload.call_id, "w1");
  assert.equal(granted[0]?.payload.scope, "tool_for_run", "allow_always grants the tool for the rest of the run");
});

acpTest("a permission request the client answers with an error is taken as a rejection: nothing written, the turn ends", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "write_file", arguments: { path: "out.md", content: "hello\n" }, call_id: "w1" } },
    { final_answer: "Not written." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  agent.onPermission = async () => {
    throw new Error("the client's permission dialog crashed");
  };
  const res = await agent.prompt(sessionId, "Write hello to out.md");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.equal(foldToolCalls(agent.updates(sessionId)).get("w1")?.status, "failed", where);
  assert.equal(await exists(path.join(sb.ws, "out.md")), false);
  const events = await sb.events(sessionId);
  assert.ok(events.some((e) => e.payload.type === "approval_denied" && e.payload.call_id === "w1"), "denied in the store");
});

acpTest("the client goes away while a permission request waits: bearagent acp exits and its run ends cancelled, nothing written", async (t, { start }) => {
  // Beyond the written spec: an editor that closes the connection stops its
  // prompts (as a session/cancel would); the run must not go on as if the
  // user had rejected the call, nor be left running.
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "write_file", arguments: { path: "out.md", content: "hello\n" }, call_id: "w1" } },
    { final_answer: "Written." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  let askedResolve;
  const asked = new Promise((resolve) => (askedResolve = resolve));
  agent.onPermission = () => {
    askedResolve();
    return new Promise(() => {}); // never answered: the editor is closed instead
  };
  agent.prompt(sessionId, "Write hello to out.md").catch(() => {});
  await withTimeout(asked, 20_000, "the permission request");
  const exit = await agent.stop(15_000);
  assert.ok(!exit.timedOut, "bearagent acp must exit when its stdin closes, even with a prompt waiting");
  assert.equal(await exists(path.join(sb.ws, "out.md")), false, "nothing written");
  const runs = await sb.runs();
  assert.equal(runs.length, 1);
  const events = await sb.events(runs[0].run_id);
  const story = events.map((e) => e.payload.type + (e.payload.reason ? `(${e.payload.reason})` : "")).join(" ");
  assert.equal(runs[0].status?.kind, "cancelled", `the run of a closed connection ends cancelled; events: ${story}`);
});
