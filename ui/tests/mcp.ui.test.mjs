// Chromium flow tests of MCP servers against the dev-only mock backend:
// Settings (add with validation, keychain secrets never shown back, Test
// with the tool list and badges, failures titled by their code, edit,
// disable, remove after confirming), a profile's MCP rules, the new-run
// form listing enabled servers, and a run that starts servers and calls
// their tools (progress while running, then the result).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OPENAI, byId, shot, startUi, showEvents } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const calls = (page, cmd) => page.evaluate((name) => window.__bearagentMock.calls.filter((c) => c.cmd === name).map((c) => c.args), cmd);
const fieldError = (page, id) => page.locator(`#${id}-error`);
const server = (page, name) => page.locator(`[data-testid="mcp-server-item"][data-name="${name}"]`);

const EVERYTHING = {
  name: "everything",
  enabled: true,
  transport: { kind: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: [] },
  startupTimeoutSecs: null,
  toolTimeoutSecs: null,
};
const BROKEN = { ...EVERYTHING, name: "broken", transport: { kind: "stdio", command: "nope", args: [], env: [] } };

test("MCP servers in Settings: add, Test with tool badges, a failing Test, edit, disable, remove", async () => {
  const seed = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] } };
  const { page, problems, close } = await ui.openApp(seed, { hash: "#/settings" });
  try {
    await byId(page, "mcp-servers-empty").waitFor();
    await byId(page, "add-mcp-server-button").click();
    const form = byId(page, "mcp-server-form");
    await form.waitFor();

    // Client-side checks, like the config's: nothing is sent while fields are wrong.
    await byId(page, "save-mcp-server").click();
    assert.match(await fieldError(page, "mcp-server-name").innerText(), /Give the server a name/);
    assert.match(await fieldError(page, "mcp-server-command").innerText(), /program that starts the server/);
    await byId(page, "mcp-server-name").fill("every thing");
    await byId(page, "mcp-startup-timeout").fill("soon");
    await byId(page, "add-mcp-env").click();
    await form.getByTestId("mcp-env-name").fill("1TOKEN");
    await byId(page, "save-mcp-server").click();
    assert.match(await fieldError(page, "mcp-server-name").innerText(), /letters, digits, '-' and '_' only/);
    assert.match(await fieldError(page, "mcp-startup-timeout").innerText(), /whole number of seconds greater than 0/);
    assert.match(await page.locator("#mcp-env-0-error").innerText(), /variable name/);
    assert.equal((await calls(page, "save_mcp_server")).length, 0);
    await shot(page, "mcp-validation");

    // A stdio server with a keychain secret: stored after saving, never shown back.
    await byId(page, "mcp-server-name").fill("everything");
    await byId(page, "mcp-server-command").fill("npx");
    await byId(page, "mcp-server-args").fill("-y\n@modelcontextprotocol/server-everything");
    await byId(page, "mcp-startup-timeout").fill("30");
    const env = form.getByTestId("mcp-env-row").first();
    await env.getByTestId("mcp-env-name").fill("API_TOKEN");
    await env.getByTestId("mcp-env-source").selectOption("keychain");
    assert.equal(await env.getByTestId("mcp-env-secret-status").innerText(), "not stored");
    await env.getByTestId("mcp-env-secret").fill("tok-123");
    assert.equal(await env.getByTestId("mcp-env-secret-status").innerText(), "will be stored");
    await byId(page, "save-mcp-server").click();
    const everything = server(page, "everything");
    await everything.waitFor();
    assert.equal(await byId(page, "mcp-server-form").count(), 0);
    assert.equal(await everything.getByTestId("mcp-server-transport").innerText(), "stdio: npx -y @modelcontextprotocol/server-everything");
    assert.equal(await everything.getByTestId("mcp-server-status").innerText(), "enabled");
    assert.equal(await everything.getByTestId("mcp-server-secrets").innerText(), "env API_TOKEN");
    const [saved] = await calls(page, "save_mcp_server");
    assert.deepEqual(saved.server, {
      name: "everything",
      enabled: true,
      transport: { kind: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: [{ name: "API_TOKEN", source: { kind: "keychain", present: false } }] },
      startupTimeoutSecs: 30,
      toolTimeoutSecs: null,
    });
    assert.deepEqual(await calls(page, "set_mcp_secret"), [{ server: "everything", name: "API_TOKEN", value: "tok-123" }]);
    assert.doesNotMatch(await page.locator("body").innerText(), /tok-123/);

    // Test lists the tools with badges from their annotations.
    await everything.getByTestId("test-mcp-server").click();
    const result = everything.locator('[data-testid="mcp-test-result"][data-state="done"]');
    await result.waitFor();
    assert.equal(await result.getByTestId("mcp-test-server").innerText(), "mcp-servers/everything 2.0.0");
    assert.equal(await result.getByTestId("mcp-test-protocol").innerText(), "2025-06-18");
    assert.equal(await result.getByTestId("mcp-test-startup").innerText(), "412 ms");
    assert.equal(await result.getByTestId("mcp-test-tool-count").innerText(), "12 tools");
    const badges = async (name) => result.locator(`[data-testid="mcp-tool"][data-name="${name}"] [data-testid="mcp-tool-badge"]`).evaluateAll((els) => els.map((e) => e.dataset.badge));
    assert.deepEqual(await badges("everything__echo"), ["read-only"]);
    assert.deepEqual(await badges("everything__toggle-simulated-logging"), ["writes"]);
    assert.deepEqual(await badges("everything__delete-session-resource"), ["writes", "destructive"]);
    assert.match(await result.locator('[data-name="everything__echo"]').innerText(), /Echo Tool — Echoes back the input string/);
    await shot(page, "mcp-test-result");

    // A server whose program is not there: the Test's failure is titled by its code.
    await byId(page, "add-mcp-server-button").click();
    await byId(page, "mcp-server-name").fill("broken");
    await byId(page, "mcp-server-command").fill("nope");
    await byId(page, "save-mcp-server").click();
    const broken = server(page, "broken");
    await broken.waitFor();
    await broken.getByTestId("test-mcp-server").click();
    const failed = broken.locator('[data-testid="mcp-test-result"][data-state="failed"]');
    await failed.waitFor();
    assert.equal(await failed.getByTestId("error").getAttribute("data-code"), "unavailable");
    assert.match(await failed.innerText(), /The server did not start or answer[\s\S]*could not start `nope`/);

    // An HTTP server whose token comes from a variable that is not set.
    await byId(page, "add-mcp-server-button").click();
    await byId(page, "mcp-transport-http").check();
    await byId(page, "mcp-server-name").fill("remote");
    await byId(page, "mcp-server-url").fill("localhost:3001/mcp");
    await byId(page, "save-mcp-server").click();
    assert.match(await fieldError(page, "mcp-server-url").innerText(), /http:\/\/ or https:\/\//);
    await byId(page, "mcp-server-url").fill("http://127.0.0.1:3001/mcp");
    await byId(page, "mcp-bearer-source").selectOption("env");
    await byId(page, "mcp-bearer-variable").fill("REMOTE_TOKEN");
    await byId(page, "save-mcp-server").click();
    const remote = server(page, "remote");
    await remote.waitFor();
    assert.equal(await remote.getByTestId("mcp-server-transport").innerText(), "http: http://127.0.0.1:3001/mcp");
    await remote.getByTestId("test-mcp-server").click();
    const incomplete = remote.locator('[data-testid="mcp-test-result"][data-state="failed"]');
    await incomplete.waitFor();
    assert.equal(await incomplete.getByTestId("error").getAttribute("data-code"), "invalid_input");
    assert.match(await incomplete.innerText(), /settings are incomplete[\s\S]*\$REMOTE_TOKEN, which is not set/);

    // Edit: the name stays, the stored secret says "stored" and is not sent again.
    await everything.getByTestId("edit-mcp-server").click();
    await form.waitFor();
    assert.equal(await byId(page, "mcp-server-name").getAttribute("readonly"), "");
    assert.equal(await byId(page, "mcp-server-args").inputValue(), "-y\n@modelcontextprotocol/server-everything");
    assert.equal(await form.getByTestId("mcp-env-secret-status").innerText(), "stored");
    assert.equal(await form.getByTestId("mcp-env-secret").inputValue(), "");
    await byId(page, "mcp-tool-timeout").fill("0");
    await byId(page, "save-mcp-server").click();
    assert.match(await fieldError(page, "mcp-tool-timeout").innerText(), /greater than 0/);
    await byId(page, "mcp-tool-timeout").fill("120");
    await byId(page, "save-mcp-server").click();
    await everything.getByText("startup 30 s · tool calls 120 s").waitFor();
    assert.equal((await calls(page, "save_mcp_server")).at(-1).server.toolTimeoutSecs, 120);
    assert.equal((await calls(page, "set_mcp_secret")).length, 1);

    // Disable, then remove after confirming.
    await broken.getByTestId("mcp-server-enabled-toggle").uncheck();
    await page.locator('[data-testid="mcp-server-item"][data-name="broken"][data-enabled="false"]').waitFor();
    assert.equal(await broken.getByTestId("mcp-server-status").innerText(), "disabled");
    assert.equal((await calls(page, "save_mcp_server")).at(-1).server.enabled, false);
    await shot(page, "mcp-servers");
    await broken.getByTestId("remove-mcp-server").click();
    await broken.getByTestId("cancel-remove-mcp-server").click();
    assert.equal(await broken.getByTestId("confirm-remove-mcp-server").count(), 0);
    await broken.getByTestId("remove-mcp-server").click();
    assert.match(await broken.getByTestId("confirm-remove-mcp").innerText(), /Remove broken\?/);
    await broken.getByTestId("confirm-remove-mcp-server").click();
    await broken.waitFor({ state: "detached" });
    assert.deepEqual(await calls(page, "delete_mcp_server"), [{ name: "broken" }]);

    // A profile's MCP rules: keys checked, saved as a map.
    await byId(page, "add-profile-button").click();
    await page.locator("#profile-name").fill("mcp-careful");
    await byId(page, "add-mcp-rule").click();
    await byId(page, "mcp-rule-key").fill("everything.");
    await byId(page, "save-profile").click();
    assert.match(await page.locator("#mcp-rule-key-0-error").innerText(), /tool's name after the dot/);
    await byId(page, "mcp-rule-key").fill("everything.echo");
    await byId(page, "mcp-rule-decision").selectOption("allow");
    await byId(page, "add-mcp-rule").click();
    await byId(page, "mcp-rule-key").nth(1).fill("remote");
    await byId(page, "mcp-rule-decision").nth(1).selectOption("deny");
    await byId(page, "save-profile").click();
    const profile = page.locator('[data-testid="profile-item"][data-name="mcp-careful"]');
    await profile.waitFor();
    assert.equal(await profile.getByTestId("profile-mcp-rules").innerText(), "MCP: everything.echo → allow · remote → deny");
    assert.deepEqual((await calls(page, "save_profile")).at(-1).profile.mcpRules, { "everything.echo": "allow", remote: "deny" });

    // The new-run form lists the enabled servers.
    await byId(page, "nav-home").click();
    assert.equal(await byId(page, "new-run-mcp-servers").innerText(), "everything, remote");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the new-run form says when no MCP server is enabled", async () => {
  const seed = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI], mcpServers: [{ ...EVERYTHING, enabled: false }] } };
  const { page, problems, close } = await ui.openApp(seed);
  try {
    assert.match(await byId(page, "new-run-mcp").innerText(), /No MCP servers enabled/);
    assert.equal(await byId(page, "new-run-mcp").getAttribute("data-count"), "0");
    await byId(page, "new-run-mcp-settings").click();
    await byId(page, "mcp-servers").waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("an MCP run: servers start (or not), an echo call, live progress of a long call, then its result", async () => {
  const seed = {
    recent: [PROJECT],
    current: PROJECT,
    settings: { providers: [OPENAI], mcpServers: [EVERYTHING, BROKEN] },
    stepMs: 20,
    streamMs: 10,
    gateModelCalls: true,
    gateCommands: true,
  };
  const { page, problems, close } = await ui.openApp(seed);
  try {
    assert.equal(await byId(page, "new-run-mcp-servers").innerText(), "broken, everything");
    await byId(page, "run-goal").fill("Check the MCP server with echo");
    await byId(page, "start-run").click();
    await byId(page, "run-view").waitFor();
    await showEvents(page);

    const started = page.locator('[data-testid="timeline-row"][data-type="mcp_server_started"]');
    await started.waitFor();
    assert.match(await started.getAttribute("aria-label"), /MCP server everything started · 13 tools/);
    assert.equal(await started.getByTestId("mcp-server-info").innerText(), "mcp-servers/everything 2.0.0 · protocol 2025-11-25 · started in 412 ms · the model can call these tools:");
    assert.equal(await started.locator('[data-testid="mcp-tool"][data-name="everything__echo"] [data-testid="mcp-tool-badge"]').innerText(), "read-only");
    const unavailable = page.locator('[data-testid="timeline-row"][data-type="mcp_server_unavailable"]');
    assert.match(await unavailable.innerText(), /MCP server broken unavailable[\s\S]*command `nope` not found/);
    await shot(page, "mcp-run-servers");

    // The echo tool is read-only: it runs without asking and its result follows.
    await page.evaluate(() => window.__bearagentMock.releaseModelCall());
    const echo = page.locator('[data-testid="timeline-row"][data-type="tool_call_completed"]').first();
    await echo.waitFor();
    assert.match(await echo.innerText(), /everything__echo[\s\S]*Echo: hello from BearAgent/);

    // A long call shows the server's progress while it runs, then its result.
    await page.evaluate(() => window.__bearagentMock.releaseModelCall());
    const progress = page.locator('[data-testid="mcp-progress"]');
    await progress.getByText("[4/4]").waitFor();
    assert.match(await progress.innerText(), /\[1\/4\][\s\S]*\[2\/4\]/);
    await shot(page, "mcp-run-progress");
    await page.evaluate(() => window.__bearagentMock.releaseCommand());
    await page.locator('[data-testid="timeline-row"][data-type="tool_call_completed"]', { hasText: "Long running operation completed" }).waitFor();
    assert.equal(await progress.count(), 0);
    await page.evaluate(() => window.__bearagentMock.releaseModelCall());
    await byId(page, "answer-row").waitFor();
    assert.match(await byId(page, "answer-row").innerText(), /echoed “hello from BearAgent”/);
    await shot(page, "mcp-run-done");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
