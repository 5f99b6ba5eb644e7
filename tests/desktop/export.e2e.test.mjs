// The real app under Xvfb, Export… of a run (issue 57, point 5): the demo
// run, approved and succeeded, is exported from its run menu → Export…
// through the native save dialog (GTK's; WebDriver cannot reach it, so
// xdotool types the file's path into it as a person would); the window
// says where it wrote. Then the real `bearagent import` adds that file to
// another data folder and `bearagent replay` re-drives the run from it:
// identical, as for a file `bearagent export --bundle` writes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { repoRoot, makeSandbox, startDriver, launchApp, byTestId, screenshot, step, startDemo, outcome, pendingApproval, WAIT, LONG } from "./harness.mjs";

const cliBinary = process.env.BEARAGENT_CLI_BIN ?? join(repoRoot, "target/debug/bearagent");
const DIALOG_TITLE = "Export the run as a BearAgent run file";

let sandbox;
let driver;

before(async () => {
  if (!existsSync(cliBinary)) throw new Error(`CLI not found at ${cliBinary}: cargo build -p bearagent-cli`);
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

/** xdotool on the test's X display; its output. */
const xdotool = (...args) => execFileSync("xdotool", args, { encoding: "utf8", timeout: 20_000 }).trim();

/** The save dialog is open: focus its name field (focused when it opens), replace the suggested name with `path`, save. */
async function answerSaveDialog(path) {
  const window = xdotool("search", "--sync", "--name", DIALOG_TITLE).split("\n")[0];
  // No window manager under Xvfb: give the dialog the keyboard directly.
  xdotool("windowfocus", "--sync", window);
  await sleep(300);
  xdotool("key", "--clearmodifiers", "ctrl+a");
  xdotool("type", "--delay", "20", path);
  await sleep(200);
  xdotool("key", "Return");
}

/** The CLI on another data folder (another machine's BearAgent): its JSON answer. */
function bearagent(home, ...args) {
  const out = spawnSync(cliBinary, args, {
    env: { ...process.env, HOME: sandbox.home, XDG_RUNTIME_DIR: sandbox.runtime, BEARAGENT_HOME: home },
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(out.status, 0, `bearagent ${args.join(" ")} failed:\n${out.stdout}\n${out.stderr}`);
  return JSON.parse(out.stdout.trim().split("\n").pop());
}

test("run menu → Export… writes the run where the save dialog says; bearagent import of that file replays identical", async () => {
  const app = await launchApp(driver);
  const file = join(sandbox.root, "exports", "demo-run.bearagent-run");
  mkdirSync(join(sandbox.root, "exports"), { recursive: true });
  let runId;
  try {
    await step(app, "export-demo", async () => {
      await startDemo(app);
      await pendingApproval(app).waitForDisplayed(LONG);
      await app.execute(() => document.querySelector('[data-testid="approval-row"][data-state="pending"]')?.focus());
      await app.keys(["a"]);
      await outcome(app, "succeeded").waitForDisplayed(LONG);
    });
    runId = await byTestId(app, "run-view").getAttribute("data-run-id");

    await step(app, "export-menu", async () => {
      await byTestId(app, "run-menu").click();
      await byTestId(app, "run-menu-export").waitForClickable(WAIT);
      await byTestId(app, "run-menu-export").click();
      await answerSaveDialog(file);
      await app.$(`[data-testid="export-result"][data-path="${file}"]`).waitForDisplayed(WAIT);
    });
    assert.equal(await byTestId(app, "export-path").getText(), file);
    assert.ok(existsSync(file), `${file} was written`);
    await screenshot(app, "export-01-run-exported");
  } finally {
    await app.deleteSession();
  }

  // Another BearAgent (its own data folder) imports the file and re-drives the run from it.
  const elsewhere = join(sandbox.root, "elsewhere-home");
  mkdirSync(elsewhere, { recursive: true });
  const imported = bearagent(elsewhere, "import", file, "--json");
  assert.equal(imported.run_id, runId, JSON.stringify(imported));
  const replay = bearagent(elsewhere, "replay", runId, "--json");
  assert.equal(replay.identical, true, JSON.stringify(replay));
  assert.ok(replay.events > 0, JSON.stringify(replay));
});
