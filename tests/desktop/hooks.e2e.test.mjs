// The real app under Xvfb, hooks on a loopback model:
// - The trust gate of project hooks: a workspace's `.bearagent/hooks.toml`
//   (a SessionStart hook appending to hook-marker.txt) shows the new-run
//   banner; a run started untrusted says so (the notice, one
//   hooks_not_trusted event) and writes no marker. "Review hooks" opens the
//   prompt listing the command with the file's sha256; Trust pins it in the
//   user's config ([[trusted_hooks]]), the banner goes, Settings says
//   trusted, and the next run's SessionStart hook runs (the marker, its
//   hook-run line, source project). Editing the file untrusts it (banner,
//   Settings), the next run runs none of it. A file changed under the open
//   prompt is refused ("changed"), shown again and trusted as it is now;
//   the run after that runs all its hooks.
// - A user PreToolUse hook (config.toml, its python script in the hooks/
//   folder beside it) refuses the model's `curl` call with exit 2: the
//   call's card shows the deny with its reason and is refused, the model's
//   next request carries "refused by a PreToolUse hook: <reason>".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  makeSandbox, startDriver, launchApp, byTestId, screenshot, step, timelineRows, WAIT, LONG,
  openWorkspace, startRun, outcome, card,
} from "./harness.mjs";
import { answerTurn, toolTurn, writeLoopbackConfig, messagesOf, startRoutedModel } from "./loopback-model.mjs";

let sandbox;
let driver;

before(async () => {
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

/** The home screen's new-run form, shown. */
async function showHome(app) {
  await byTestId(app, "nav-home").click();
  await byTestId(app, "run-goal").waitForDisplayed(WAIT);
}

/** The trust prompt that is open (the new-run form, Settings and a run view each have their own). */
const openPrompt = (app) => app.$('dialog[data-testid="hooks-trust"][open]');
const promptCommands = (app) => openPrompt(app).$$('[data-testid="hooks-trust-command"]').map((c) => c.getText());
/**
 * What trusting pins (runtime/src/hooks/pin.rs): SHA-256 over every file of
 * `.bearagent/` (these hooks name no script), each as its workspace-relative
 * path, its kind and mode, and its content's SHA-256.
 */
function pinDigest(folder) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(relative(folder, full));
    }
  };
  walk(join(folder, ".bearagent"));
  files.sort();
  const hash = createHash("sha256");
  for (const rel of files) {
    const full = join(folder, rel);
    const mode = (statSync(full).mode & 0o777).toString(8);
    hash.update(rel).update(Buffer.from([0])).update(`file ${mode}`).update(Buffer.from([0]));
    hash.update(createHash("sha256").update(readFileSync(full)).digest());
  }
  return hash.digest("hex");
}
const configText = () => readFileSync(join(sandbox.data, "config.toml"), "utf8");

/** Settings' Hooks section shows `state` for the current workspace. */
async function settingsState(app, state) {
  await byTestId(app, "nav-settings").click();
  const badge = app.$(`[data-testid="hooks-section"] [data-testid="hooks-state"][data-state="${state}"]`);
  await badge.waitForExist({ ...WAIT, timeoutMsg: `Settings never showed the project hooks ${state}` });
  await badge.scrollIntoView({ block: "center" });
  return badge;
}

/** The home screen shows no hooks banner, and still none a moment later (it loads after the form shows). */
async function noBanner(app) {
  await showHome(app);
  await sleep(1_500);
  assert.equal(await byTestId(app, "hooks-banner").isExisting(), false, "no hooks banner");
}

// ---------------------------------------------------------------- project hooks: the trust gate

const SESSION_START = "echo ran >> hook-marker.txt";
const STOP = "echo stopped >> hook-marker.txt";
const PROMPT = "echo prompt >> hook-marker.txt";
const V1 = `[[hooks.SessionStart]]\ncommand = "${SESSION_START}"\n`;
const V2 = `${V1}[[hooks.Stop]]\ncommand = "${STOP}"\n`;
const V3 = `${V2}[[hooks.UserPromptSubmit]]\ncommand = "${PROMPT}"\ntimeout_secs = 10\n`;

/** The marker's lines, sorted (the order of one run's hooks is not what this checks). */
const markerLines = (file) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).sort() : []);

