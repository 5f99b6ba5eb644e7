// The page's web process recycled in the real app (src-tauri/src/web_process.rs),
// with the threshold at 0 MB and 5 s of idleness, so it happens during the
// test. A goal typed but not started is never lost to a recycle; once the
// person leaves the page alone the web process is replaced and the page
// loads again in the new one (the app's log says so, with the new pid), and
// the app process lives on. A web process that dies (killed) is replaced
// the same way instead of leaving a blank window. WebKitWebDriver ends its
// session with the web process, so what the page shows after a recycle
// (the run, its tab, the place in its list) is tested in Chromium:
// ui/tests/recycle.ui.test.mjs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { repoRoot, makeSandbox, startDriver, launchApp, openWorkspace, byTestId, screenshot, step, WAIT } from "./harness.mjs";

const cliBinary = process.env.BEARAGENT_CLI_BIN ?? join(repoRoot, "target/debug/bearagent");
const IDLE_SECS = 5;

let sandbox;
let driver;
let runId;

before(async () => {
  if (!existsSync(cliBinary)) throw new Error(`CLI not found at ${cliBinary}: cargo build -p bearagent-cli`);
  sandbox = makeSandbox();
  // A finished run long enough to scroll: 40 reads over ten files (loop detection stops repeats; 50 model calls is the default budget).
  for (let f = 0; f < 10; f++) writeFileSync(join(sandbox.workspace, `notes-${f}.txt`), `notes ${f}\n`.repeat(40));
  const steps = Array.from({ length: 40 }, (_, i) => ({ tool_call: { tool_name: "read_file", arguments: { path: `notes-${i % 10}.txt`, start_line: Math.floor(i / 10) + 1 }, call_id: `c${i}` } }));
  steps.push({ final_answer: "Forty reads done." });
  const script = join(sandbox.root, "script.json");
  writeFileSync(script, JSON.stringify(steps));
  const env = { ...process.env, HOME: sandbox.home, XDG_RUNTIME_DIR: sandbox.runtime, BEARAGENT_HOME: sandbox.data };
  const out = execFileSync(cliBinary, ["run", "--json", "--approve", "all", "--script", script, "--workspace", sandbox.workspace, "read the notes"], { env, maxBuffer: 1 << 26 });
  runId = JSON.parse(out.toString().split("\n").find((l) => l.includes('"run_created"'))).event.run_id;
  process.env.BEARAGENT_WEB_RECYCLE = "on";
  process.env.BEARAGENT_WEB_RECYCLE_ABOVE_MB = "0";
  process.env.BEARAGENT_WEB_RECYCLE_IDLE_SECS = String(IDLE_SECS);
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

/** The web process of this sandbox's app (a child of the app process). */
function webProcess() {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/stat`, "utf8").includes("(WebKitWebProces)")) continue;
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`BEARAGENT_HOME=${sandbox.data}`)) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return null;
}

/** Waits (without input) until the web process is a new one; returns its pid. */
async function newWebProcess(was, ms = 40_000) {
  const t0 = Date.now();
  for (;;) {
    const now = webProcess();
    if (now && now !== was) return now;
    if (Date.now() - t0 > ms) throw new Error(`the web process ${was} was not replaced within ${ms} ms`);
    await sleep(200);
  }
}

/** The app's log lines (all its daily files). */
function appLog() {
  const dir = join(sandbox.data, "logs");
  return readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
}

/** Waits until the page said it is ready in web process `pid` (its script ran there). */
async function pageReadyIn(pid, ms = 30_000) {
  const t0 = Date.now();
  const said = () => appLog().split("\n").some((l) => l.includes("the page is ready in its web process") && l.includes(`pid=${pid}`));
  while (!said()) {
    if (Date.now() - t0 > ms) throw new Error(`the page never said it was ready in web process ${pid}`);
    await sleep(200);
  }
}

/** The app process of this sandbox (the web process's parent). */
const parentOf = (pid) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);

test("an idle page's web process is recycled, never while a typed goal would be lost; a dead one is replaced", async () => {
  const app = await launchApp(driver);
  try {
    await openWorkspace(app, sandbox.workspace);
    const first = webProcess();
    assert.ok(first, "the app has a web process");
    await pageReadyIn(first);
    const appProcess = parentOf(first);

    await step(app, "recycle-typed", async () => {
      await byTestId(app, "run-goal").setValue("half a goal, not started");
      await sleep((IDLE_SECS * 2 + 2) * 1000);
      assert.equal(webProcess(), first, "no recycle while typed text would be lost");
      assert.equal(await byTestId(app, "run-goal").getValue(), "half a goal, not started");
    });

    // The goal cleared (as after starting it), a run opened: left alone, the page is recycled.
    await byTestId(app, "run-goal").clearValue();
    const link = app.$(`[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-link"]`);
    await link.waitForClickable(WAIT);
    await link.click();
    await byTestId(app, "timeline-tab").click();
    await app.$('.timeline[data-loaded="true"]').waitForExist(WAIT);
    await screenshot(app, "recycle-01-before");
    const second = await newWebProcess(first);
    assert.equal(parentOf(second), appProcess, "the same app process, a new web process");
    await pageReadyIn(second);
    assert.match(appLog(), /recycling the idle page's web process/);

    // A web process that dies is replaced too (not a blank window).
    process.kill(second, "SIGKILL");
    const third = await newWebProcess(second);
    assert.equal(parentOf(third), appProcess);
    await pageReadyIn(third);
  } finally {
    await app.deleteSession().catch(() => {});
  }
});
