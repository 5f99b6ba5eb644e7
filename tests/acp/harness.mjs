// Shared helpers of the `bearagent acp` end-to-end tests: a throwaway home and
// workspace per test, the real binary on stdio driven by the official ACP
// client SDK, a tap that checks every stdout line is a JSON-RPC 2.0 message,
// and the `bearagent runs` / `bearagent events` views of the store.

import { spawn, execFile } from "node:child_process";
import { mkdtemp, mkdir, writeFile, rm, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Writable } from "node:stream";
import { test } from "node:test";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";

export { acp };

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = process.env.BEARAGENT_BIN ?? path.join(REPO, "target/debug/bearagent");

/** The four permission options every asked call must offer. */
export const PERMISSION_OPTIONS = [
  { optionId: "allow_once", kind: "allow_once" },
  { optionId: "allow_always", kind: "allow_always" },
  { optionId: "reject_once", kind: "reject_once" },
  { optionId: "reject_always", kind: "reject_always" },
];

export const CALC_BEFORE = "def add(a, b):\n    return a - b\n";
export const CALC_AFTER = "def add(a, b):\n    return a + b\n";

export const DEFAULT_FILES = {
  "notes.md": "# notes\nThe add function subtracts; fix it.\n",
  "calc.py": CALC_BEFORE,
  "test_calc.py": 'from calc import add\nassert add(2, 3) == 5, add(2, 3)\nprint("ok: add works")\n',
};

export const CLIENT_CAPABILITIES = {
  fs: { readTextFile: false, writeTextFile: false },
  terminal: false,
};

/** Rejects with a message naming `what` when `promise` takes longer than `ms`. */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Checks that `msg` is one JSON-RPC 2.0 message (request, notification or
 * response) and returns a description of what is wrong, or null.
 */
export function jsonRpcProblem(msg) {
  if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return "not a JSON object";
  if (msg.jsonrpc !== "2.0") return `jsonrpc is ${JSON.stringify(msg.jsonrpc)}, not "2.0"`;
  const hasId = Object.hasOwn(msg, "id");
  if (hasId && !(msg.id === null || typeof msg.id === "string" || Number.isInteger(msg.id))) {
    return `id ${JSON.stringify(msg.id)} is not a string, integer or null`;
  }
  if (typeof msg.method === "string") {
    if (Object.hasOwn(msg, "result") || Object.hasOwn(msg, "error")) return "a request with result/error";
    return null;
  }
  if (!hasId) return "neither a method nor an id";
  const hasResult = Object.hasOwn(msg, "result");
  const hasError = Object.hasOwn(msg, "error");
  if (hasResult === hasError) return "a response needs exactly one of result and error";
  if (hasError) {
    if (!Number.isInteger(msg.error?.code)) return "error.code is not an integer";
    if (typeof msg.error.message !== "string") return "error.message is not a string";
  }
  return null;
}

/**
 * Splits a byte stream into lines, parses each as JSON and checks it is
 * JSON-RPC 2.0. `messages` keeps every parsed message in order; `problems`
 * every line that is not a JSON-RPC message.
 */
export class StdoutTap {
  constructor() {
    this.pending = "";
    this.messages = [];
    this.problems = [];
    this.listeners = new Set();
    this.decoder = new TextDecoder();
  }

  push(chunk) {
    this.pending += this.decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = this.pending.indexOf("\n")) >= 0) {
      const line = this.pending.slice(0, nl).replace(/\r$/, "");
      this.pending = this.pending.slice(nl + 1);
      if (line.length === 0) continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch (e) {
        this.problems.push({ line: line.slice(0, 300), problem: `not JSON: ${e.message}` });
        continue;
      }
      const problem = jsonRpcProblem(msg);
      if (problem) this.problems.push({ line: line.slice(0, 300), problem });
      this.messages.push(msg);
      for (const listener of this.listeners) listener(msg);
    }
  }

  end() {
    if (this.pending.trim().length > 0) {
      this.problems.push({ line: this.pending.slice(0, 300), problem: "unterminated last line" });
    }
    this.pending = "";
  }

  /** Waits for the first message (seen so far or later) matching `pred`. */
  waitFor(pred, ms, what) {
    const seen = this.messages.find(pred);
    if (seen) return Promise.resolve(seen);
    let listener;
    const found = new Promise((resolve) => {
      listener = (msg) => {
        if (pred(msg)) resolve(msg);
      };
      this.listeners.add(listener);
    });
    return withTimeout(found, ms, what).finally(() => this.listeners.delete(listener));
  }

  assertClean() {
    assert.deepEqual(this.problems, [], "every stdout line must be a JSON-RPC 2.0 message");
  }
}

