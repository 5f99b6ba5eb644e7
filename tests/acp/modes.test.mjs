// session/set_mode: "all" runs writes and commands without asking, "ask"
// asks even for reads, an unknown mode is invalid params; the mode reaches
// the run in the store.

import assert from "node:assert/strict";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { acpTest, makeSandbox, foldToolCalls, trace, toolText, rejectsWithCode } from "./harness.mjs";

acpTest("set_mode all: no permission request, the file is written and the command runs, the run is allow_all", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "write_file", arguments: { path: "out.md", content: "hello\n" }, call_id: "w1" } },
    { tool_call: { tool_name: "run_command", arguments: { command: "cat out.md" }, call_id: "c1" } },
    { final_answer: "Written." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId, modes } = await agent.newSession();
  assert.equal(modes?.currentModeId, "reads");
  const setRes = await agent.request("session/set_mode", { sessionId, modeId: "all" });
  assert.equal(typeof setRes, "object", `set_mode answers an object: ${JSON.stringify(setRes)}`);

  const res = await agent.prompt(sessionId, "Write hello to out.md");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.equal(agent.log.filter((e) => e.kind === "permission").length, 0, `no permission request in mode all${where}`);
  assert.equal(await readFile(path.join(sb.ws, "out.md"), "utf8"), "hello\n");

  const calls = foldToolCalls(agent.updates(sessionId));
  const w1 = calls.get("w1");
  assert.deepEqual(w1?.statuses, ["pending", "in_progress", "completed"], where);
  const diff = (w1.content ?? []).find((c) => c.type === "diff");
  assert.ok(diff, `w1 shows a diff: ${JSON.stringify(w1.content)}`);
  assert.equal(diff.path, path.join(sb.ws, "out.md"));
  assert.ok(diff.oldText === null || diff.oldText === undefined, `a new file has no oldText: ${JSON.stringify(diff.oldText)}`);
  assert.equal(diff.newText, "hello\n");
  const c1 = calls.get("c1");
  assert.equal(c1?.kind, "execute");
  assert.equal(c1.status, "completed", where);
  assert.match(toolText(c1), /hello/, "the command's output reaches the client");

  const runs = await sb.runs();
  assert.equal(runs.length, 1);
  const created = await sb.runCreated(runs[0].run_id);
  assert.equal(created.approval_mode, "allow_all", "mode all is BearAgent's allow_all");
  const events = await sb.events(runs[0].run_id);
  assert.ok(!events.some((e) => e.payload.type === "approval_requested"), "nothing asked in the store either");
});

acpTest("set_mode ask: even a read asks; answering allow_once lets it run; the run is ask_all", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "read_file", arguments: { path: "notes.md" }, call_id: "r1" } },
    { final_answer: "Read." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  await agent.request("session/set_mode", { sessionId, modeId: "ask" });
  const asked = [];
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  };
  const res = await agent.prompt(sessionId, "Read the notes");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.deepEqual(asked.map((p) => p.toolCall?.toolCallId), ["r1"], `the read is asked in mode ask${where}`);
  assert.equal(foldToolCalls(agent.updates(sessionId)).get("r1")?.status, "completed", where);
  const runs = await sb.runs();
  assert.equal((await sb.runCreated(runs[0].run_id)).approval_mode, "ask_all");
});

acpTest("set_mode with an unknown mode or an unknown session is invalid params, and the mode stays", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "write_file", arguments: { path: "out.md", content: "x\n" }, call_id: "w1" } },
    { final_answer: "ok" },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const bad = await rejectsWithCode(agent.request("session/set_mode", { sessionId, modeId: "yolo" }), -32602, "set_mode yolo");
  assert.match(`${bad.message} ${JSON.stringify(bad.data ?? "")}`, /yolo/, "the error names the mode");
  await rejectsWithCode(agent.request("session/set_mode", { sessionId: "no-such-session", modeId: "all" }), -32602, "set_mode of an unknown session");
  // Still mode reads: the write asks.
  const asked = [];
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  };
  assert.equal((await agent.prompt(sessionId, "write")).stopReason, "end_turn");
  assert.deepEqual(asked.map((p) => p.toolCall?.toolCallId), ["w1"], "the failed set_mode left the mode at reads");
});
