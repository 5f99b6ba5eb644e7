// The real app under Xvfb: review what the demo run changed — the file
// appears with its badge, the diff shows the lines, revert puts the disk
// back, undo brings the run's version back; a file a person creates while
// the run waits for approval is not overwritten by the approved write.
// Then, on runs of a loopback model: revert one hunk of two, edit before
// keep, and "Rewind to here" (files and conversation) with a conflict,
// from Events and from a conversation turn (its card marked, then Redo).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
  timelineRows,
  showEvents,
  card,
  WAIT,
} from "./harness.mjs";
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

/** Starts the demo and returns its workspace path once the approval is pending. */
async function demoAwaitingApproval(app) {
  const path = await startDemo(app);
  await pendingApproval(app).waitForDisplayed(WAIT);
  return path;
}

async function approveAndFinish(app) {
  const done = app.$('[data-testid="run-outcome"][data-status="succeeded"]');
  // The card can re-render under the click (a change seen outside the run
  // arrives as a note beside it): click again while it still asks.
  for (let i = 0; i < 3 && !(await done.isDisplayed()); i++) {
    const approve = byTestId(app, "approve");
    if (await approve.isExisting()) await approve.click().catch(() => {});
    await done.waitForDisplayed({ timeout: 10_000 }).catch(() => {});
  }
  await done.waitForDisplayed({ timeout: 30_000 });
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
    // The refusal is in the Events view's timeline (virtualised: scroll to its end).
    await showEvents(app);
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

// ---- hunks, edit before keep, rewind to here (a loopback model) ----------

const guide = (top, bottom) => `# ${top}\n\n${Array.from({ length: 12 }, (_, i) => `Step ${i + 1}: greet, then check.\n`).join("")}\n${bottom}\n`;
const GUIDE_BEFORE = guide("Greeter guide", "Languages: English.");
const GUIDE_AFTER = guide("Greeter guide (en, fr)", "Languages: English, French.");
const NOTES = "Notes the second turn wrote.\n";
/** Turn 1 edits guide.md at its top and bottom (two hunks); turn 2 creates notes.txt; then the answer. */
const TURNS = [
  toolTurn("call_1", "write_file", { path: "guide.md", content: GUIDE_AFTER }),
  toolTurn("call_2", "write_file", { path: "notes.txt", content: NOTES }),
  answerTurn("Updated the guide and wrote the notes."),
];

/** A finished loopback run (allow all) in a fresh workspace `name`; returns the workspace and the model. */
async function loopbackRun(name) {
  const model = await startModel(TURNS);
  writeLoopbackConfig(sandbox.data, model.port);
  const workspace = join(sandbox.root, name);
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, "guide.md"), GUIDE_BEFORE);
  const app = await launchApp(driver);
  await step(app, `${name}-open`, async () => {
    await byTestId(app, "path-input").setValue(workspace);
    await byTestId(app, "open-path").click();
    await byTestId(app, "current-workspace").waitForDisplayed(WAIT);
  });
  await step(app, `${name}-start`, async () => {
    await byTestId(app, "run-goal").waitForDisplayed(WAIT);
    await byTestId(app, "run-goal").setValue("Add French to the guide and write notes");
    await byTestId(app, "run-provider").selectByAttribute("value", "local");
    await byTestId(app, "run-approval").selectByAttribute("value", "allow_all");
    await byTestId(app, "start-run").click();
  });
  await step(app, `${name}-done`, () => app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 30_000 }));
  return { app, workspace, model };
}

async function selectFile(app, path) {
  await byTestId(app, "changes-tab").click();
  await row(app, path).waitForDisplayed(WAIT);
  await row(app, path).$('[data-testid="artifact-select"]').click();
  await app.$(`[data-testid="artifact-row"][data-path="${path}"][data-selected="true"]`).waitForExist(WAIT);
  await app.$('[data-testid="diff-view"][data-state="loaded"]').waitForDisplayed(WAIT);
}

test("changes: revert one hunk of two — the other change stays on disk", async () => {
  const { app, workspace, model } = await loopbackRun("hunks");
  try {
    await selectFile(app, "guide.md");
    await app.$('[data-testid="hunk-revert"][data-hunk="2"]').waitForDisplayed(WAIT);
    await screenshot(app, "changes-04-two-hunks");
    await app.$('[data-testid="hunk-revert"][data-hunk="1"]').click();
    await step(app, "hunk-partial", () => waitState(app, "guide.md", "partial"));
    assert.equal(readFileSync(join(workspace, "guide.md"), "utf8"), guide("Greeter guide", "Languages: English, French."));
    await app.waitUntil(async () => (await app.$$('[data-testid="diff-hunk"]')).length === 1, { ...WAIT, timeoutMsg: "one hunk should be left" });
    await screenshot(app, "changes-05-hunk-reverted");
  } finally {
    await app.deleteSession();
    model.server.close();
  }
});