/**
 * A throwaway data folder: BEARAGENT_HOME, HOME and XDG_* under a temp dir,
 * and a workspace `ws` holding `files`. Removed after the test.
 */
export async function makeSandbox(t, files = DEFAULT_FILES) {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "bearagent-acp-")));
  const home = path.join(dir, "home");
  const user = path.join(dir, "user");
  const ws = path.join(dir, "ws");
  for (const d of [home, user, ws, path.join(user, ".config"), path.join(user, ".local/share"), path.join(user, ".cache"), path.join(user, ".local/state")]) {
    await mkdir(d, { recursive: true });
  }
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(ws, name)), { recursive: true });
    await writeFile(path.join(ws, name), content);
  }
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith("BEARAGENT_") && key !== "BEARAGENT_BIN") delete env[key];
  }
  Object.assign(env, {
    BEARAGENT_HOME: home,
    HOME: user,
    XDG_CONFIG_HOME: path.join(user, ".config"),
    XDG_DATA_HOME: path.join(user, ".local/share"),
    XDG_CACHE_HOME: path.join(user, ".cache"),
    XDG_STATE_HOME: path.join(user, ".local/state"),
    NO_COLOR: "1",
  });
  t.after(async () => {
    if (!process.env.BEARAGENT_ACP_KEEP) await rm(dir, { recursive: true, force: true });
  });
  let scripts = 0;
  const sb = {
    dir,
    home,
    ws,
    env,
    /** Writes a scripted-model script and returns its path. */
    async script(steps) {
      const file = path.join(dir, `script-${++scripts}.json`);
      await writeFile(file, JSON.stringify(steps, null, 2));
      return file;
    },
    /** Runs `bearagent ARGS` on this home; resolves with stdout. */
    cli(args, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        execFile(BIN, args, { env, cwd: dir, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
          if (err) reject(new Error(`bearagent ${args.join(" ")} failed: ${err.message}\n${stderr}`));
          else resolve(stdout);
        });
      });
    },
    /** `bearagent runs --json`: the runs, newest first. */
    async runs() {
      return parseJsonList(await sb.cli(["runs", "--json"]), "bearagent runs --json");
    },
    /** `bearagent events RUN --json`: the run's events (the `event` objects). */
    async events(runId) {
      const items = parseJsonList(await sb.cli(["events", runId, "--json", "--limit", "100000"]), `bearagent events ${runId} --json`);
      return items.map((item) => (item.kind === "event" ? item.event : item.event ?? item));
    },
    /** The payload of the run's `run_created` event. */
    async runCreated(runId) {
      const created = (await sb.events(runId)).find((e) => e.payload?.type === "run_created");
      assert.ok(created, `run ${runId} has no run_created event`);
      return created.payload;
    },
  };
  return sb;
}

/** JSON lines or one JSON array, as a list. */
export function parseJsonList(text, what) {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  if (trimmed.startsWith("[")) return JSON.parse(trimmed);
  return trimmed.split("\n").filter((l) => l.trim()).map((l, i) => {
    try {
      return JSON.parse(l);
    } catch (e) {
      throw new Error(`${what}: line ${i + 1} is not JSON: ${l.slice(0, 200)}`);
    }
  });
}

/**
 * Starts `bearagent acp` on the sandbox and connects the official SDK client
 * to it. `log` records, in arrival order, every session/update notification
 * ({kind: "update", sessionId, update}) and permission request ({kind:
 * "permission", params}). Set `agent.onPermission = async (ctx) => response`
 * to answer permission requests; by default one is answered `reject_once` and
 * recorded as unexpected.
 */
