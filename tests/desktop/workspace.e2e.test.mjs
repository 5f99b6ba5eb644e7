// The real app under Xvfb: the window renders, opening a workspace by path
// round-trips through Rust and SQLite, and recents survive a restart.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot } from "./harness.mjs";

let sandbox;
let driver;

before(async () => {
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

test("first launch shows the workspace prompt, opening a path round-trips, recents persist across restart", async () => {
  const workspacePath = realpathSync(sandbox.workspace);
  let app = await launchApp(driver);
  try {
    assert.equal(await app.getTitle(), "BearAgent");
    await byTestId(app, "no-workspace").waitForDisplayed({ timeout: 10_000 });
    assert.ok(await byTestId(app, "choose-workspace").isDisplayed(), "Choose workspace… button");
    await screenshot(app, "01-first-launch");

    // A file is not a folder: the error comes from Rust with its code.
    const file = join(sandbox.root, "not-a-folder.txt");
    writeFileSync(file, "x");
    await byTestId(app, "path-input").setValue(file);
    await byTestId(app, "open-path").click();
    const error = byTestId(app, "error");
    await error.waitForDisplayed({ timeout: 10_000 });
    assert.equal(await error.getAttribute("data-code"), "not_a_directory");

    // The dialog cannot be driven by WebDriver; the same command takes a path.
    await byTestId(app, "path-input").setValue(workspacePath);
    await byTestId(app, "open-path").click();
    const current = byTestId(app, "current-workspace");
    await current.waitForDisplayed({ timeout: 10_000 });
    // WebKitWebDriver's text of an ellipsised span is unreliable; the
    // element carries the path it shows.
    await app.waitUntil(async () => (await current.getAttribute("data-path")) === workspacePath, {
      timeout: 10_000,
      timeoutMsg: "current workspace never showed the opened path",
    });
    const recent = await app.$$('[data-testid="recent-item"]');
    assert.equal(recent.length, 1);
    assert.equal(await recent[0].getAttribute("data-path"), workspacePath);
    await byTestId(app, "runs-empty").waitForDisplayed({ timeout: 10_000 });
    await screenshot(app, "02-workspace-open");
  } finally {
    await app.deleteSession();
  }

  // Restart: a new process reads the same SQLite database.
  app = await launchApp(driver);
  try {
    const recent = byTestId(app, "recent-item");
    await recent.waitForDisplayed({ timeout: 10_000 });
    assert.equal(await recent.getAttribute("data-path"), workspacePath);
    const current = byTestId(app, "current-workspace");
    await current.waitForDisplayed({ timeout: 10_000 });
    assert.equal(await current.getAttribute("data-path"), workspacePath);
    await screenshot(app, "workspace");
  } finally {
    await app.deleteSession();
  }
});