test("changes: edit before keep — Cancel leaves the file; Keep my edit writes the user's version, kept", async () => {
  const { app, workspace, model } = await loopbackRun("edit");
  const file = join(workspace, "guide.md");
  try {
    await selectFile(app, "guide.md");
    await byTestId(app, "diff-edit").click();
    const content = byTestId(app, "editor-content");
    await step(app, "edit-open", () => content.waitForDisplayed(WAIT));
    await content.click();
    await app.keys(["Control", "End"]);
    await app.keys("Cancelled line");
    await app.keys(["Escape"]);
    await step(app, "edit-cancelled", () => byTestId(app, "file-editor").waitForExist({ ...WAIT, reverse: true }));
    assert.equal(readFileSync(file, "utf8"), GUIDE_AFTER, "cancel leaves the run's version");
    assert.equal(await row(app, "guide.md").getAttribute("data-state"), "pending");

    await byTestId(app, "diff-edit").click();
    await step(app, "edit-reopen", () => content.waitForDisplayed(WAIT));
    await content.click();
    await app.keys(["Control", "End"]);
    await app.keys("Checked by hand.");
    await app.$('[data-testid="file-editor"][data-changed="true"]').waitForExist(WAIT);
    await screenshot(app, "changes-06-editing");
    await byTestId(app, "edit-keep").click();
    await step(app, "edit-kept", () => waitState(app, "guide.md", "kept"));
    assert.equal(readFileSync(file, "utf8"), `${GUIDE_AFTER}Checked by hand.`);
    assert.match(await byTestId(app, "diff-view").getText(), /Checked by hand\./);
    await screenshot(app, "changes-07-edit-kept");
  } finally {
    await app.deleteSession();
    model.server.close();
  }
});

/** Scrolls the timeline until the row of `seq` is in the DOM, centred. */
async function scrollToRow(app, seq) {
  await app.waitUntil(
    () =>
      app.execute((s) => {
        const row = document.querySelector(`[data-testid="timeline-row"][data-seq="${s}"]`);
        if (row) {
          row.scrollIntoView({ block: "center" });
          return true;
        }
        const list = document.querySelector('[data-testid="timeline"]');
        if (list) list.scrollTop += 200;
        return false;
      }, seq),
    { ...WAIT, interval: 100, timeoutMsg: `row #${seq} never rendered` },
  );
}

test("changes: rewind to here from a conversation turn — the card of the call it put back is marked, Redo restores; the answer offers no rewind", async () => {
  const { app, workspace, model } = await loopbackRun("conv-rewind");
  const notes = join(workspace, "notes.txt");
  try {
    await step(app, "conv-rewind-actions", () => byTestId(app, "conv-rewind-to-here").waitForDisplayed(WAIT));
    const buttons = await app.$$('[data-testid="conv-rewind-to-here"]');
    assert.equal(buttons.length, 2, "the two turns that called tools offer it; the answer does not");
    assert.equal(await app.$('[data-testid="conv-model"][data-answer="true"] [data-testid="turn-actions"]').isExisting(), false);
    const turn = Number(await buttons[1].getAttribute("data-seq"));
    await buttons[1].click();
    await step(app, "conv-rewind-prompt", () => app.$(`[data-testid="rewind-prompt"][data-seq="${turn}"]`).waitForDisplayed(WAIT));
    await byTestId(app, "rewind-files").click();
    await step(app, "conv-rewind-done", () => byTestId(app, "rewind-notice").waitForDisplayed(WAIT));
    assert.ok(!existsSync(notes), "notes.txt did not exist at the turn: removed");
    assert.equal(readFileSync(join(workspace, "guide.md"), "utf8"), GUIDE_AFTER, "the earlier turn's write stays");
    const rewound = card(app, "call_2");
    await step(app, "conv-rewind-marked", () => app.waitUntil(async () => (await rewound.getAttribute("data-rewound")) === "true", { ...WAIT, timeoutMsg: "the rewound call's card was never marked" }));
    assert.equal(await card(app, "call_1").getAttribute("data-rewound"), null, "the earlier call is not marked");
    await screenshot(app, "changes-08a-conversation-rewound");
    await byTestId(app, "rewind-redo").click();
    await step(app, "conv-rewind-redone", () => byTestId(app, "rewind-notice").waitForExist({ ...WAIT, reverse: true }));
    assert.equal(readFileSync(notes, "utf8"), NOTES, "Redo put the run's notes back");
    await step(app, "conv-rewind-unmarked", () => app.waitUntil(async () => (await rewound.getAttribute("data-rewound")) === null, { ...WAIT, timeoutMsg: "the mark stayed after Redo" }));
  } finally {
    await app.deleteSession();
    model.server.close();
  }
});

