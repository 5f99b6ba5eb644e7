// The real app under Xvfb with a model served over loopback HTTP (an
// OpenAI-compatible stream): the agent runs a failing test command whose
// output streams into its card in the conversation, edits the file (the
// waiting card shows the diff and is approved from it), runs the tests again
// green; the Events view lists every command's exit; the file the command
// wrote shows in Changes and its revert removes it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModel, toolTurn, answerTurn, writeLoopbackConfig } from "./loopback-model.mjs";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, showEvents, WAIT } from "./harness.mjs";

let sandbox;
let driver;
let model;

const FAILING = "def add(a, b):\n    return a - b\n";
const FIXED = "def add(a, b):\n    return a + b\n";
// Prints, waits (so the output is seen while the command still runs), then
// checks calc.py and writes report.txt either way.
const TEST_PY = [
  "import sys, time",
  "print('running tests...', flush=True)",
  "time.sleep(2)",
  "ok = 'return a + b' in open('calc.py').read()",
  "open('report.txt', 'w').write('PASS\\n' if ok else 'FAIL\\n')",
  "if ok:",
  "    print('\\033[32mPASS\\033[0m test_add')",
  "else:",
  "    print('\\033[31mFAIL\\033[0m test_add: expected 5, got -1')",
  "    sys.exit(1)",
  "",
].join("\n");

const TURNS = [
  toolTurn("c1", "run_command", { command: "python3 test_calc.py" }),
  toolTurn("c2", "edit_file", { path: "calc.py", old_string: "    return a - b", new_string: "    return a + b" }),
  toolTurn("c3", "run_command", { command: "python3 test_calc.py" }),
  answerTurn("The test failed because add subtracted; fixed calc.py and the tests pass now."),
];

/** Scrolls the (virtualised) timeline top to bottom, collecting exit badges in order and colours seen. */
async function scanTimeline(app) {
  return app.execute(async () => {
    const root = document.querySelector(".timeline");
    const scroller = [...root.querySelectorAll("*")].find((e) => e.scrollHeight > e.clientHeight + 10);
    const exits = new Map();
    let red = false;
    let green = false;
    const collect = () => {
      for (const badge of root.querySelectorAll('[data-testid="exit-badge"]')) {
        const owner = badge.closest("[data-seq], [data-index], [data-call-id]");
        const key = owner?.getAttribute("data-seq") ?? owner?.getAttribute("data-index") ?? owner?.getAttribute("data-call-id") ?? badge.textContent;
        exits.set(key, badge.getAttribute("data-exit"));
      }
      red ||= root.querySelector('[data-testid="terminal"] .ansi-red-fg') !== null;
      green ||= root.querySelector('[data-testid="terminal"] .ansi-green-fg') !== null;
    };
    if (scroller) {
      for (let top = 0; top <= scroller.scrollHeight; top += scroller.clientHeight / 3) {
        scroller.scrollTop = top;
        await new Promise((r) => setTimeout(r, 120));
        collect();
      }
    } else {
      collect();
    }
    const ordered = [...exits.entries()].sort((a, b) => Number(a[0]) - Number(b[0]) || String(a[0]).localeCompare(String(b[0])));
    return { exits: ordered.map(([, v]) => v), red, green };
  });
}

before(async () => {
  sandbox = makeSandbox();
  model = await startModel(TURNS);
  writeFileSync(join(sandbox.workspace, "calc.py"), FAILING);
  writeFileSync(join(sandbox.workspace, "test_calc.py"), TEST_PY);
  writeLoopbackConfig(sandbox.data, model.port, ['command_rules = [{ prefix = "python3 test_calc.py", decision = "allow" }]']);

  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
  model?.server.close();
});

