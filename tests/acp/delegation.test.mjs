// Delegation through ACP: a profile with `delegate = true` gives the
// session's runs the `task` tool. Every approval of the tree — the
// parent's, its helper's and the helper's own helper's (depth 2) — is
// asked as `session/request_permission`, labelled with the helper's
// description; the editor's answer reaches the run that asked.

import assert from "node:assert/strict";
import path from "node:path";
import { writeFile } from "node:fs/promises";
import { acpTest, makeSandbox, foldToolCalls, trace } from "./harness.mjs";

acpTest("a depth-2 helper's approval is asked in the editor, labelled with the helper, and the answer reaches it", async (t, { start }) => {
  const sb = await makeSandbox(t);
  await writeFile(path.join(sb.home, "config.toml"), "version = 1\n\n[profiles.default]\ndelegate = true\n");
  // One model serves the tree in turn: the parent, then its helper, then
  // the helper's helper, each ending before the one above goes on.
  const script = await sb.script([
    { tool_call: { tool_name: "task", arguments: { description: "survey notes", prompt: "Look at the notes." }, call_id: "t1" } },
    { tool_call: { tool_name: "task", arguments: { description: "read deeper", prompt: "Read notes.md." }, call_id: "t2" } },
    { tool_call: { tool_name: "read_file", arguments: { path: "notes.md" }, call_id: "r1" } },
    { final_answer: "The notes say add subtracts." },
    { final_answer: "My helper says add subtracts." },
    { final_answer: "The tree found that add subtracts." },
  ]);
  const agent = start(sb, { script, approve: "ask" });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const asked = [];
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  };
  const res = await agent.prompt(sessionId, "Find out what the notes say, with helpers");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.deepEqual(asked.map((p) => p.toolCall?.toolCallId), ["t1", "t2", "r1"], `the whole tree asks${where}`);
  const titles = asked.map((p) => p.toolCall?.title ?? "");
  assert.ok(!titles[0].includes("helper"), `the parent's own call is not labelled: ${titles[0]}`);
  assert.ok(titles[1].startsWith('helper "survey notes": '), titles[1]);
  assert.ok(titles[2].startsWith('helper "read deeper": '), titles[2]);
  const runsAsked = asked.map((p) => p.toolCall?.runId);
  assert.equal(runsAsked[0], sessionId);
  assert.equal(new Set(runsAsked).size, 3, `three runs asked: ${runsAsked}`);

  // The editor saw the helpers' calls complete too.
  const calls = foldToolCalls(agent.updates(sessionId));
  assert.equal(calls.get("r1")?.status, "completed", where);
  assert.equal(calls.get("t1")?.status, "completed", where);

  const runs = await sb.runs();
  const deep = runs.find((r) => r.run_id === runsAsked[2]);
  assert.ok(deep, `the depth-2 run is listed: ${JSON.stringify(runs)}`);
  assert.equal(deep.depth, 2, JSON.stringify(deep));
  assert.equal(deep.status?.kind, "succeeded", JSON.stringify(deep));
  const events = await sb.events(deep.run_id);
  const granted = events.filter((e) => e.payload.type === "approval_granted");
  assert.deepEqual(granted.map((e) => [e.payload.call_id, e.payload.by]), [["r1", "acp:editor"]]);
  const read = events.find((e) => e.payload.type === "tool_call_completed");
  assert.match(read.payload.result.content, /subtracts/);
});

acpTest("a helper's approval rejected in the editor is denied in the helper, which says so", async (t, { start }) => {
  const sb = await makeSandbox(t);
  await writeFile(path.join(sb.home, "config.toml"), "version = 1\n\n[profiles.default]\ndelegate = true\n");
  const script = await sb.script([
    { tool_call: { tool_name: "task", arguments: { description: "peek", prompt: "Read notes.md." }, call_id: "t1" } },
    { tool_call: { tool_name: "read_file", arguments: { path: "notes.md" }, call_id: "r1" } },
    { final_answer: "I was not allowed to read it." },
    { final_answer: "The helper could not read the notes." },
  ]);
  const agent = start(sb, { script, approve: "ask" });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  agent.onPermission = async ({ params }) => ({
    outcome: { outcome: "selected", optionId: params.toolCall?.toolCallId === "r1" ? "reject_once" : "allow_once" },
  });
  const res = await agent.prompt(sessionId, "Ask a helper to read the notes");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  const child = (await sb.runs()).find((r) => r.depth === 1);
  assert.ok(child, where);
  const events = await sb.events(child.run_id);
  const denied = events.filter((e) => e.payload.type === "approval_denied");
  assert.deepEqual(denied.map((e) => e.payload.call_id), ["r1"], where);
  assert.equal(foldToolCalls(agent.updates(sessionId)).get("r1")?.status, "failed", where);
});
