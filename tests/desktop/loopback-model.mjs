// A loopback model for desktop tests: an OpenAI-compatible Chat Completions
// stream that answers each request with the next canned turn.
import { createServer } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** One SSE body in the Chat Completions stream shape. */
export function sse(chunks) {
  return chunks.map((c) => `data: ${typeof c === "string" ? c : JSON.stringify(c)}\n\n`).join("");
}

/** A turn that calls one tool. */
export function toolTurn(id, name, args) {
  return sse([
    {
      id,
      choices: [{
        index: 0,
        delta: { role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: JSON.stringify(args) } }] },
        finish_reason: null,
      }],
    },
    { id, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    "[DONE]",
  ]);
}

/** A turn that answers with text. */
export function answerTurn(text) {
  return sse([
    { id: "a", choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] },
    { id: "a", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    "[DONE]",
  ]);
}

/** Serves `turns` in order (the last one again once they run out); records request bodies. */
export function startModel(turns) {
  let next = 0;
  const bodies = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      bodies.push(body);
      const turn = turns[Math.min(next, turns.length - 1)];
      next += 1;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(turn);
    });
  });
  return new Promise((ok) =>
    server.listen(0, "127.0.0.1", () => ok({ server, port: server.address().port, calls: () => next, bodies })),
  );
}

/**
 * Writes a config whose default profile runs on the loopback model at `port`;
 * `providerLines` go under its provider (e.g. `vision = true`).
 */
export function writeLoopbackConfig(dataDir, port, profileLines = [], providerLines = []) {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    join(dataDir, "config.toml"),
    [
      "version = 1",
      "[providers.local]",
      'protocol = "openai-chat"',
      `base_url = "http://127.0.0.1:${port}"`,
      'model = "loopback"',
      'key = "none"',
      ...providerLines,
      "[profiles.default]",
      'provider = "local"',
      ...profileLines,
      "",
    ].join("\n"),
  );
}

/** The request's messages as {role, text}: what a routed model answers by. */
export function messagesOf(body) {
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  return (parsed.messages ?? []).map((m) => ({
    role: m.role,
    text: typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""),
  }));
}

/**
 * A loopback model that answers each request with `route(messages, body)`
 * (an SSE body, or a promise of one; a throw answers 500 with its message);
 * it records the request bodies.
 */
export function startRoutedModel(route) {
  const bodies = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      bodies.push(body);
      let turn;
      try {
        turn = await route(messagesOf(body), body);
      } catch (e) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(String(e?.message ?? e));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(turn);
    });
  });
  return new Promise((ok) =>
    server.listen(0, "127.0.0.1", () =>
      ok({
        server,
        port: server.address().port,
        bodies,
        close() {
          server.closeAllConnections?.();
          server.close();
        },
      }),
    ),
  );
}
