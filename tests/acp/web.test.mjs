// web_fetch through ACP: a URL the user wrote in the prompt is fetched by
// the backend from a loopback server the test starts (listed in the
// config's `[web] allow_private_hosts`, the one way past the address
// floor) without asking; the editor sees a `fetch` tool call go from
// pending to completed with the page's text, and the run records it. A
// URL the model made up asks the editor, showing the whole URL.

import assert from "node:assert/strict";
import http from "node:http";
import path from "node:path";
import { writeFile } from "node:fs/promises";
import { acpTest, makeSandbox, foldToolCalls, toolText, trace } from "./harness.mjs";
import * as schema from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

const PAGE = "<html><head><title>Changelog</title></head><body><h1>Changelog</h1><p>Version 2 adds the fetch tool.</p></body></html>";

/** A loopback server with one page; its port and the paths it was asked for. */
async function startSite() {
  const asked = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url);
    if (req.url !== "/changelog") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not here");
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { port: server.address().port, asked, close: () => new Promise((ok) => server.close(ok)) };
}

acpTest("a URL the user wrote is fetched without asking: the editor sees a fetch tool call with the page's text", async (t, { start }) => {
  const site = await startSite();
  t.after(() => site.close());
  const url = `http://127.0.0.1:${site.port}/changelog`;
  const sb = await makeSandbox(t);
  await writeFile(
    path.join(sb.home, "config.toml"),
    ["version = 1", "", "[web]", `allow_private_hosts = ["127.0.0.1:${site.port}"]`, ""].join("\n"),
  );
  const script = await sb.script([
    { tool_call: { tool_name: "web_fetch", arguments: { url }, call_id: "fetch-1" } },
    { final_answer: "Version 2 adds the fetch tool." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const asked = [];
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "reject_once" } };
  };

  const res = await agent.prompt(sessionId, `What does ${url} say about version 2?`);
  schema.zPromptResponse.parse(res);
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.equal(asked.length, 0, `the user's own URL is fetched without asking${where}`);
  assert.deepEqual(site.asked, ["/changelog"], "one request reached the server");

  const fetches = [...foldToolCalls(agent.updates(sessionId)).values()].filter((c) => c.kind === "fetch");
  assert.equal(fetches.length, 1, `one fetch tool call${where}`);
  const [fetch] = fetches;
  assert.deepEqual(fetch.rawInput, { url });
  assert.equal(fetch.statuses[0], "pending", where);
  assert.equal(fetch.statuses.at(-1), "completed", where);
  assert.match(toolText(fetch), /Version 2 adds the fetch tool/, "the result carries the page as text");

  const [run] = await sb.runs();
  const types = (await sb.events(run.run_id)).map((e) => e.payload.type);
  assert.ok(types.includes("web_fetched"), `the fetch is an event: ${types}`);
});

acpTest("a URL the model made up asks the editor, showing the whole URL; rejected, nothing reaches the server", async (t, { start }) => {
  const site = await startSite();
  t.after(() => site.close());
  const made = `http://127.0.0.1:${site.port}/changelog?leak=secret-token`;
  const sb = await makeSandbox(t);
  await writeFile(
    path.join(sb.home, "config.toml"),
    ["version = 1", "", "[web]", `allow_private_hosts = ["127.0.0.1:${site.port}"]`, ""].join("\n"),
  );
  const script = await sb.script([
    { tool_call: { tool_name: "web_fetch", arguments: { url: made }, call_id: "fetch-made" } },
    { final_answer: "I could not read it." },
  ]);
  const agent = start(sb, { script });
  await agent.initialize();
  const { sessionId } = await agent.newSession();
  const asked = [];
  agent.onPermission = async ({ params }) => {
    asked.push(params);
    return { outcome: { outcome: "selected", optionId: "reject_once" } };
  };

  const res = await agent.prompt(sessionId, "Find the changelog of this project");
  const where = `\ntrace: ${trace(agent.log, sessionId).join(" ")}`;
  assert.equal(res.stopReason, "end_turn", where);
  assert.equal(asked.length, 1, `the made-up URL is asked for${where}`);
  assert.ok(JSON.stringify(asked[0].toolCall).includes("leak=secret-token"), `the question shows the whole URL: ${JSON.stringify(asked[0].toolCall)}`);
  assert.deepEqual(site.asked, [], "rejected: no request reached the server");
  const [fetch] = [...foldToolCalls(agent.updates(sessionId)).values()].filter((c) => c.kind === "fetch");
  assert.equal(fetch?.statuses.at(-1), "failed", where);
});