test("commands: a failing test streams into its card, the fix's diff is approved in its card, the re-run passes; the command's file is in Changes and reverts", async () => {
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
    // The first command's output shows in its card while it still runs.
    const terminal = app.$('[data-testid="tool-card"][data-call-id="c1"] [data-testid="terminal"]');
    await step(app, "cmd-live", () =>
      app.waitUntil(async () => (await terminal.isExisting()) && (await terminal.getText()).includes("running tests"), {
        ...WAIT,
        interval: 100,
        timeoutMsg: "the command's output never showed in its card",
      }),
    );
    // The script writes report.txt only after its 2 s pause: the first
    // line was on screen while the command still ran.
    assert.ok(!existsSync(join(sandbox.workspace, "report.txt")), "output showed only after the command ended");
    await screenshot(app, "commands-01-live");

    // It fails: a red card with exit 1. Then the fix asks: its card shows the diff and the approval.
    const failed = app.$('[data-testid="tool-card"][data-call-id="c1"][data-status="failed"]');
    await step(app, "cmd-failed", () => failed.waitForDisplayed(WAIT));
    assert.equal(await failed.$('[data-testid="card-status"]').getText(), "exit 1");
    const fix = app.$('[data-testid="tool-card"][data-call-id="c2"][data-status="asking"]');
    await step(app, "cmd-approval", () => fix.$('[data-testid="approval-row"][data-state="pending"]').waitForDisplayed(WAIT));
    assert.match(await fix.$('[data-testid="diff-line"][data-kind="removed"]').getText(), /return a - b/);
    assert.match(await fix.$('[data-testid="diff-line"][data-kind="added"]').getText(), /return a \+ b/);
    // The backend's diff against calc.py as it is now (pending_change): its context line too.
    const context = fix.$('[data-testid="diff-line"][data-kind="context"]');
    await step(app, "cmd-proposal", () => context.waitForExist(WAIT));
    assert.match(await context.getText(), /def add\(a, b\):/);
    await screenshot(app, "commands-02-edit-card");
    await fix.$('[data-testid="approve"]').click();

    // The re-run passes and the run succeeds.
    await step(app, "cmd-succeeded", () =>
      app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 60_000 }),
    );
    assert.equal(readFileSync(join(sandbox.workspace, "calc.py"), "utf8"), FIXED);
    assert.equal(readFileSync(join(sandbox.workspace, "report.txt"), "utf8"), "PASS\n");
    await screenshot(app, "commands-03-conversation");

    // The Events view lists every event; its timeline is virtualised: scroll
    // through it and collect every command's exit badge and whether its
    // output carries colours.
    await showEvents(app);
    await screenshot(app, "commands-04-events");
    const seen = await scanTimeline(app);
    // Each command shows its badge (on its row and its result): first 1, then 0.
    assert.ok(seen.exits.length >= 2, `exit badges: ${JSON.stringify(seen)}`);
    assert.equal(seen.exits[0], "1", `the first run fails: ${JSON.stringify(seen)}`);
    assert.equal(seen.exits.at(-1), "0", `the last run passes: ${JSON.stringify(seen)}`);
    assert.ok(seen.red, "the failing run's red FAIL is rendered in colour");
    assert.ok(seen.green, "the passing run's green PASS is rendered in colour");

    // report.txt was written by the command: it is an artifact; revert removes it.
    await byTestId(app, "changes-tab").click();
    const row = (path) => app.$(`[data-testid="artifact-row"][data-path="${path}"]`);
    await step(app, "cmd-changes", () => row("report.txt").waitForDisplayed(WAIT));
    assert.equal(await row("report.txt").getAttribute("data-change"), "added");
    assert.ok(await row("calc.py").isExisting(), "the approved edit is a change too");
    await row("report.txt").click();
    await row("report.txt").$('[data-testid="artifact-revert"]').click();
    await step(app, "cmd-reverted", () =>
      app.waitUntil(async () => (await row("report.txt").getAttribute("data-state")) === "reverted", {
        ...WAIT,
        timeoutMsg: "report.txt never showed as reverted",
      }),
    );
    assert.ok(!existsSync(join(sandbox.workspace, "report.txt")), "the revert removed the file the command created");
    assert.equal(readFileSync(join(sandbox.workspace, "calc.py"), "utf8"), FIXED, "only report.txt was reverted");
    await screenshot(app, "commands-05-reverted");
    assert.equal(model.calls(), 4, "four model calls: test, fix, test, answer");
  } finally {
    await app.deleteSession();
  }
});
