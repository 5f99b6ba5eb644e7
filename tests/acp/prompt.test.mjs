// A prompt turn end to end: the scripted model reads, edits calc.py and runs
// the tests; the client is asked for the edit and the command and allows
// each once. Checks the stream of updates, the file on disk and the run in the
// store.

import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import {
  acpTest,
  makeSandbox,
  foldToolCalls,
  trace,
  toolText,
  agentText,
  sleep,
  PERMISSION_OPTIONS,
  CALC_BEFORE,
  CALC_AFTER,
} from "./harness.mjs";
import * as schema from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

const GOAL = "Fix the add function in calc.py and run its test";

acpTest("a prompt reads, edits with allow_once and runs a command: updates in order, diff, file changed, run stored", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { text: "Reading first.", tool_call: { tool_name: "read_file", arguments: { path: "notes.md" }, call_id: "read-1" } },
    { tool_call: { tool_name: "edit_file", arguments: { path: "calc.py", old_string: "a - b", new_string: "a + b" }, call_id: "edit-1" } },
    { tool_call: { tool_name: "run_command", arguments: { command: "python3 test_calc.py" }, call_id: "cmd-1" } },
    { final_answer: "Done." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();

  const asked = [];
  let calcWhileAsked;
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    if (params.toolCall?.toolCallId === "edit-1") calcWhileAsked = await readFile(path.join(sb.ws, "calc.py"), "utf8");
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  };

  const res = await agent.prompt(sessionId, GOAL);
  schema.zPromptResponse.parse(res);
  const steps = trace(agent.log, sessionId);
  const where = `\ntrace: ${steps.join(" ")}`;
  assert.equal(res.stopReason, "end_turn", `stopReason${where}`);

  // Permission: asked for the edit and the command (not the read), with the four options.
  assert.deepEqual(asked.map((p) => p.toolCall?.toolCallId), ["edit-1", "cmd-1"], `permission requests${where}`);
  for (const p of asked) {
    assert.equal(p.sessionId, sessionId);
    assert.deepEqual(
      p.options.map((o) => ({ optionId: o.optionId, kind: o.kind })),
      PERMISSION_OPTIONS,
      `options of the permission request for ${p.toolCall.toolCallId}`,
    );
    for (const o of p.options) assert.ok(o.name && typeof o.name === "string", `option ${o.optionId} has a name`);
  }

  // Updates, folded per tool call as a client shows them.
  const updates = agent.updates(sessionId);
  const calls = foldToolCalls(updates);
  assert.deepEqual([...calls.keys()], ["read-1", "edit-1", "cmd-1"], `tool calls${where}`);

  const read = calls.get("read-1");
  assert.equal(read.kind, "read");
  assert.deepEqual(read.statuses, ["pending", "in_progress", "completed"], `read-1 statuses${where}`);
  assert.deepEqual(read.rawInput, { path: "notes.md" });
  assert.ok(read.locations?.some((l) => l.path === path.join(sb.ws, "notes.md")), `read-1 locations ${JSON.stringify(read.locations)} name ${path.join(sb.ws, "notes.md")}`);
  assert.match(toolText(read), /The add function subtracts/, "read-1 content carries the file's text");

  const edit = calls.get("edit-1");
  assert.equal(edit.kind, "edit");
  assert.match(edit.title ?? "", /calc\.py/, "edit-1 title names the file");
  assert.deepEqual(edit.statuses, ["pending", "in_progress", "completed"], `edit-1 statuses${where}`);
  assert.deepEqual(edit.rawInput, { path: "calc.py", old_string: "a - b", new_string: "a + b" });
  assert.ok(edit.locations?.some((l) => l.path === path.join(sb.ws, "calc.py")), `edit-1 locations ${JSON.stringify(edit.locations)}`);
  const diffs = (edit.content ?? []).filter((c) => c.type === "diff");
  assert.equal(diffs.length, 1, `edit-1 has one diff content: ${JSON.stringify(edit.content)}`);
  assert.equal(diffs[0].path, path.join(sb.ws, "calc.py"), "the diff's path is the absolute path of calc.py");
  assert.equal(diffs[0].oldText, CALC_BEFORE, "diff oldText is the file before");
  assert.equal(diffs[0].newText, CALC_AFTER, "diff newText is the file after");

  const cmd = calls.get("cmd-1");
  assert.equal(cmd.kind, "execute");
  assert.deepEqual(cmd.statuses, ["pending", "in_progress", "completed"], `cmd-1 statuses${where}`);
  assert.deepEqual(cmd.rawInput, { command: "python3 test_calc.py" });
  assert.match(toolText(cmd), /ok: add works/, "cmd-1 content carries the command's output");

  // Order: text, then each call from pending to completed; the permission
  // request between the call's pending and in_progress; the answer last.
  const idx = (label) => {
    const i = steps.indexOf(label);
    assert.ok(i >= 0, `missing ${label}${where}`);
    return i;
  };
  const firstText = steps.findIndex((s) => s.startsWith("agent_message_chunk"));
  assert.ok(firstText >= 0 && firstText < idx("tool_call(read-1:pending)"), `the model's text comes before its first tool call${where}`);
  const textBefore = agentText(updates.slice(0, updates.findIndex((u) => u.sessionUpdate === "tool_call")));
  assert.equal(textBefore.trim(), "Reading first.");
  assert.ok(idx("tool_call_update(read-1:completed)") < idx("tool_call(edit-1:pending)"), `read-1 completes before edit-1 starts${where}`);
  assert.ok(idx("tool_call(edit-1:pending)") < idx("permission(edit-1)"), `edit-1 is announced before it is asked for${where}`);
  assert.ok(idx("permission(edit-1)") < idx("tool_call_update(edit-1:in_progress)"), `edit-1 runs after it is allowed${where}`);
  assert.ok(idx("tool_call_update(edit-1:completed)") < idx("tool_call(cmd-1:pending)"), `edit-1 completes before cmd-1 starts${where}`);
  assert.ok(idx("tool_call(cmd-1:pending)") < idx("permission(cmd-1)"), `cmd-1 is announced before it is asked for${where}`);
  assert.ok(idx("permission(cmd-1)") < idx("tool_call_update(cmd-1:in_progress)"), `cmd-1 runs after it is allowed${where}`);
  const lastCall = idx("tool_call_update(cmd-1:completed)");
  const after = updates.slice(updates.findLastIndex((u) => u.toolCallId === "cmd-1") + 1);
  assert.equal(agentText(after).trim(), "Done.", `the answer comes after the last tool call${where}`);
  assert.ok(lastCall < steps.length - 1);

  // Disk.
  assert.equal(calcWhileAsked, CALC_BEFORE, "calc.py must not change while its edit waits for permission");
  assert.equal(await readFile(path.join(sb.ws, "calc.py"), "utf8"), CALC_AFTER, "calc.py on disk");

  // Store: one run whose id is the session id, succeeded, with both approvals granted once.
  const runs = await sb.runs();
  assert.equal(runs.length, 1, `runs: ${JSON.stringify(runs)}`);
  assert.equal(runs[0].run_id, sessionId, "the session id is the run id");
  assert.equal(runs[0].status?.kind, "succeeded");
  assert.match(runs[0].goal, /Fix the add function in calc\.py/);
  const created = await sb.runCreated(sessionId);
  assert.equal(created.workspace_path, sb.ws, "the run's workspace is the session's cwd");
  assert.equal(created.approval_mode, "ask_writes", "mode reads is BearAgent's ask_writes");
  assert.equal(created.parent, null);
  const events = await sb.events(sessionId);
  const granted = events.filter((e) => e.payload.type === "approval_granted");
  assert.deepEqual(granted.map((e) => [e.payload.call_id, e.payload.scope]), [["edit-1", "once"], ["cmd-1", "once"]]);
  const completed = events.filter((e) => e.payload.type === "tool_call_completed").map((e) => e.payload.result.call_id);
  assert.deepEqual(completed, ["read-1", "edit-1", "cmd-1"]);
  assert.equal(agent.unexpectedPermissions.length, 0);
});