test("project hooks: untrusted they never run and the run says so; trusted from the run's notice they run; edited they stop; a file changed under the prompt is shown again", async () => {
  const model = await startRoutedModel(() => answerTurn("Nothing to do."));
  writeLoopbackConfig(sandbox.data, model.port);
  const folder = join(sandbox.root, "hooks-project");
  const hooksFile = join(folder, ".bearagent", "hooks.toml");
  const marker = join(folder, "hook-marker.txt");
  mkdirSync(join(folder, ".bearagent"), { recursive: true });
  writeFileSync(hooksFile, V1);
  const app = await launchApp(driver);
  try {
    await step(app, "gate-open", () => openWorkspace(app, folder));

    // The new-run form says the hooks wait for a review.
    const banner = byTestId(app, "hooks-banner");
    await step(app, "gate-banner", () =>
      banner.waitForDisplayed({ ...WAIT, timeoutMsg: "the new-run form never showed the hooks banner for the workspace just opened by path" }),
    );
    assert.match(await banner.getText(), /project hooks; they do not run until you trust them/);
    await screenshot(app, "hooks-01-banner");

    // 1. A run started without trusting: none of it runs, the run says so once.
    const first = await step(app, "gate-untrusted-run", () => startRun(app, { goal: "First run, hooks untrusted" }));
    await step(app, "gate-untrusted-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    const notice = byTestId(app, "hooks-not-trusted");
    await step(app, "gate-notice", () => notice.waitForDisplayed(WAIT));
    assert.equal(await notice.getAttribute("data-count"), "1");
    assert.match(await notice.getText(), /echo ran >> hook-marker\.txt/);
    assert.ok((await notice.getText()).includes(hooksFile), "the notice names the file");
    assert.equal((await app.$$('[data-testid="hook-run"]')).length, 0, "no hook ran");
    assert.ok(!existsSync(marker), "the untrusted SessionStart hook never ran");
    await screenshot(app, "hooks-02-not-trusted-notice");
    const firstTypes = (await step(app, "gate-untrusted-events", () => timelineRows(app))).map((r) => r.type);
    assert.equal(firstTypes.filter((t) => t === "hooks_not_trusted").length, 1, `said once: ${firstTypes}`);
    assert.ok(!firstTypes.includes("hook_ran"), `no hook ran: ${firstTypes}`);
    await byTestId(app, "conversation-tab").click();

    // 2. "Review hooks" in the run: the prompt lists the command and pins the file's sha256.
    await step(app, "gate-review", async () => {
      await byTestId(app, "review-hooks").waitForClickable(WAIT);
      await byTestId(app, "review-hooks").click();
      await openPrompt(app).waitForDisplayed(WAIT);
    });
    assert.deepEqual(await promptCommands(app), [SESSION_START]);
    assert.equal(await openPrompt(app).$('[data-testid="hooks-trust-file"]').getText(), hooksFile);
    const shownSha = await openPrompt(app).getAttribute("data-sha256");
    assert.equal(shownSha, pinDigest(folder), "the prompt pins the files' exact bytes");
    await screenshot(app, "hooks-03-trust-prompt");
    await openPrompt(app).$('[data-testid="trust-hooks"]').click();
    await step(app, "gate-trusted", () => openPrompt(app).waitForExist({ ...WAIT, reverse: true }));

    // The user's config keeps the trust, for this workspace and these bytes.
    const kept = configText();
    assert.match(kept, /\[\[trusted_hooks\]\]/);
    assert.ok(kept.includes(`sha256 = "${shownSha}"`), `the trust pins ${shownSha}:\n${kept}`);
    assert.ok(kept.includes(`workspace = "${folder}"`), `the trust is for ${folder}:\n${kept}`);
    assert.ok(!existsSync(marker), "trusting runs nothing by itself");

    // The banner is gone; Settings says trusted.
    await step(app, "gate-no-banner", () => noBanner(app));
    await step(app, "gate-settings-trusted", () => settingsState(app, "trusted"));
    assert.equal(await byTestId(app, "untrust-hooks").isDisplayed(), true);
    await screenshot(app, "hooks-04-settings-trusted");

    // 3. The next run runs the SessionStart hook: the marker, its line in the conversation.
    const second = await step(app, "gate-trusted-run", () => startRun(app, { goal: "Second run, hooks trusted", previous: first }));
    await step(app, "gate-trusted-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    assert.equal(readFileSync(marker, "utf8"), "ran\n", "the trusted SessionStart hook ran once, in the workspace");
    const ran = app.$('[data-testid="conv-hook"] [data-testid="hook-run"][data-hook="SessionStart"]');
    await step(app, "gate-hook-line", () => ran.waitForDisplayed(WAIT));
    assert.equal(await ran.getAttribute("data-source"), "project");
    assert.equal(await ran.getAttribute("data-decision"), "proceed");
    assert.equal(await ran.$('[data-testid="hook-command"]').getAttribute("title"), SESSION_START);
    assert.equal(await ran.$('[data-testid="hook-command"]').getProperty("textContent"), SESSION_START);
    assert.match(await ran.$('[data-testid="hook-ended"]').getText(), /exit 0/);
    assert.equal(await byTestId(app, "hooks-not-trusted").isExisting(), false, "a trusted run has no notice");
    await screenshot(app, "hooks-05-session-start-ran");
    const secondTypes = (await step(app, "gate-trusted-events", () => timelineRows(app))).map((r) => r.type);
    assert.equal(secondTypes.filter((t) => t === "hook_ran").length, 1, `one hook ran: ${secondTypes}`);
    assert.ok(!secondTypes.includes("hooks_not_trusted"), `trusted: ${secondTypes}`);
    await byTestId(app, "conversation-tab").click();

    // 4. The file is edited (a Stop hook added): untrusted again, and the next run runs none of it.
    writeFileSync(hooksFile, V2);
    const v2Pin = pinDigest(folder);
    await showHome(app);
    await step(app, "gate-edited-banner", () => banner.waitForDisplayed(WAIT));
    await step(app, "gate-edited-settings", () => settingsState(app, "untrusted"));
    assert.deepEqual(
      await app.$$('[data-testid="hooks-section"] [data-testid="hooks-command"]').map((c) => c.getText()),
      [SESSION_START, STOP],
    );
    await screenshot(app, "hooks-06-settings-edited-untrusted");
    const third = await step(app, "gate-edited-run", () => startRun(app, { goal: "Third run, hooks edited", previous: second }));
    await step(app, "gate-edited-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    await step(app, "gate-edited-notice", () => byTestId(app, "hooks-not-trusted").waitForDisplayed(WAIT));
    assert.equal(await byTestId(app, "hooks-not-trusted").getAttribute("data-count"), "2");
    assert.equal((await app.$$('[data-testid="hook-run"]')).length, 0, "no hook ran once edited");
    assert.equal(readFileSync(marker, "utf8"), "ran\n", "the edited file ran nothing: still one line");

    // 5. The file changes while the prompt is open: Trust is refused, the prompt shows the file as it is now.
    await showHome(app);
    await step(app, "gate-banner-review", async () => {
      await byTestId(app, "hooks-banner-review").waitForClickable(WAIT);
      await byTestId(app, "hooks-banner-review").click();
      await openPrompt(app).waitForDisplayed(WAIT);
    });
    assert.deepEqual(await promptCommands(app), [SESSION_START, STOP]);
    assert.equal(await openPrompt(app).getAttribute("data-sha256"), v2Pin);
    writeFileSync(hooksFile, V3);
    const v3Pin = pinDigest(folder);
    await openPrompt(app).$('[data-testid="trust-hooks"]').click();
    const changed = byTestId(app, "hooks-trust-changed");
    await step(app, "gate-changed", () => changed.waitForDisplayed(WAIT));
    assert.equal(await changed.getText(), "The file changed since you opened it — review it again.");
    await step(app, "gate-changed-shown", () => app.$(`dialog[data-testid="hooks-trust"][open][data-sha256="${v3Pin}"]`).waitForExist(WAIT));
    assert.deepEqual(await promptCommands(app), [SESSION_START, STOP, PROMPT]);
    const stale = configText();
    assert.ok(!stale.includes(v2Pin) && !stale.includes(v3Pin), `nothing new was trusted:\n${stale}`);
    assert.ok(stale.includes(`sha256 = "${shownSha}"`), "the old trust stays (it no longer matches the file)");
    await screenshot(app, "hooks-07-trust-changed");
    // Trusting what is shown now works.
    await openPrompt(app).$('[data-testid="trust-hooks"]').click();
    await step(app, "gate-retrusted", () => openPrompt(app).waitForExist({ ...WAIT, reverse: true }));
    const retrusted = configText();
    assert.ok(retrusted.includes(`sha256 = "${v3Pin}"`), `the new bytes are trusted:\n${retrusted}`);
    assert.equal(retrusted.match(/\[\[trusted_hooks\]\]/g)?.length, 1, "one trust per workspace");
    await step(app, "gate-retrusted-no-banner", () => noBanner(app));

    // 6. The run after that runs every hook of the file as trusted.
    await step(app, "gate-all-run", () => startRun(app, { goal: "Fourth run, all hooks trusted", previous: third }));
    await step(app, "gate-all-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    await step(app, "gate-all-lines", () =>
      app.waitUntil(async () => (await app.$$('[data-testid="hook-run"]')).length === 3, { ...WAIT, timeoutMsg: "three hook-run lines never showed" }),
    );
    const lines = await app.$$('[data-testid="hook-run"]').map(async (h) => `${await h.getAttribute("data-hook")}:${await h.getAttribute("data-source")}`);
    assert.deepEqual([...lines].sort(), ["SessionStart:project", "Stop:project", "UserPromptSubmit:project"]);
    assert.deepEqual(markerLines(marker), ["prompt", "ran", "ran", "stopped"]);
    await screenshot(app, "hooks-08-all-hooks-ran");
  } finally {
    await app.deleteSession();
    model.close();
  }
});

// ---------------------------------------------------------------- a user PreToolUse hook

const REASON = "curl is not allowed here";
// Claude Code's contract: the call as JSON on stdin; exit 2 refuses it, stderr says why.
const NO_CURL = [
  "import json, os, sys",
  "data = json.load(sys.stdin)",
  "with open(os.path.join(data['cwd'], 'hook-saw.txt'), 'a') as f:",
  "    f.write(data['hook_event_name'] + ' ' + data['tool_name'] + ': ' + data['tool_input'].get('command', '') + '\\n')",
  "if 'curl' in data['tool_input'].get('command', ''):",
  `    print(${JSON.stringify(REASON)}, file=sys.stderr)`,
  "    sys.exit(2)",
  "",
].join("\n");
const CURL = "curl -s https://example.com";

test("a user PreToolUse hook refuses the curl call: the card shows the deny and its reason, the model is told why", async () => {
  const model = await startRoutedModel((messages) =>
    messages.some((m) => m.role === "tool")
      ? answerTurn("A hook refused curl here, so I could not fetch the page.")
      : toolTurn("call_curl", "run_command", { command: CURL }),
  );
  writeLoopbackConfig(sandbox.data, model.port);
  const hooksDir = join(sandbox.data, "hooks");
  mkdirSync(hooksDir, { recursive: true });
  const script = join(hooksDir, "no_curl.py");
  writeFileSync(script, NO_CURL);
  const hookCommand = `python3 ${script}`;
  appendFileSync(
    join(sandbox.data, "config.toml"),
    `[[hooks.PreToolUse]]\nmatcher = "run_command"\ncommand = "${hookCommand}"\ntimeout_secs = 30\n`,
  );
  const app = await launchApp(driver);
  try {
    const folder = await step(app, "deny-open", () => openWorkspace(app, join(sandbox.root, "deny-project")));
    await step(app, "deny-start", () => startRun(app, { goal: "Fetch https://example.com with curl and summarise it", approval: "allow_all" }));
    await step(app, "deny-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));

    // The call's card: refused, with the hook's deny and its reason.
    const curl = card(app, "call_curl");
    await step(app, "deny-card", () => curl.waitForDisplayed(WAIT));
    assert.equal(await curl.getAttribute("data-status"), "refused");
    // The card gives the hook's reason (the model's text, prefixed, is checked below).
    assert.equal(await curl.$('[data-testid="card-reason"]').getText(), `Refused: ${REASON}`);
    const deny = curl.$('[data-testid="hook-run"]');
    await step(app, "deny-hook-line", () => deny.waitForDisplayed(WAIT));
    assert.equal(await deny.getAttribute("data-decision"), "deny");
    assert.equal(await deny.getAttribute("data-hook"), "PreToolUse");
    assert.equal(await deny.getAttribute("data-source"), "user");
    assert.equal(await deny.$('[data-testid="hook-reason"]').getText(), REASON);
    assert.equal(await deny.$('[data-testid="hook-command"]').getAttribute("title"), hookCommand);
    assert.match(await deny.$('[data-testid="hook-ended"]').getText(), /exit 2/);
    assert.match(await deny.$('[data-testid="hook-outcome"]').getText(), /The call was refused; the reason went to the model/);
    await deny.$('[data-testid="hook-toggle"]').click();
    assert.match(await deny.$('[data-testid="hook-details"]').getText(), /stderr\s+curl is not allowed here/);
    await curl.scrollIntoView({ block: "center" });
    await screenshot(app, "hooks-09-pretooluse-deny");
    assert.match(await byTestId(app, "final-answer").getText(), /A hook refused curl/);

    // The hook read the call from its stdin, in the workspace.
    assert.equal(readFileSync(join(folder, "hook-saw.txt"), "utf8"), `PreToolUse run_command: ${CURL}\n`);
    // The model's second request carried the refusal as the call's result.
    assert.equal(model.bodies.length, 2, "two model requests: the call, then the answer");
    assert.ok(model.bodies[1].includes(`refused by a PreToolUse hook: ${REASON}`), "the model was told why");
    const told = messagesOf(model.bodies[1]).find((m) => m.role === "tool");
    assert.match(told?.text ?? "", /refused by a PreToolUse hook: curl is not allowed here/);

    // Events: the hook ran on the call, the call failed, it never completed.
    const rows = await step(app, "deny-events", () => timelineRows(app));
    const types = rows.map((r) => r.type);
    const at = types.indexOf("tool_call_requested");
    assert.ok(at >= 0 && types.indexOf("hook_ran") > at, `the hook ran after the call was asked for: ${types}`);
    assert.ok(types.includes("tool_call_failed") && !types.includes("tool_call_completed"), `the call was refused: ${types}`);
    assert.ok(!types.includes("approval_requested"), `allow_all asked nothing: ${types}`);
  } finally {
    await app.deleteSession();
    model.close();
  }
});