export function startAgent(t, sb, { script, approve, args = [] } = {}) {
  const argv = ["acp"];
  if (script) argv.push("--script", script);
  if (approve) argv.push("--approve", approve);
  argv.push(...args);
  const child = spawn(BIN, argv, { cwd: sb.dir, env: sb.env, stdio: ["pipe", "pipe", "pipe"] });
  const tap = new StdoutTap();
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d) => {
    stderr += d;
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  child.stdin.on("error", () => {}); // EPIPE after the agent exited is reported by the tests
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  let exitInfo = null;
  exited.then((info) => (exitInfo = info));

  const readable = new ReadableStream({
    start(controller) {
      child.stdout.on("data", (chunk) => {
        tap.push(chunk);
        controller.enqueue(new Uint8Array(chunk));
      });
      child.stdout.on("end", () => {
        tap.end();
        try {
          controller.close();
        } catch {}
      });
      child.stdout.on("error", (e) => controller.error(e));
    },
  });
  const writable = Writable.toWeb(child.stdin);

  const log = [];
  const agent = {
    child,
    tap,
    log,
    argv,
    get stderr() {
      return stderr;
    },
    get exit() {
      return exitInfo;
    },
    unexpectedPermissions: [],
    onPermission: null,
  };

  const app = acp
    .client({ name: "bearagent-acp-tests" })
    .onRequest(acp.methods.client.session.requestPermission, async (ctx) => {
      withCallOfRun(ctx.params.toolCall);
      log.push({ kind: "permission", params: ctx.params, signal: ctx.signal });
      if (!agent.onPermission) {
        agent.unexpectedPermissions.push(ctx.params);
        return { outcome: { outcome: "selected", optionId: "reject_once" } };
      }
      return agent.onPermission(ctx);
    })
    .onNotification(acp.methods.client.session.update, (ctx) => {
      withCallOfRun(ctx.params.update);
      log.push({ kind: "update", sessionId: ctx.params.sessionId, update: ctx.params.update });
    });
  const conn = app.connect(acp.ndJsonStream(writable, readable));
  agent.conn = conn;

  /** Sends a request through the SDK; rejects with a clear message after `ms`. */
  agent.request = (method, params, ms = 30_000) =>
    withTimeout(conn.agent.request(method, params), ms, `the response to ${method}`);
  agent.notify = (method, params) => conn.agent.notify(method, params);

  agent.initialize = async () => {
    const res = await agent.request("initialize", {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: CLIENT_CAPABILITIES,
      clientInfo: { name: "bearagent-acp-tests", version: "0.1.0" },
    });
    return res;
  };

  agent.newSession = (cwd = sb.ws) => agent.request("session/new", { cwd, mcpServers: [] });

  /** Sends a text prompt; resolves with the PromptResponse. */
  agent.prompt = (sessionId, text, ms = 60_000) =>
    agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, ms);

  /** The session/update payloads of `sessionId` received so far, in order. */
  agent.updates = (sessionId, from = 0) =>
    log.slice(from).filter((e) => e.kind === "update" && e.sessionId === sessionId).map((e) => e.update);

  /** Closes stdin and waits for the process to exit (kills it after `ms`). */
  agent.stop = async (ms = 10_000) => {
    try {
      conn.close();
    } catch {}
    child.stdin.end();
    const info = await Promise.race([exited, sleep(ms).then(() => null)]);
    if (info) return info;
    child.kill("SIGKILL");
    await exited;
    return { code: null, signal: "SIGKILL", timedOut: true };
  };

  /**
   * Every session/update and session/request_permission line on stdout
   * reached the SDK's handlers: none was dropped for failing the ACP schema.
   */
  agent.assertSdkSawEverything = () => {
    const raw = (method) => tap.messages.filter((m) => m.method === method);
    const rawUpdates = raw("session/update");
    const sdkUpdates = log.filter((e) => e.kind === "update");
    if (rawUpdates.length !== sdkUpdates.length) {
      const seen = new Set(sdkUpdates.map((e) => JSON.stringify(e.update)));
      const dropped = rawUpdates.filter((m) => !seen.has(JSON.stringify(m.params?.update))).slice(0, 3);
      assert.fail(
        `${rawUpdates.length} session/update lines on stdout but the SDK accepted ${sdkUpdates.length} ` +
          `(the rest failed the ACP schema), e.g. ${JSON.stringify(dropped).slice(0, 1500)}`,
      );
    }
    const rawAsks = raw("session/request_permission");
    const sdkAsks = log.filter((e) => e.kind === "permission");
    assert.equal(sdkAsks.length, rawAsks.length, `${rawAsks.length} session/request_permission lines on stdout but the SDK accepted ${sdkAsks.length}: ${JSON.stringify(rawAsks).slice(0, 1500)}`);
  };

  /** What went on, for failure messages. */
  agent.diagnostics = () => {
    const lines = tap.messages.slice(-25).map((m) => JSON.stringify(m).slice(0, 400));
    return [
      `bearagent ${argv.join(" ")}`,
      `exit: ${JSON.stringify(exitInfo)}`,
      `stdout (last ${lines.length} of ${tap.messages.length} messages):`,
      ...lines.map((l) => `  ${l}`),
      `stderr (tail):`,
      stderr.slice(-3000),
    ].join("\n");
  };

  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) await agent.stop(5_000);
  });
  return agent;
}

