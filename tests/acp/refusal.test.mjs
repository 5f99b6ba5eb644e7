// A goal the user's UserPromptSubmit hook blocks: the prompt ends with
// stopReason "refusal" (issue 57), never a JSON-RPC error, and no model
// call is made; the run in the store failed with the hook's reason.

import assert from "node:assert/strict";
import path from "node:path";
import { writeFile } from "node:fs/promises";
import { acpTest, makeSandbox, trace } from "./harness.mjs";
import * as schema from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

acpTest("a goal a UserPromptSubmit hook blocks ends the prompt with stopReason refusal", async (t, { start }) => {
  const sb = await makeSandbox(t);
  await writeFile(
    path.join(sb.home, "config.toml"),
    [
      "version = 1",
      "",
      "[[hooks.UserPromptSubmit]]",
      `command = "sh -c 'echo no deploys from the agent >&2; exit 2'"`,
      "",
    ].join("\n"),
  );
  const script = await sb.script([{ final_answer: "This must not be said." }]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();

  const res = await agent.prompt(sessionId, "Deploy to production");
  schema.zPromptResponse.parse(res);
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "refusal", where);

  const [run] = await sb.runs();
  const types = (await sb.events(run.run_id)).map((e) => e.payload.type);
  assert.ok(types.includes("hook_ran"), `${types}`);
  assert.ok(!types.includes("model_call_started"), `no model call: ${types}`);
  assert.equal(run.status?.kind ?? run.status, "failed", JSON.stringify(run));
});

acpTest("a goal no hook blocks still ends end_turn (the refusal is the hook's, not every failure's)", async (t, { start }) => {
  const sb = await makeSandbox(t);
  await writeFile(
    path.join(sb.home, "config.toml"),
    ["version = 1", "", "[[hooks.UserPromptSubmit]]", `command = "sh -c 'exit 0'"`, ""].join("\n"),
  );
  const script = await sb.script([{ final_answer: "Fine." }]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const res = await agent.prompt(sessionId, "Say fine");
  assert.equal(res.stopReason, "end_turn", `\ntrace: ${trace(agent.log, sessionId).join(" ")}`);
});
