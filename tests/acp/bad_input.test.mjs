// Bad input on raw stdio (bytes written by hand, not through the SDK): each
// gets its JSON-RPC error, the process stays up and answers `initialize`
// after it, and every stdout line is a JSON-RPC 2.0 message.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { makeSandbox, StdoutTap, BIN, sleep, withTimeout } from "./harness.mjs";

/** `bearagent acp` with stdin/stdout in the test's hands. */
function startRaw(t, sb, args) {
  const child = spawn(BIN, ["acp", ...args], { cwd: sb.dir, env: sb.env, stdio: ["pipe", "pipe", "pipe"] });
  const tap = new StdoutTap();
  let stderr = "";
  child.stdout.on("data", (c) => tap.push(c));
  child.stdout.on("end", () => tap.end());
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d) => {
    stderr += d;
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  child.stdin.on("error", () => {});
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end();
      const done = await Promise.race([exited, sleep(5000).then(() => null)]);
      if (!done) child.kill("SIGKILL");
    }
  });
  const raw = {
    child,
    tap,
    exited,
    get stderr() {
      return stderr;
    },
    /** Writes `line` (a string as is, anything else as JSON) and a newline. */
    async send(line) {
      const text = typeof line === "string" ? line : JSON.stringify(line);
      if (!child.stdin.write(text + "\n")) {
        await withTimeout(new Promise((resolve) => child.stdin.once("drain", resolve)), 120_000, "stdin to drain");
      }
    },
    /** The response to request `id`. */
    response(id, ms = 30_000) {
      return tap.waitFor((m) => m.id === id && !("method" in m), ms, `the response to request ${JSON.stringify(id)}`);
    },
    async request(id, method, params, ms) {
      await raw.send({ jsonrpc: "2.0", id, method, params });
      return raw.response(id, ms);
    },
    alive() {
      return child.exitCode === null && child.signalCode === null;
    },
    diagnostics() {
      const lines = tap.messages.slice(-20).map((m) => JSON.stringify(m).slice(0, 400));
      return `stdout (last ${lines.length} of ${tap.messages.length}):\n${lines.join("\n")}\nproblems: ${JSON.stringify(tap.problems)}\nstderr tail:\n${stderr.slice(-3000)}`;
    },
  };
  return raw;
}

const INIT = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } };

