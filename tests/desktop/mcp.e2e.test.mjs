// The real app under Xvfb with the official MCP reference server: the user
// adds it in Settings, "Test" lists its tools with their annotations, and a
// run against a loopback model calls its echo tool; the server's start and
// the echoed text show in the timeline.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startModel, toolTurn, answerTurn, writeLoopbackConfig } from "./loopback-model.mjs";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, timelineRows, repoRoot, WAIT } from "./harness.mjs";

const SERVER_BIN = join(repoRoot, "tests/mcp/node_modules/.bin/mcp-server-everything");
const ECHOED = "hello from the desktop";

let sandbox;
let driver;
let model;

before(async () => {
  assert.ok(existsSync(SERVER_BIN), `${SERVER_BIN} missing: run npm ci --prefix tests/mcp (scripts/setup.sh does)`);
  sandbox = makeSandbox();
  model = await startModel([
    toolTurn("m1", "everything__echo", { message: ECHOED }),
    answerTurn("The server echoed the message back."),
  ]);
  writeLoopbackConfig(sandbox.data, model.port);

  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
  model?.server.close();
});

test("mcp: add the reference server in Settings, Test lists its tools, a run calls echo and the result shows", async () => {
  const app = await launchApp(driver);
  try {
    await step(app, "mcp-add", async () => {
      await byTestId(app, "nav-settings").click();
      await byTestId(app, "add-mcp-server-button").waitForClickable(WAIT);
      await byTestId(app, "add-mcp-server-button").click();
      await byTestId(app, "mcp-server-name").setValue("everything");
      await byTestId(app, "mcp-transport-stdio").click();
      await byTestId(app, "mcp-server-command").setValue("node");
      // One argument per line; WebKit's driver types "\n" as nothing, so press Enter.
      await byTestId(app, "mcp-server-args").setValue(SERVER_BIN);
      await app.keys(["Enter"]);
      await byTestId(app, "mcp-server-args").addValue("stdio");
      await byTestId(app, "save-mcp-server").click();
      await app.$('[data-testid="mcp-server-item"][data-name="everything"]').waitForDisplayed(WAIT);
    });
    await step(app, "mcp-test", async () => {
      const item = app.$('[data-testid="mcp-server-item"][data-name="everything"]');
      await item.$('[data-testid="test-mcp-server"]').click();
      await app.$('[data-testid="mcp-test-result"][data-state="done"]').waitForDisplayed({ timeout: 60_000 });
      const echo = app.$('[data-testid="mcp-tool"][data-name="everything__echo"]');
      await echo.waitForDisplayed(WAIT);
      const badges = await echo.$$('[data-testid="mcp-tool-badge"]').map((b) => b.getAttribute("data-badge"));
      assert.ok(badges.includes("read-only"), `echo's badges: ${badges}`);
      const toggle = app.$('[data-testid="mcp-tool"][data-name="everything__toggle-simulated-logging"]');
      const toggleBadges = await toggle.$$('[data-testid="mcp-tool-badge"]').map((b) => b.getAttribute("data-badge"));
      assert.ok(toggleBadges.includes("writes"), `toggle's badges: ${toggleBadges}`);
    });
    await screenshot(app, "mcp-01-test");

    await step(app, "mcp-open", async () => {
      await byTestId(app, "nav-home").click();
      await byTestId(app, "path-input").waitForDisplayed(WAIT);
      await byTestId(app, "path-input").setValue(sandbox.workspace);
      await byTestId(app, "open-path").click();
      await byTestId(app, "current-workspace").waitForDisplayed(WAIT);
    });
    await step(app, "mcp-start", async () => {
      await byTestId(app, "run-goal").waitForDisplayed(WAIT);
      const enabled = await byTestId(app, "new-run-mcp").getText();
      assert.match(enabled, /everything/, "the new-run form lists the enabled server");
      await byTestId(app, "run-goal").setValue("echo a greeting through the MCP server");
      await byTestId(app, "run-provider").selectByAttribute("value", "local");
      await byTestId(app, "run-approval").selectByAttribute("value", "ask_writes");
      await byTestId(app, "start-run").click();
    });
    await step(app, "mcp-succeeded", () =>
      app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 60_000 }),
    );
    const rows = await timelineRows(app);
    const started = rows.find((r) => r.type === "mcp_server_started");
    assert.ok(started, `no server row in ${JSON.stringify(rows.map((r) => r.type))}`);
    assert.match(started.text, /MCP server everything started/);
    const all = rows.map((r) => r.text).join("\n");
    assert.ok(all.includes(ECHOED), `the echoed text is not in the timeline: ${all.slice(0, 2000)}`);
    assert.ok(!rows.some((r) => r.type === "approval_requested"), "echo is read-only: nothing asked in reads mode");
    await screenshot(app, "mcp-02-run");
  } finally {
    await app.deleteSession();
  }
});
