// The real app under Xvfb, driving the offline demo run end to end:
// approve → the file is written and the run succeeds; deny → the model is
// told and nothing is written; the app killed while the approval is pending
// → after a restart the run is interrupted, the request still answers, and
// approving it completes the run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  appBinary,
  makeSandbox,
  startDriver,
  launchApp,
  byTestId,
  screenshot,
  step,
  startDemo,
  pendingApproval,
  WAIT,
} from "./harness.mjs";

let sandbox;
let driver;

before(async () => {
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

async function waitForOutcome(app, status) {
  const outcome = app.$(`[data-testid="run-outcome"][data-status="${status}"]`);
  await outcome.waitForDisplayed({ timeout: 30_000 });
  return outcome;
}

/** Pids of this sandbox's app processes: our binary, our BEARAGENT_HOME. */
function appPids() {
  const binary = realpathSync(appBinary);
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/exe`).replace(/ \(deleted\)$/, "") !== binary) continue;
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (environ.includes(`BEARAGENT_HOME=${sandbox.data}`)) pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

async function ending(promise, ms) {
  return Promise.race([promise.catch(() => {}), sleep(ms)]);
}

test("demo run: approve by keyboard → docs/plan.md is written, the run succeeds with its answer", async () => {
  const app = await launchApp(driver);
  try {
    await step(app, "approve-welcome", () => byTestId(app, "welcome").waitForDisplayed(WAIT));
    await screenshot(app, "runs-01-first-launch");
    const workspace = await step(app, "approve-start", () => startDemo(app));
    const plan = join(workspace, "docs/plan.md");
    assert.ok(existsSync(join(workspace, "docs/notes.md")), "the sample workspace exists on disk");

    await step(app, "approve-request", () => pendingApproval(app).waitForDisplayed(WAIT));
    assert.match(await pendingApproval(app).getText(), /docs\/plan\.md/);
    assert.ok(!existsSync(plan), "nothing is written before the approval");
    await screenshot(app, "runs-02-demo-approval");

    // Keyboard: the focused approval row answers to A.
    await app.execute(() => document.querySelector('[data-testid="approval-row"][data-state="pending"]')?.focus());
    await app.keys(["a"]);
    const outcome = await step(app, "approve-outcome", () => waitForOutcome(app, "succeeded"));
    assert.equal(await outcome.getAttribute("data-tone"), "success");
    assert.match(await byTestId(app, "final-answer").getText(), /wrote docs\/plan\.md/);
    assert.ok(existsSync(plan), `${plan} exists after the approval`);
    assert.match(readFileSync(plan, "utf8"), /# Plan/);
    await screenshot(app, "runs-03-demo-succeeded");
  } finally {
    await app.deleteSession();
  }
});

test("demo run: deny with a reason → the model is told, nothing is written", async () => {
  const app = await launchApp(driver);
  try {
    const workspace = await step(app, "deny-start", () => startDemo(app));
    const request = pendingApproval(app);
    await step(app, "deny-request", () => request.waitForDisplayed(WAIT));
    const reason = "keep docs/ unchanged for now";
    await byTestId(app, "deny-reason").setValue(reason);
    await byTestId(app, "deny").click();

    await step(app, "deny-outcome", () => waitForOutcome(app, "succeeded"));
    assert.match(await byTestId(app, "final-answer").getText(), /did not happen \(you declined it/);
    assert.ok(!existsSync(join(workspace, "docs/plan.md")), "docs/plan.md was not written");
    // The conversation's card says it was denied and why.
    const card = app.$('[data-testid="tool-card"][data-tool="write_file"][data-status="denied"]');
    await step(app, "deny-card", () => card.waitForDisplayed(WAIT));
    assert.match(await card.$('[data-testid="card-reason"]').getText(), /keep docs\/ unchanged for now/);
    await screenshot(app, "runs-04-demo-denied-card");
    // Its link shows the call's events in the Events view, the answered request among them.
    await card.$('[data-testid="card-events"]').click();
    await app.$('.timeline[data-loaded="true"]').waitForExist(WAIT);
    const denied = app.$('[data-testid="approval-row"][data-state="denied"]');
    await step(app, "deny-events", () => denied.waitForExist(WAIT));
    assert.match(await denied.getText(), /keep docs\/ unchanged for now/);

    // What the last model call saw includes the denial and its reason. The
    // deep link centres its rows for a few frames: scroll to the end until
    // the last row is there.
    const lastSaw = await step(app, "deny-context", async () => {
      await app.waitUntil(async () => {
        await app.execute(() => {
          const el = document.querySelector('[data-testid="timeline"]');
          el.scrollTop = el.scrollHeight;
        });
        return app.$('[data-testid="timeline-row"][data-type="run_succeeded"]').isExisting();
      }, WAIT);
      const rows = app.$$('[data-type="model_call_completed"] [data-testid="model-saw"]');
      await app.waitUntil(async () => (await rows.length) > 0, WAIT);
      return (await rows)[(await rows.length) - 1];
    });
    await lastSaw.click();
    await app.$('[data-testid="model-context"][data-state="ready"]').waitForDisplayed(WAIT);
    assert.match(await byTestId(app, "context-history").getText(), /the user denied this call: keep docs\/ unchanged for now/);
    await screenshot(app, "runs-05-demo-denied-context");
  } finally {
    await app.deleteSession();
  }
});

test("app killed while the approval is pending → interrupted after restart, still answerable, approve completes it", async () => {
  let app = await launchApp(driver);
  let workspace;
  try {
    workspace = await step(app, "kill-start", () => startDemo(app));
    await step(app, "kill-request", () => pendingApproval(app).waitForDisplayed(WAIT));
  } catch (error) {
    await app.deleteSession();
    throw error;
  }

  // Kill the app process (not a clean quit).
  const pids = appPids();
  assert.ok(pids.length > 0, "found the running app");
  for (const pid of pids) process.kill(pid, "SIGKILL");
  await ending(app.deleteSession(), 5_000);
  await sleep(500);

  app = await launchApp(driver);
  try {
    const plan = join(workspace, "docs/plan.md");
    assert.ok(!existsSync(plan));
    // Home: the demo workspace and its run, now interrupted.
    const current = byTestId(app, "current-workspace");
    const open = await current.isExisting() ? await current.getAttribute("data-path") : null;
    if (open !== workspace) {
      await app.$(`[data-testid="recent-item"][data-path="${workspace}"]`).click();
    }
    const row = app.$('[data-testid="run-row"][data-status="interrupted"]');
    await step(app, "kill-list", () => row.waitForDisplayed(WAIT));
    await screenshot(app, "runs-06-after-restart-list");
    await step(app, "kill-open-run", async () => {
      const link = row.$('[data-testid="run-link"]');
      await link.scrollIntoView({ block: "center" });
      await link.click();
    });

    const outcome = await step(app, "kill-interrupted", () => waitForOutcome(app, "interrupted"));
    assert.equal(await outcome.getAttribute("data-tone"), "danger");
    assert.match(await outcome.getText(), /Interrupted/);
    await step(app, "kill-answerable", () => byTestId(app, "approval-resume-note").waitForDisplayed(WAIT));
    await screenshot(app, "runs-07-interrupted-answerable");

    await byTestId(app, "approve").click();
    await step(app, "kill-resumed", () => waitForOutcome(app, "succeeded"));
    assert.match(await byTestId(app, "final-answer").getText(), /wrote docs\/plan\.md/);
    assert.ok(existsSync(plan), `${plan} exists after approving the resumed run`);
    await screenshot(app, "runs-08-resumed-succeeded");
  } finally {
    await app.deleteSession();
  }
});