test("bad input on stdio: each gets its JSON-RPC error, the process stays up, stdout stays JSON-RPC", { timeout: 240_000 }, async (t) => {
  const sb = await makeSandbox(t);
  const script = await sb.script([{ final_answer: "Still here." }]);
  const raw = startRaw(t, sb, ["--script", script]);
  let nextId = 1;
  const id = () => nextId++;

  /** A valid initialize still answers. */
  const stillUp = async (after) => {
    assert.ok(raw.alive(), `the process exited after ${after}`);
    const initId = id();
    const r = await raw.request(initId, "initialize", INIT);
    assert.equal(r.error, undefined, `initialize after ${after}: ${JSON.stringify(r.error)}`);
    assert.equal(r.result?.protocolVersion, 1, `initialize after ${after}`);
    return initId;
  };
  const expectError = (r, code, what) => {
    assert.ok(r.error, `${what}: expected an error, got ${JSON.stringify(r).slice(0, 500)}`);
    assert.equal(r.error.code, code, `${what}: ${JSON.stringify(r.error)}`);
    assert.equal(typeof r.error.message, "string");
    return r.error;
  };
  const describe = (error) => `${error.message} ${JSON.stringify(error.data ?? "")}`;

  try {
    await stillUp("start");

    // 1. A line that is not JSON, and a truncated JSON object: parse errors with id null.
    await raw.send("this is not json");
    const parse1 = await raw.tap.waitFor((m) => m.id === null && m.error, 10_000, "a parse error for the non-JSON line");
    expectError(parse1, -32700, "non-JSON line");
    await stillUp("a non-JSON line");
    await raw.send('{"jsonrpc":"2.0","id":999,"method":"initialize"');
    await stillUp("a truncated JSON line");
    const nullErrors = raw.tap.messages.filter((m) => m.id === null && m.error);
    assert.equal(nullErrors.length, 2, `one id-null error per unparseable line: ${JSON.stringify(nullErrors)}`);
    for (const e of nullErrors) assert.equal(e.error.code, -32700);
    assert.ok(!raw.tap.messages.some((m) => m.id === 999), "the truncated request must not be answered as if parsed");

    // 2. An unknown method: method not found; an unknown notification: no answer at all.
    const unknownId = id();
    expectError(await raw.request(unknownId, "bearagent/no_such_method", {}), -32601, "unknown method");
    await stillUp("an unknown method");
    const before = raw.tap.messages.length;
    await raw.send({ jsonrpc: "2.0", method: "bearagent/no_such_notification", params: {} });
    const initAfter = await stillUp("an unknown notification");
    const answeredNotification = raw.tap.messages.slice(before).filter((m) => !("method" in m) && m.id !== initAfter);
    assert.deepEqual(answeredNotification, [], "a notification gets no response");

    // 3. A prompt before any session, and for an unknown session id.
    const p1 = expectError(
      await raw.request(id(), "session/prompt", { sessionId: "no-session-yet", prompt: [{ type: "text", text: "hi" }] }),
      -32602,
      "prompt before any session",
    );
    assert.match(describe(p1), /no-session-yet/, "the error names the session id");
    await stillUp("a prompt before any session");

    // 4. session/new with a cwd that is a file, missing, or relative: invalid params naming it.
    const file = path.join(sb.ws, "calc.py");
    const missing = path.join(sb.dir, "no", "such", "folder");
    for (const [what, cwd] of [["a file", file], ["a missing path", missing], ["a relative path", "ws"]]) {
      const e = expectError(await raw.request(id(), "session/new", { cwd, mcpServers: [] }), -32602, `session/new with ${what} as cwd`);
      assert.ok(describe(e).includes(cwd), `the error for ${what} names ${cwd}: ${describe(e)}`);
      await stillUp(`session/new with ${what}`);
    }
    // A folder around BearAgent's own data (its home is inside sb.dir): refused, naming it.
    const around = expectError(await raw.request(id(), "session/new", { cwd: sb.dir, mcpServers: [] }), -32602, "session/new around BearAgent's data");
    assert.ok(describe(around).includes(sb.home), `the error names ${sb.home}: ${describe(around)}`);
    await stillUp("session/new around BearAgent's data");
    // And one without a cwd at all.
    expectError(await raw.request(id(), "session/new", { mcpServers: [] }), -32602, "session/new without cwd");
    await stillUp("session/new without cwd");

    // A real session, then a prompt to a made-up session id.
    const created = await raw.request(id(), "session/new", { cwd: sb.ws, mcpServers: [] });
    assert.equal(created.error, undefined, JSON.stringify(created.error));
    const sessionId = created.result.sessionId;
    expectError(
      await raw.request(id(), "session/prompt", { sessionId: sessionId + "x", prompt: [{ type: "text", text: "hi" }] }),
      -32602,
      "prompt to an unknown session",
    );
    await stillUp("a prompt to an unknown session");

    // 5. A 50 MB prompt: an error, no run; then the session still answers a normal prompt.
    const bigId = id();
    const big = { jsonrpc: "2.0", id: bigId, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "x".repeat(50 * 1024 * 1024) }] } };
    await raw.send(big);
    const bigRes = await raw.response(bigId, 120_000);
    assert.ok(bigRes.error, `a 50 MB prompt must be refused, got ${JSON.stringify(bigRes).slice(0, 300)}`);
    assert.ok(JSON.stringify(bigRes).length < 100_000, "the error does not echo the prompt back");
    await stillUp("a 50 MB prompt");
    assert.deepEqual(await sb.runs(), [], "the refused prompt made no run");
    const okId = id();
    const ok = await raw.request(okId, "session/prompt", { sessionId, prompt: [{ type: "text", text: "a normal prompt" }] }, 60_000);
    assert.equal(ok.error, undefined, `the normal prompt after the big one: ${JSON.stringify(ok.error)}`);
    assert.equal(ok.result?.stopReason, "end_turn");
    const chunks = raw.tap.messages.filter((m) => m.method === "session/update" && m.params?.sessionId === sessionId && m.params.update?.sessionUpdate === "agent_message_chunk");
    assert.match(chunks.map((m) => m.params.update.content?.text ?? "").join(""), /Still here\./);
    const runs = await sb.runs();
    assert.equal(runs.length, 1);
    assert.equal(runs[0].run_id, sessionId);
    assert.match(runs[0].goal, /a normal prompt/);

    // Every stdout line was JSON-RPC 2.0; every request got exactly one response.
    raw.tap.assertClean();
    for (let i = 1; i < nextId; i++) {
      const responses = raw.tap.messages.filter((m) => m.id === i && !("method" in m));
      assert.equal(responses.length, 1, `request ${i} got ${responses.length} responses`);
    }

    // Closing stdin ends the process cleanly.
    raw.child.stdin.end();
    const exit = await withTimeout(raw.exited, 10_000, "bearagent acp to exit after stdin closed");
    assert.deepEqual(exit, { code: 0, signal: null }, "exit when stdin closes");
  } catch (err) {
    err.message = `${err.message}\n${raw.diagnostics()}`;
    throw err;
  }
});