test("changes: rewind to here (files and conversation) — refused naming the file changed since, rewound anyway, redone, then a fork from the turn", async () => {
  const { app, workspace, model } = await loopbackRun("rewind");
  const notes = join(workspace, "notes.txt");
  try {
    assert.equal(readFileSync(notes, "utf8"), NOTES);
    // The second model turn: before notes.txt was written.
    const turns = (await timelineRows(app)).filter((r) => r.type === "model_call_completed").map((r) => r.seq);
    assert.ok(turns.length >= 2, `model turns: ${turns}`);
    const turn = turns[1];
    // Someone edits notes.txt after the run: the rewind must name it.
    writeFileSync(notes, "My own notes.\n");
    await scrollToRow(app, turn);
    const turnRow = app.$(`[data-testid="timeline-row"][data-seq="${turn}"]`);
    await turnRow.moveTo();
    await turnRow.$('[data-testid="rewind-to-here"]').click();
    await step(app, "rewind-prompt", () => app.$(`[data-testid="rewind-prompt"][data-seq="${turn}"]`).waitForDisplayed(WAIT));
    await byTestId(app, "rewind-both").click();
    await step(app, "rewind-conflict", () => byTestId(app, "rewind-conflict").waitForDisplayed(WAIT));
    assert.equal(await byTestId(app, "rewind-conflict-path").getText(), "notes.txt");
    assert.equal(readFileSync(notes, "utf8"), "My own notes.\n", "refused: nothing touched");
    await screenshot(app, "changes-08-rewind-conflict");
    await byTestId(app, "rewind-anyway").click();
    await step(app, "rewind-done", () => byTestId(app, "rewind-notice").waitForDisplayed(WAIT));
    assert.ok(!existsSync(notes), "notes.txt did not exist at the turn: removed");
    assert.equal(readFileSync(join(workspace, "guide.md"), "utf8"), GUIDE_AFTER, "the earlier turn's write stays");
    // Both: the fork prompt is open at the turn.
    await step(app, "rewind-fork-prompt", () => app.$(`[data-testid="fork-prompt"][data-seq="${turn}"]`).waitForDisplayed(WAIT));
    const marked = await app.$$('[data-testid="timeline-row"][data-rewound="true"]');
    assert.ok(marked.length > 0, "the rewound effects are marked");
    await screenshot(app, "changes-09-rewound-fork");
    // The Changes panel shows notes.txt put back.
    await byTestId(app, "changes-tab").click();
    await step(app, "rewind-changes", () => waitState(app, "notes.txt", "reverted"));
    await byTestId(app, "timeline-tab").click();
    // Redo gives notes.txt back what the rewind replaced (the user's notes); the rewind's marks go.
    await byTestId(app, "rewind-redo").click();
    await step(app, "rewind-redone", () => byTestId(app, "rewind-notice").waitForExist({ ...WAIT, reverse: true }));
    assert.equal(readFileSync(notes, "utf8"), "My own notes.\n");
    assert.equal((await app.$$('[data-testid="timeline-row"][data-rewound="true"]')).length, 0);
    // The timeline opens at its top again; the fork prompt is still open at the turn.
    await scrollToRow(app, turn);
    await step(app, "rewind-fork-open", () => app.$(`[data-testid="fork-prompt"][data-seq="${turn}"]`).waitForDisplayed(WAIT));
    await byTestId(app, "fork-message").setValue("Only update the guide this time");
    const runView = byTestId(app, "run-view");
    const parentId = await runView.getAttribute("data-run-id");
    await byTestId(app, "fork-send").click();
    await step(app, "rewind-forked", () =>
      app.waitUntil(async () => (await byTestId(app, "run-view").getAttribute("data-run-id")) !== parentId, { ...WAIT, timeoutMsg: "the fork never opened" }),
    );
    await step(app, "rewind-fork-done", () => app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 30_000 }));
    await screenshot(app, "changes-10-fork");
  } finally {
    await app.deleteSession();
    model.server.close();
  }
});
