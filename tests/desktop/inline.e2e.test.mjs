// The real app under Xvfb, an edit card's inline diff (issue 57, point 1):
// a loopback model edits one line of calc.py. While the edit waits for
// approval its card shows the diff against the file as it is now, without
// a click; approved, the finished card shows the file's diff the same way
// with Keep / Revert beside its one hunk: the hunk is kept from there (an
// event; the file untouched, the hunk marked kept), then reverted: calc.py
// holds what it held before.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, openWorkspace, startRun, outcome, card, WAIT, LONG } from "./harness.mjs";
import { startModel, toolTurn, answerTurn, writeLoopbackConfig } from "./loopback-model.mjs";

let sandbox;
let driver;

before(async () => {
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

const CALC_BEFORE = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
const CALC_AFTER = CALC_BEFORE.replace("return a - b", "return a + b");
const TURNS = [
  toolTurn("call_1", "edit_file", { path: "calc.py", old_string: "    return a - b", new_string: "    return a + b" }),
  answerTurn("Fixed add()."),
];

/** The changed lines an inline diff shows, as "kind:text". */
const changedLines = (inline) =>
  inline.$$('[data-testid="diff-line"]:not([data-kind="context"])').map(async (row) => `${await row.getAttribute("data-kind")}:${(await row.$(".code").getText()).trim()}`);

test("a one-line edit's diff is on its card without a click, waiting and finished; its hunk is kept, then reverted, from there", async () => {
  const model = await startModel(TURNS);
  writeLoopbackConfig(sandbox.data, model.port);
  const workspace = join(sandbox.root, "calc");
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, "calc.py"), CALC_BEFORE);
  const app = await launchApp(driver);
  try {
    await openWorkspace(app, workspace);
    await startRun(app, { goal: "Fix add() in calc.py", approval: "ask_writes" });
    const edit = card(app, "call_1");
    await step(app, "inline-waiting", async () => {
      await edit.$('[data-testid="card-status"][data-status="asking"]').waitForDisplayed(LONG);
      await edit.$('[data-testid="card-inline-diff"]').waitForDisplayed(WAIT);
    });
    assert.equal(await edit.getAttribute("data-open"), "false", "no click: the card is closed");
    assert.deepEqual(await changedLines(edit.$('[data-testid="card-inline-diff"]')), ["removed:return a - b", "added:return a + b"]);
    await screenshot(app, "inline-01-waiting-edit");

    await edit.$('[data-testid="approval-row"][data-state="pending"] [data-testid="approve"]').click();
    await step(app, "inline-done", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    assert.equal(readFileSync(join(workspace, "calc.py"), "utf8"), CALC_AFTER);
    const inline = edit.$('[data-testid="card-inline-diff"]');
    await step(app, "inline-finished", () => inline.$('[data-testid="hunk-revert"][data-hunk="1"]').waitForDisplayed(WAIT));
    assert.equal(await edit.getAttribute("data-open"), "false");
    assert.deepEqual(await changedLines(inline), ["removed:return a - b", "added:return a + b"]);
    await screenshot(app, "inline-02-finished-edit");

    await inline.$('[data-testid="hunk-keep"][data-hunk="1"]').click();
    await step(app, "inline-kept", () => inline.$('[data-testid="inline-hunk"][data-hunk="1"][data-kept="true"] [data-testid="hunk-kept"]').waitForDisplayed(WAIT));
    assert.equal(readFileSync(join(workspace, "calc.py"), "utf8"), CALC_AFTER, "keeping changes nothing on disk");
    const recorded = await app.execute(async (id) => {
      const page = await window.__TAURI_INTERNALS__.invoke("list_events", { runId: id, afterSeq: 0, limit: 1000 });
      return page.events.filter((e) => e.payload.type === "artifact_hunks_kept").map((e) => ({ path: e.payload.path, hunks: e.payload.hunks }));
    }, await byTestId(app, "run-view").getAttribute("data-run-id"));
    assert.deepEqual(recorded, [{ path: "calc.py", hunks: [1] }]);
    await screenshot(app, "inline-03-hunk-kept");

    await inline.$('[data-testid="hunk-revert"][data-hunk="1"]').click();
    await step(app, "inline-reverted", () =>
      app.waitUntil(async () => readFileSync(join(workspace, "calc.py"), "utf8") === CALC_BEFORE, { ...WAIT, timeoutMsg: "calc.py was not put back" }),
    );
    await step(app, "inline-reverted-state", () => edit.$('[data-testid="card-review"]:not([data-state="pending"])').waitForExist(WAIT));
    await screenshot(app, "inline-04-hunk-reverted");
  } finally {
    await app.deleteSession();
    model.server.close();
  }
});