/**
 * `test(name, fn)` that appends the agents' stdout/stderr to a failure, so a
 * failing test says what the binary did. `fn(t, ctx)` gets ctx.agents to
 * register agents started through ctx.start.
 */
export function acpTest(name, fn, { timeout = 90_000 } = {}) {
  test(name, { timeout }, async (t) => {
    const started = [];
    const ctx = {
      start(sb, opts) {
        const agent = startAgent(t, sb, opts);
        started.push(agent);
        return agent;
      },
    };
    try {
      await fn(t, ctx);
      for (const agent of started) {
        agent.tap.assertClean();
        agent.assertSdkSawEverything();
      }
    } catch (err) {
      const diag = started.map((a, i) => `--- agent process ${i + 1} ---\n${a.diagnostics()}`).join("\n");
      if (err && typeof err === "object" && diag) {
        try {
          err.message = `${err.message}\n${diag}`;
        } catch {}
      }
      throw err;
    }
  });
}

/**
 * bearagent names a tool call `RUN_ID/CALL_ID` (the model's call ids repeat
 * across the runs of a session). Checks that form and keeps the run in
 * `runId` and the model's id in `toolCallId`, which the tests compare with
 * their scripts.
 */
export function withCallOfRun(holder) {
  if (!holder || typeof holder.toolCallId !== "string") return;
  const m = /^([0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12})\/(.+)$/.exec(holder.toolCallId);
  assert.ok(m, `toolCallId ${holder.toolCallId} is not RUN_ID/CALL_ID`);
  holder.runId = m[1];
  holder.toolCallId = m[2];
}

/**
 * Folds tool_call / tool_call_update notifications as a client would: the
 * latest value of each field wins, and a tool_call without a status is
 * pending (the ACP schema's default). Returns Map(toolCallId → state), where
 * state.statuses lists the statuses in order (a repeated status, as while a
 * command's output streams, counted once) and state.updates every
 * notification of that call.
 */
export function foldToolCalls(updates) {
  const calls = new Map();
  for (const u of updates) {
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    let state = calls.get(u.toolCallId);
    if (!state) {
      state = { toolCallId: u.toolCallId, statuses: [], updates: [] };
      calls.set(u.toolCallId, state);
    }
    state.updates.push(u);
    for (const [key, value] of Object.entries(u)) {
      if (key === "sessionUpdate" || value === undefined || value === null) continue;
      state[key] = value;
    }
    const status = u.status ?? (u.sessionUpdate === "tool_call" ? "pending" : undefined);
    if (u.sessionUpdate === "tool_call" && !u.status) state.status = "pending";
    if (status && state.statuses.at(-1) !== status) state.statuses.push(status);
  }
  return calls;
}

/** A compact trace of updates and permission requests, to read in failures. */
export function trace(log, sessionId) {
  return log
    .filter((e) => e.kind === "permission" ? e.params.sessionId === sessionId : e.sessionId === sessionId)
    .map((e) => {
      if (e.kind === "permission") return `permission(${e.params.toolCall?.toolCallId})`;
      const u = e.update;
      switch (u.sessionUpdate) {
        case "agent_message_chunk":
        case "user_message_chunk":
        case "agent_thought_chunk":
          return `${u.sessionUpdate}(${JSON.stringify(u.content?.text ?? u.content?.type)})`;
        case "tool_call":
          return `tool_call(${u.toolCallId}:${u.status ?? "pending"})`;
        case "tool_call_update":
          return `tool_call_update(${u.toolCallId}${u.status ? `:${u.status}` : ""})`;
        default:
          return u.sessionUpdate;
      }
    });
}

/** The text of every text content of a folded tool call, joined. */
export function toolText(call) {
  return (call.content ?? [])
    .map((c) => (c.type === "content" && c.content?.type === "text" ? c.content.text : ""))
    .join("\n");
}

/** Agent text of the updates, concatenated. */
export function agentText(updates) {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text")
    .map((u) => u.content.text)
    .join("");
}

/** Asserts that `promise` rejects with a JSON-RPC error of `code`; returns the error. */
export async function rejectsWithCode(promise, code, what) {
  let error;
  try {
    const value = await promise;
    assert.fail(`${what}: expected JSON-RPC error ${code}, got result ${JSON.stringify(value)}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    error = e;
  }
  assert.equal(error?.code, code, `${what}: expected error code ${code}, got ${JSON.stringify({ code: error?.code, message: error?.message, data: error?.data })}`);
  return error;
}
