// Two BearAgent processes on one data folder: a `bearagent` CLI run is in
// progress when the real app starts. The app must not mark it interrupted;
// it shows the run in its list and timeline live while the CLI executes it,
// says it runs in another process (no approval or cancel buttons), and
// shows it Succeeded when the CLI finishes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import {
  repoRoot,
  makeSandbox,
  startDriver,
  launchApp,
  byTestId,
  screenshot,
  step,
  showEvents,
  WAIT,
} from "./harness.mjs";

const cliBinary = process.env.BEARAGENT_CLI_BIN ?? join(repoRoot, "target/debug/bearagent");

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

/** Starts a slow scripted CLI run; resolves with its id once created. */
function startCliRun() {
  const steps = [];
  // About 24 s of model time: still running however slowly the app starts.
  // Alternating calls, so loop detection has nothing to stop.
  for (let i = 0; i < 40; i++) {
    const [tool, args] = i % 2 === 0 ? ["list_dir", {}] : ["read_file", { path: "README.md" }];
    steps.push({ delay_ms: 600, tool_call: { tool_name: tool, arguments: args, call_id: `c${i}` } });
  }
  steps.push({ final_answer: "looked around forty times" });
  const script = join(sandbox.root, "slow-script.json");
  writeFileSync(script, JSON.stringify(steps));
  writeFileSync(join(sandbox.workspace, "README.md"), "# my project\n");
  const child = spawn(
    cliBinary,
    ["run", "--json", "--approve", "all", "--script", script, "--workspace", sandbox.workspace, "a slow CLI run"],
    {
      env: { ...process.env, HOME: sandbox.home, XDG_RUNTIME_DIR: sandbox.runtime, BEARAGENT_HOME: sandbox.data },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((ok) => child.on("exit", (code) => ok({ code, stdout, stderr })));
  const created = new Promise((ok, fail) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      // Only whole lines: a chunk can end inside the run_created line (seen at 1024 bytes).
      const line = stdout.split("\n").slice(0, -1).find((l) => l.includes('"run_created"'));
      if (line) ok(JSON.parse(line).event.run_id);
    });
    child.on("exit", (code) => fail(new Error(`the CLI exited (${code}) before creating its run: ${stderr}`)));
  });
  return { created, exited, child };
}

test("a CLI run in progress while the app starts: shown live, owned by the CLI, ends Succeeded, never Interrupted", async () => {
  const cli = startCliRun();
  const runId = await cli.created;
  const app = await launchApp(driver);
  try {
    // The app reopened the CLI's workspace; the run is listed, still live.
    const row = app.$(`[data-testid="run-row"][data-run-id="${runId}"]`);
    await step(app, "procs-listed", () => row.waitForDisplayed(WAIT));
    assert.notEqual(await row.getAttribute("data-status"), "interrupted");
    await screenshot(app, "processes-01-cli-run-listed");

    await app.execute((id) => (location.hash = `#/run/${encodeURIComponent(id)}`), runId);
    await step(app, "procs-owner", () => byTestId(app, "run-owner-elsewhere").waitForDisplayed(WAIT));
    assert.match(await byTestId(app, "run-owner-elsewhere").getText(), /another BearAgent process/);
    assert.equal(await byTestId(app, "cancel-run").isExisting(), false, "no cancel for another process's run");
    await showEvents(app);

    // The Events view's timeline grows while the CLI executes the run (the list is
    // virtualised: watch the newest seq, not the number of rows).
    const newestSeq = () =>
      app.execute(() =>
        Math.max(0, ...[...document.querySelectorAll('[data-testid="timeline-row"]')].map((r) => Number(r.dataset.seq))),
      );
    const before = await newestSeq();
    assert.ok(before > 0, "the timeline shows the run's events");
    await step(app, "procs-live", () =>
      app.waitUntil(async () => (await newestSeq()) > before + 4, {
        ...WAIT,
        timeoutMsg: "the timeline did not grow while the CLI ran",
      }),
    );
    await screenshot(app, "processes-02-cli-run-live");

    const outcome = app.$('[data-testid="run-outcome"][data-status="succeeded"]');
    await step(app, "procs-outcome", () => outcome.waitForDisplayed({ timeout: 40_000 }));
    await screenshot(app, "processes-03-cli-run-succeeded");
  } finally {
    await app.deleteSession();
  }
  const { code, stdout, stderr } = await cli.exited;
  assert.equal(code, 0, stderr);
  assert.ok(!stdout.includes('"run_interrupted"'), "the CLI's run was never interrupted");
  assert.ok(stdout.includes('"run_succeeded"'));
});
