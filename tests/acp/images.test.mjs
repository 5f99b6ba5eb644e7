// Image content blocks in a prompt: a real PNG goes with the goal (the run's
// first event references it, by type read from its bytes); a block whose
// bytes are not an image gets a JSON-RPC error, makes no run, and the session
// still answers.

import assert from "node:assert/strict";
import path from "node:path";
import { acpTest, makeSandbox, rejectsWithCode } from "./harness.mjs";

// A real 1×1 PNG.
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4DwQABQEBAAUY2E4AAAAASUVORK5CYII=";

acpTest("an image block goes with the goal; text posing as a PNG is refused and makes no run", async (t, { start }) => {
  const sb = await makeSandbox(t);
  const agent = start(sb, { script: await sb.script([{ final_answer: "It is the error state." }]) });
  await agent.initialize();
  const { sessionId } = await agent.newSession();

  const fake = Buffer.from("I am text, not an image").toString("base64");
  const err = await rejectsWithCode(
    agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "why is the button red?" },
        { type: "image", data: fake, mimeType: "image/png", uri: "file:///tmp/fake.png" },
      ],
    }),
    -32602,
    "an image block that is text",
  );
  assert.match(err.message, /fake\.png is not a PNG, JPEG, WebP or GIF image/);
  assert.deepEqual(await sb.runs(), [], "the refused prompt made no run");

  const res = await agent.request("session/prompt", {
    sessionId,
    prompt: [
      { type: "text", text: "why is the button red?" },
      { type: "image", data: PNG_BASE64, mimeType: "image/png", uri: `file://${path.join(sb.dir, "shot.png")}` },
    ],
  });
  assert.equal(res.stopReason, "end_turn");
  const runs = await sb.runs();
  assert.equal(runs.length, 1);
  const created = await sb.runCreated(runs[0].run_id);
  assert.equal(created.goal, "why is the button red?");
  assert.deepEqual(
    created.images.map((i) => ({ name: i.name, media_type: i.media_type, bytes: i.bytes })),
    [{ name: "shot.png", media_type: "png", bytes: Buffer.from(PNG_BASE64, "base64").length }],
  );
});
