// The real app under Xvfb, per-hunk Keep (issue 57, point 3): a loopback
// model's run changes guide.md at its top and bottom (two hunks). In
// Changes, hunk 1 is kept from the keyboard (n to its buttons, k keeps),
// then hunk 2 is reverted: the file holds the kept change and not the
// other, the kept mark stays on its hunk. A reply then starts the
// follow-up, and its first request to the model names both decisions.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, openWorkspace, startRun, outcome, WAIT, LONG } from "./harness.mjs";
import { startModel, toolTurn, answerTurn, writeLoopbackConfig, messagesOf } from "./loopback-model.mjs";

let sandbox;
let driver;

before(async () => {
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

const guide = (top, bottom) => `# ${top}\n\n${Array.from({ length: 12 }, (_, i) => `Step ${i + 1}: greet, then check.\n`).join("")}\n${bottom}\n`;
const BEFORE = guide("Greeter guide", "Languages: English.");
const AFTER = guide("Greeter guide (en, fr)", "Languages: English, French.");
const TURNS = [
  toolTurn("call_1", "write_file", { path: "guide.md", content: AFTER }),
  answerTurn("Updated the guide."),
  answerTurn("Carried on from what you kept."),
];

test("keep one hunk by key, revert the other: the follow-up's first request names both decisions", async () => {
  const model = await startModel(TURNS);
  writeLoopbackConfig(sandbox.data, model.port);
  const workspace = join(sandbox.root, "guide");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, "guide.md"), BEFORE);
  const app = await launchApp(driver);
  try {
    await openWorkspace(app, workspace);
    const runId = await startRun(app, { goal: "Add French to the guide" });
    await step(app, "hunks-done", () => outcome(app, "succeeded").waitForDisplayed(LONG));

    await step(app, "hunks-changes", async () => {
      await byTestId(app, "changes-tab").click();
      const row = app.$('[data-testid="artifact-row"][data-path="guide.md"]');
      await row.waitForDisplayed(WAIT);
      await row.$('[data-testid="artifact-select"]').click();
      await app.$('[data-testid="hunk-keep"][data-hunk="2"]').waitForDisplayed(WAIT);
    });
    // Keys: n moves to hunk 1's buttons, k keeps it.
    await app.execute(() => document.querySelector('[data-testid="diff-view"]')?.focus());
    await app.keys(["n"]);
    assert.equal(await app.execute(() => document.activeElement?.dataset.hunk), "1");
    await app.keys(["k"]);
    await step(app, "hunks-kept", () => app.$('[data-testid="hunk-kept"][data-hunk="1"]').waitForDisplayed(WAIT));
    assert.equal(readFileSync(join(workspace, "guide.md"), "utf8"), AFTER, "keeping changes nothing on disk");
    await screenshot(app, "hunks-01-kept-by-key");

    await app.$('[data-testid="hunk-revert"][data-hunk="2"]').click();
    await step(app, "hunks-reverted", () =>
      app.waitUntil(async () => readFileSync(join(workspace, "guide.md"), "utf8") === guide("Greeter guide (en, fr)", "Languages: English."), {
        ...WAIT,
        timeoutMsg: "hunk 2 was not reverted",
      }),
    );
    await step(app, "hunks-one-left", () =>
      app.waitUntil(async () => (await app.$$('[data-testid="diff-hunk"]')).length === 1, { ...WAIT, timeoutMsg: "one hunk should be left" }),
    );
    await app.$('[data-testid="hunk-kept"][data-hunk="1"]').waitForDisplayed(WAIT);
    await screenshot(app, "hunks-02-kept-and-reverted");

    await step(app, "hunks-reply", async () => {
      await byTestId(app, "conversation-tab").click();
      await byTestId(app, "reply-message").waitForDisplayed(WAIT);
      await byTestId(app, "reply-message").setValue("Go on from there.");
      await byTestId(app, "reply-send").click();
      await app.$(`[data-testid="run-view"]:not([data-run-id="${runId}"])`).waitForDisplayed(WAIT);
      await outcome(app, "succeeded").waitForDisplayed(LONG);
    });
    await screenshot(app, "hunks-03-follow-up");
  } finally {
    await app.deleteSession();
    model.server.close();
  }
  // The follow-up's first request: the third the model got.
  assert.equal(model.bodies.length, 3);
  const told = messagesOf(model.bodies[2]).map((m) => m.text);
  const kept = told.find((t) => t.includes("reviewed hunk 1 of your change to `guide.md` and kept it"));
  const reverted = told.find((t) => t.includes("reverted hunk 2 of your change to `guide.md`"));
  assert.ok(kept, JSON.stringify(told, null, 2));
  assert.ok(reverted, JSON.stringify(told, null, 2));
  assert.match(kept, /\+# Greeter guide \(en, fr\)/);
  assert.match(reverted, /\+Languages: English, French\./);
  assert.ok(told.indexOf(kept) < told.indexOf(reverted) && told.indexOf(reverted) < told.findIndex((t) => t.includes("Go on from there.")));
});