acpTest("a prompt with an embedded resource: accepted, the run's goal carries the text and the resource", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const agent = start(sb, { script: await sb.script([{ final_answer: "Seen." }]) });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const uri = `file://${path.join(sb.ws, "notes.md")}`;
  const res = await agent.request("session/prompt", {
    sessionId,
    prompt: [
      { type: "text", text: "Summarise the attached notes" },
      { type: "resource", resource: { uri, mimeType: "text/markdown", text: "Attached: the zebra-42 marker." } },
    ],
  }, 60_000);
  assert.equal(res.stopReason, "end_turn");
  assert.equal(agentText(agent.updates(sessionId)).trim(), "Seen.");
  const runs = await sb.runs();
  assert.equal(runs.length, 1);
  const created = await sb.runCreated(runs[0].run_id);
  assert.match(created.goal, /Summarise the attached notes/);
  assert.match(created.goal, /zebra-42/, "the embedded resource's text reaches the model (assumed: as part of the goal)");
});

acpTest("the model's answer reaches the client on every prompt: 30 quick prompts in a row, each has its text before its response", async (t, { start }) => {
  // A fast run can settle before its streamed text is passed on; the text of
  // an answer must not be lost however quickly the run ends.
  const sb = await makeSandbox(t);
  const agent = start(sb, { script: await sb.script([{ final_answer: "Answer." }]) });
  await agent.initialize();
  const missing = [];
  for (let i = 0; i < 30; i++) {
    // A new session each time: every prompt is a first run.
    const { sessionId } = await agent.newSession();
    const res = await agent.prompt(sessionId, `question ${i}`);
    assert.equal(res.stopReason, "end_turn");
    const text = agentText(agent.updates(sessionId));
    if (text.trim() !== "Answer.") missing.push({ i, sessionId, before: text });
  }
  await sleep(500);
  const report = missing.map(({ i, sessionId, before }) => {
    const later = agentText(agent.updates(sessionId));
    return `prompt ${i}: text before the response ${JSON.stringify(before)}, after 500 ms more ${JSON.stringify(later)}`;
  });
  assert.deepEqual(report, [], "prompts whose answer text did not reach the client before the prompt's response");
});
