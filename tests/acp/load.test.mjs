// A session is a BearAgent thread: a second prompt follows the first run up;
// a later process loads the session by id, hears the conversation again and
// continues the thread from its newest run.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { acpTest, makeSandbox, trace, agentText, foldToolCalls } from "./harness.mjs";

const STEPS = [
  { text: "Looking.", tool_call: { tool_name: "read_file", arguments: { path: "notes.md" }, call_id: "r1" } },
  { final_answer: "Noted." },
];

acpTest("two prompts are a thread; session/load in a new process replays it and a third prompt follows the newest run", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script(STEPS);

  // Process 1: two prompts.
  const first = start(sb, { script });
  await first.initialize();
  const { sessionId } = await first.newSession();
  assert.equal((await first.prompt(sessionId, "first goal: alpha")).stopReason, "end_turn");
  const mark = first.log.length;
  assert.equal((await first.prompt(sessionId, "second goal: beta")).stopReason, "end_turn");
  const secondCalls = foldToolCalls(first.updates(sessionId, mark));
  assert.equal(secondCalls.get("r1")?.status, "completed", "the second prompt's read ran");
  assert.equal(agentText(first.updates(sessionId, mark)).replace("Looking.", "").trim(), "Noted.");

  let runs = await sb.runs();
  assert.equal(runs.length, 2, `runs: ${JSON.stringify(runs.map((r) => r.goal))}`);
  const run1 = runs.find((r) => r.run_id === sessionId);
  assert.ok(run1, "the first run's id is the session id");
  const run2 = runs.find((r) => r.run_id !== sessionId);
  assert.match(run1.goal, /first goal: alpha/);
  assert.match(run2.goal, /second goal: beta/);
  const created2 = await sb.runCreated(run2.run_id);
  assert.equal(created2.parent?.run_id, sessionId, "the second run follows the first up");
  assert.equal(created2.parent?.fork, false);

  const exit = await first.stop();
  assert.deepEqual(exit, { code: 0, signal: null }, "bearagent acp exits 0 when stdin closes");

  // Process 2: load and replay.
  const second = start(sb, { script });
  await second.initialize();
  const loaded = await second.request("session/load", { sessionId, cwd: sb.ws, mcpServers: [] });
  const replay = second.updates(sessionId);
  const steps = trace(second.log, sessionId);
  const where = `\nreplay: ${steps.join(" ")}`;
  assert.ok(replay.length > 0, `the replay comes before the session/load response${where}`);
  if (loaded?.modes) assert.equal(loaded.modes.currentModeId, "reads");

  const userTexts = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content?.text ?? "");
  assert.equal(userTexts.length, 2, `one user_message_chunk per goal${where}`);
  assert.match(userTexts[0], /first goal: alpha/);
  assert.match(userTexts[1], /second goal: beta/);
  const iUser2 = replay.findIndex((u) => u.sessionUpdate === "user_message_chunk" && /beta/.test(u.content?.text ?? ""));
  const firstRun = replay.slice(0, iUser2);
  const secondRun = replay.slice(iUser2);
  for (const [name, part] of [["first", firstRun], ["second", secondRun]]) {
    assert.equal(part[0]?.sessionUpdate, "user_message_chunk", `the ${name} run starts with its goal${where}`);
    assert.match(agentText(part), /Noted\./, `the ${name} run's answer is replayed${where}`);
    const calls = foldToolCalls(part);
    assert.equal(calls.get("r1")?.status, "completed", `the ${name} run's read is replayed as completed${where}`);
    assert.equal(calls.get("r1")?.kind, "read");
    const iCall = part.findIndex((u) => u.toolCallId === "r1");
    const iAnswer = part.findIndex((u) => u.sessionUpdate === "agent_message_chunk" && /Noted\./.test(u.content?.text ?? ""));
    assert.ok(iCall < iAnswer, `the ${name} run's tool call comes before its answer${where}`);
  }

  // A third prompt continues from the newest run.
  const before = second.log.length;
  assert.equal((await second.prompt(sessionId, "third goal: gamma")).stopReason, "end_turn");
  assert.match(agentText(second.updates(sessionId, before)), /Noted\./);
  runs = await sb.runs();
  assert.equal(runs.length, 3);
  const run3 = runs.find((r) => /third goal: gamma/.test(r.goal));
  assert.ok(run3, "the third prompt made a run");
  const created3 = await sb.runCreated(run3.run_id);
  assert.equal(created3.parent?.run_id, run2.run_id, "the third run follows the second (newest) up");
  assert.equal(run3.status?.kind, "succeeded");
});

