// The real app under Xvfb: review what the demo run changed — the file
// appears with its badge, the diff shows the lines, revert puts the disk
// back, undo brings the run's version back; a file a person creates while
// the run waits for approval is not overwritten by the approved write.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
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

/** Starts the demo and returns its workspace path once the approval is pending. */
async function demoAwaitingApproval(app) {
  const path = await startDemo(app);
  await pendingApproval(app).waitForDisplayed(WAIT);
  return path;
}

async function approveAndFinish(app) {
  await byTestId(app, "approve").click();
  await app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 30_000 });
}

const row = (app, path) => app.$(`[data-testid="artifact-row"][data-path="${path}"]`);

async function waitState(app, path, state) {
  await app.waitUntil(async () => (await row(app, path).getAttribute("data-state")) === state, {
    ...WAIT,
    timeoutMsg: `${path} never reached state ${state}`,
  });
}

test("changes: the written file shows as added with its diff; revert removes it, undo brings it back", async () => {
  const app = await launchApp(driver);
  try {
    const workspace = await step(app, "changes-start", () => demoAwaitingApproval(app));
    const plan = join(workspace, "docs/plan.md");
    await step(app, "changes-finish", () => approveAndFinish(app));
    const written = readFileSync(plan, "utf8");

    await byTestId(app, "changes-tab").click();
    await step(app, "changes-row", () => row(app, "docs/plan.md").waitForDisplayed(WAIT));
    assert.equal(await row(app, "docs/plan.md").getAttribute("data-change"), "added");
    assert.equal(await row(app, "docs/plan.md").getAttribute("data-state"), "pending");
    await row(app, "docs/plan.md").click();
    await step(app, "changes-diff", () => byTestId(app, "diff-view").waitForDisplayed(WAIT));
    const added = await app.$$('[data-testid="diff-line"][data-kind="added"]');
    assert.ok(added.length >= 3, `added lines shown: ${added.length}`);
    await screenshot(app, "changes-01-diff");

    await byTestId(app, "artifact-revert").click();
    await step(app, "changes-reverted", () => waitState(app, "docs/plan.md", "reverted"));
    assert.ok(!existsSync(plan), "a file the run created is removed by its revert");
    await screenshot(app, "changes-02-reverted");

    await byTestId(app, "artifact-reapply").click();
    await step(app, "changes-reapplied", () => waitState(app, "docs/plan.md", "pending"));
    assert.equal(readFileSync(plan, "utf8"), written, "the run's version is back");
  } finally {
    await app.deleteSession();
  }
});

test("changes: a file a person creates while the run waits is never overwritten by the approved write", async () => {
  const app = await launchApp(driver);
  try {
    const workspace = await step(app, "changes-start", () => demoAwaitingApproval(app));
    // While the run waits for approval, a person writes the file it wants to create.
    const plan = join(workspace, "docs/plan.md");
    const mine = "# My own plan\n";
    writeFileSync(plan, mine);
    await step(app, "changes-finish", () => approveAndFinish(app));
    assert.equal(readFileSync(plan, "utf8"), mine, "the person's content is intact");
    assert.match(await byTestId(app, "final-answer").getText(), /did not happen/);
    // The refusal is in the timeline (virtualised: scroll to its end).
    await step(app, "changes-conflict-row", () =>
      app.waitUntil(
        async () => {
          await app.execute(() => {
            const list = document.querySelector('[data-testid="timeline"]');
            if (list) list.scrollTop = list.scrollHeight;
          });
          const rows = await app.$$('[data-testid="timeline-row"][data-type="tool_call_failed"]');
          for (const r of rows) if ((await r.getText()).includes("conflict")) return true;
          return false;
        },
        { ...WAIT, timeoutMsg: "the conflict never appeared in the timeline" },
      ),
    );
    await screenshot(app, "changes-03-conflict");
    await byTestId(app, "changes-tab").click();
    assert.equal(await row(app, "docs/plan.md").isExisting(), false, "the refused write is not an artifact");
  } finally {
    await app.deleteSession();
  }
});
