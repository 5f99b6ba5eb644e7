// initialize and session/new against the real binary: the capabilities
// bearagent announces, the modes a session starts in, and that a session's id
// is not handed out twice.

import assert from "node:assert/strict";
import { acpTest, makeSandbox, acp } from "./harness.mjs";
import * as schema from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

acpTest("initialize announces protocol 1, loadSession, images and embedded context, agentInfo bearagent", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const agent = start(sb, { script: await sb.script([{ final_answer: "ok" }]) });
  const init = await agent.initialize();
  schema.zInitializeResponse.parse(init);
  assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
  assert.equal(init.agentCapabilities?.loadSession, true, "agentCapabilities.loadSession");
  assert.equal(init.agentCapabilities?.promptCapabilities?.image, true, "promptCapabilities.image");
  assert.equal(init.agentCapabilities?.promptCapabilities?.embeddedContext, true, "promptCapabilities.embeddedContext");
  assert.equal(init.agentInfo?.name, "bearagent", "agentInfo.name");
  assert.equal(typeof init.agentInfo?.version, "string", "agentInfo.version");
});

acpTest("session/new starts in mode reads with ask, reads and all, and gives each session its own id", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const agent = start(sb, { script: await sb.script([{ final_answer: "ok" }]) });
  await agent.initialize();
  const a = await agent.newSession();
  schema.zNewSessionResponse.parse(a);
  assert.equal(typeof a.sessionId, "string");
  assert.ok(a.sessionId.length > 0);
  assert.equal(a.modes?.currentModeId, "reads");
  assert.deepEqual(a.modes.availableModes.map((m) => m.id).sort(), ["all", "ask", "reads"]);
  for (const mode of a.modes.availableModes) assert.ok(mode.name, `mode ${mode.id} has a name`);
  const b = await agent.newSession();
  assert.notEqual(b.sessionId, a.sessionId, "two session/new calls gave the same id");
});

acpTest("--approve ask makes new sessions start in mode ask", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const agent = start(sb, { script: await sb.script([{ final_answer: "ok" }]), approve: "ask" });
  await agent.initialize();
  const s = await agent.newSession();
  assert.equal(s.modes?.currentModeId, "ask");
});

acpTest("a client asking for a newer protocol version is answered with version 1", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const agent = start(sb, { script: await sb.script([{ final_answer: "ok" }]) });
  const init = await agent.request("initialize", { protocolVersion: 2, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  assert.equal(init.protocolVersion, 1, "the agent answers the latest version it supports");
});