acpTest("session/load of an unknown session id is an error, and the process goes on", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script(STEPS);
  // One real run so the store is not empty.
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  assert.equal((await agent.prompt(sessionId, "a goal")).stopReason, "end_turn");

  // A well-formed run id (UUID v7 shape) that no run has, and a string that is no run id.
  const unknown = "01a00000-0000-7000-8000-" + randomUUID().slice(-12);
  for (const id of [unknown, "not-a-session"]) {
    let error;
    try {
      const r = await agent.request("session/load", { sessionId: id, cwd: sb.ws, mcpServers: [] });
      assert.fail(`session/load ${id} answered ${JSON.stringify(r)}`);
    } catch (e) {
      if (e instanceof assert.AssertionError) throw e;
      error = e;
    }
    assert.ok(Number.isInteger(error.code), `session/load ${id}: a JSON-RPC error, got ${error}`);
    assert.equal(error.code, -32602, `session/load ${id}: ${JSON.stringify({ code: error.code, message: error.message, data: error.data })}`);
    assert.equal(agent.updates(id).length, 0, "nothing replayed for an unknown session");
  }
  // A prompt to the unknown id is refused too, and the real session still works.
  let error;
  try {
    await agent.prompt(unknown, "hello");
  } catch (e) {
    error = e;
  }
  assert.equal(error?.code, -32602, `prompt to an unknown session: ${error}`);
  assert.equal((await agent.prompt(sessionId, "another goal")).stopReason, "end_turn");
});

acpTest("session/load replays a rejected write as failed and a cancelled prompt's goal, then continues", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([
    { tool_call: { tool_name: "write_file", arguments: { path: "out.md", content: "hello\n" }, call_id: "w1" } },
    { final_answer: "Left it." },
  ]);
  const first = start(sb, { script });
  await first.initialize();
  const { sessionId } = await first.newSession();
  first.onPermission = async () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
  assert.equal((await first.prompt(sessionId, "write it please")).stopReason, "end_turn");
  first.onPermission = async () => {
    await first.notify("session/cancel", { sessionId });
    return { outcome: { outcome: "cancelled" } };
  };
  assert.equal((await first.prompt(sessionId, "try once more")).stopReason, "cancelled");
  await first.stop();

  const second = start(sb, { script, approve: "all" });
  await second.initialize();
  await second.request("session/load", { sessionId, cwd: sb.ws, mcpServers: [] });
  const replay = second.updates(sessionId);
  const where = `\nreplay: ${trace(second.log, sessionId).join(" ")}`;
  const goals = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content?.text);
  assert.deepEqual(goals, ["write it please", "try once more"], where);
  const iSecond = replay.findIndex((u) => u.sessionUpdate === "user_message_chunk" && u.content?.text === "try once more");
  assert.equal(foldToolCalls(replay.slice(0, iSecond)).get("w1")?.status, "failed", `the rejected write is replayed as failed${where}`);
  assert.match(agentText(replay.slice(0, iSecond)), /Left it\./, where);
  assert.notEqual(foldToolCalls(replay.slice(iSecond)).get("w1")?.status, "completed", `the cancelled prompt's write never completed${where}`);

  // The next prompt follows the cancelled run up; in mode all the write is made.
  assert.equal((await second.prompt(sessionId, "now write it")).stopReason, "end_turn");
  const runs = await sb.runs();
  assert.equal(runs.length, 3);
  const cancelled = runs.find((r) => r.goal === "try once more");
  assert.equal(cancelled?.status?.kind, "cancelled");
  const third = runs.find((r) => r.goal === "now write it");
  assert.equal((await sb.runCreated(third.run_id)).parent?.run_id, cancelled.run_id);
  assert.equal(second.log.filter((e) => e.kind === "permission").length, 0, "--approve all: nothing asked");
});
