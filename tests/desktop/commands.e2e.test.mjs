// The real app under Xvfb with a model served over loopback HTTP (an
// OpenAI-compatible stream): the agent runs a failing test command whose
// output streams into the timeline, edits the file (approved in the app),
// runs the tests again green; the file the command wrote shows in Changes
// and its revert removes it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, pendingApproval, WAIT } from "./harness.mjs";

let sandbox;
let driver;
let model;

const FAILING = "def add(a, b):\n    return a - b\n";
const FIXED = "def add(a, b):\n    return a + b\n";
// Prints, waits (so the output is seen while the command still runs), then
// checks calc.py and writes report.txt either way.
const TEST_SH = [
  "printf 'running tests...\\n'",
  "sleep 2",
  "if grep -q 'return a + b' calc.py; then",
  "  printf '\\033[32mPASS\\033[0m test_add\\n'; echo PASS > report.txt; exit 0",
  "else",
  "  printf '\\033[31mFAIL\\033[0m test_add: expected 5, got -1\\n'; echo FAIL > report.txt; exit 1",
  "fi",
  "",
].join("\n");

/** One SSE body in the Chat Completions stream shape. */
function sse(chunks) {
  return chunks.map((c) => `data: ${typeof c === "string" ? c : JSON.stringify(c)}\n\n`).join("");
}

function toolTurn(id, name, args) {
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

function answerTurn(text) {
  return sse([
    { id: "a", choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] },
    { id: "a", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    "[DONE]",
  ]);
}

const TURNS = [
  toolTurn("c1", "run_command", { command: "sh test.sh" }),
  toolTurn("c2", "write_file", { path: "calc.py", content: FIXED }),
  toolTurn("c3", "run_command", { command: "sh test.sh" }),
  answerTurn("The test failed because add subtracted; fixed calc.py and the tests pass now."),
];

/** A loopback model that answers the turns in order. */
function startModel() {
  let next = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const body = TURNS[Math.min(next, TURNS.length - 1)];
      next += 1;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(body);
    });
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ server, port: server.address().port, calls: () => next })));
}

before(async () => {
  sandbox = makeSandbox();
  model = await startModel();
  writeFileSync(join(sandbox.workspace, "calc.py"), FAILING);
  writeFileSync(join(sandbox.workspace, "test.sh"), TEST_SH);
  mkdirSync(sandbox.data, { recursive: true });
  writeFileSync(
    join(sandbox.data, "config.toml"),
    [
      "version = 1",
      "[providers.local]",
      'protocol = "openai-chat"',
      `base_url = "http://127.0.0.1:${model.port}"`,
      'model = "loopback"',
      'key = "none"',
      "[profiles.default]",
      'provider = "local"',
      'command_rules = [{ prefix = "sh test.sh", decision = "allow" }]',
      "",
    ].join("\n"),
  );
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
  model?.server.close();
});

test("commands: a failing test streams into the timeline, the fix is approved, the re-run passes; the command's file is in Changes and reverts", async () => {
  const app = await launchApp(driver);
  try {
    await step(app, "cmd-open", async () => {
      await byTestId(app, "path-input").setValue(sandbox.workspace);
      await byTestId(app, "open-path").click();
      await byTestId(app, "current-workspace").waitForDisplayed(WAIT);
    });
    await step(app, "cmd-start", async () => {
      await byTestId(app, "run-goal").waitForDisplayed(WAIT);
      await byTestId(app, "run-goal").setValue("make the tests pass");
      await byTestId(app, "run-provider").selectByAttribute("value", "local");
      await byTestId(app, "run-approval").selectByAttribute("value", "ask_writes");
      await byTestId(app, "start-run").click();
    });
    // The first command's output shows while it still runs.
    const firstOutput = app.$('[data-testid="terminal"]');
    await step(app, "cmd-live", () =>
      app.waitUntil(async () => (await firstOutput.isExisting()) && (await firstOutput.getText()).includes("running tests"), {
        ...WAIT,
        timeoutMsg: "the command's output never streamed into the timeline",
      }),
    );
    const exitBadges = () => app.$$('[data-testid="exit-badge"]');
    assert.equal((await exitBadges()).length, 0, "the output was shown before the command finished");
    await screenshot(app, "commands-01-live");

    // It fails, in colour; then the write asks for approval.
    await step(app, "cmd-failed", () =>
      app.waitUntil(async () => (await exitBadges()).length === 1, { ...WAIT, timeoutMsg: "no exit badge" }),
    );
    assert.equal(await (await exitBadges())[0].getAttribute("data-exit"), "1");
    const red = await app.$$('[data-testid="terminal"] span[class*="ansi-red"]');
    assert.ok(red.length > 0, "ANSI colours are rendered");
    await step(app, "cmd-approval", () => pendingApproval(app).waitForDisplayed(WAIT));
    await byTestId(app, "approve").click();

    // The re-run passes and the run succeeds.
    await step(app, "cmd-succeeded", () =>
      app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 60_000 }),
    );
    const badges = await exitBadges();
    assert.equal(badges.length, 2);
    assert.equal(await badges[1].getAttribute("data-exit"), "0");
    assert.equal(readFileSync(join(sandbox.workspace, "calc.py"), "utf8"), FIXED);
    assert.equal(readFileSync(join(sandbox.workspace, "report.txt"), "utf8"), "PASS\n");
    await screenshot(app, "commands-02-passed");

    // report.txt was written by the command: it is an artifact; revert removes it.
    await byTestId(app, "changes-tab").click();
    const row = (path) => app.$(`[data-testid="artifact-row"][data-path="${path}"]`);
    await step(app, "cmd-changes", () => row("report.txt").waitForDisplayed(WAIT));
    assert.equal(await row("report.txt").getAttribute("data-change"), "added");
    assert.ok(await row("calc.py").isExisting(), "the approved edit is a change too");
    await row("report.txt").click();
    await byTestId(app, "artifact-revert").click();
    await step(app, "cmd-reverted", () =>
      app.waitUntil(async () => (await row("report.txt").getAttribute("data-state")) === "reverted", {
        ...WAIT,
        timeoutMsg: "report.txt never showed as reverted",
      }),
    );
    assert.ok(!existsSync(join(sandbox.workspace, "report.txt")), "the revert removed the file the command created");
    await screenshot(app, "commands-03-reverted");
    assert.equal(model.calls(), 4, "four model calls: test, fix, test, answer");
  } finally {
    await app.deleteSession();
  }
});
