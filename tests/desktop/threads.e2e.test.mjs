// The real app under Xvfb: the user replies to a finished demo run; the
// follow-up runs in the same thread view (the demo run collapsed above it,
// openable), with the workspace's AGENTS.md shown in the run view.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, startDemo, pendingApproval, WAIT } from "./harness.mjs";

let sandbox;
let driver;

before(async () => {
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

test("threads: reply to a finished demo run → the follow-up runs in the same thread, AGENTS.md shows", async () => {
  const app = await launchApp(driver);
  try {
    const workspace = await step(app, "thread-demo", () => startDemo(app));
    await step(app, "thread-approve", () => pendingApproval(app).waitForDisplayed(WAIT));
    await byTestId(app, "approve").click();
    await step(app, "thread-demo-done", () =>
      app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 30_000 }),
    );
    const demoAnswer = await byTestId(app, "final-answer").getText();
    // Instructions added now are read by the follow-up at its start.
    writeFileSync(join(workspace, "AGENTS.md"), "# House rules\n\nKeep greetings short.\n");

    await step(app, "thread-reply", async () => {
      await byTestId(app, "reply-message").waitForDisplayed(WAIT);
      await byTestId(app, "reply-message").setValue("Now add Spanish first, please.");
      await byTestId(app, "reply-send").click();
    });
    // The follow-up opens with the demo run above it in the thread.
    const entry = app.$('[data-testid="thread-entry"]');
    await step(app, "thread-panel", () => entry.waitForDisplayed(WAIT));
    assert.equal(await entry.getAttribute("data-status"), "succeeded");
    await step(app, "thread-follow-up-done", () =>
      app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 30_000 }),
    );
    assert.match(await byTestId(app, "final-answer").getText(), /Demo follow-up/);
    assert.match(await byTestId(app, "thread-current").getText(), /follow-up|This run/i);
    await step(app, "thread-instructions", () => byTestId(app, "run-instructions").waitForDisplayed(WAIT));
    assert.match(await byTestId(app, "run-instructions").getText(), /AGENTS\.md/);
    await screenshot(app, "threads-01-follow-up");

    // The earlier run expands to its answer and opens.
    await entry.$('[data-testid="thread-entry-toggle"]').click();
    await entry.$('[data-testid="thread-entry-answer"]').waitForDisplayed(WAIT);
    assert.equal(await entry.$('[data-testid="thread-entry-answer"]').getText(), demoAnswer);
    const demoId = await entry.getAttribute("data-run-id");
    await entry.$('[data-testid="thread-entry-open"]').click();
    await step(app, "thread-open-parent", () =>
      app.waitUntil(async () => (await byTestId(app, "final-answer").getText()) === demoAnswer, {
        ...WAIT,
        timeoutMsg: `the demo run ${demoId} did not open`,
      }),
    );
    await screenshot(app, "threads-02-parent");
  } finally {
    await app.deleteSession();
  }
});
