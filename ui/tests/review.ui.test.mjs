// Chromium flow tests of turn-grain review against the dev-only mock,
// which answers only from what the Rust app recorded
// (src-tauri/src/scenarios/review.rs): "Rewind to here" on a model turn —
// files only (refused naming the file changed since, then anyway, the
// rewound rows marked, Changes refreshed, Redo), both (then the fork
// prompt), conversation only (no rewind) — and edit before keep (cancel,
// keep, a conflict saved anyway), by keyboard where it matters; and the
// same Rewind / Fork on the conversation's model turns (cards of rewound
// calls marked, Redo), never on the final answer.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OPENAI, byId, shot, showEvents, startUi } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const RUN = "run-changes";
/** The model turn that wrote config/settings.toml (its model_call_completed). */
const TURN = 29;
const seed = {
  recent: [PROJECT],
  current: PROJECT,
  settings: { providers: [OPENAI] },
  stepMs: 20,
  streamMs: 10,
  recorded: { [PROJECT]: [{ runId: RUN, scenario: "changes" }] },
};

const row = (page, path) => page.locator(`[data-testid="artifact-row"][data-path="${path}"]`);
const timelineRow = (page, seq) => page.locator(`[data-testid="timeline-row"][data-seq="${seq}"]`);

async function openRun(page) {
  await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
  await showEvents(page);
}

/** Scrolls the windowed timeline until row `seq` is in the DOM, and centres it. */
async function scrollTo(page, seq) {
  await page.waitForFunction((s) => {
    const list = document.querySelector('[data-testid="timeline"]');
    const found = document.querySelector(`[data-testid="timeline-row"][data-seq="${s}"]`);
    if (found) {
      found.scrollIntoView({ block: "center" });
      return true;
    }
    if (list) list.scrollTop += 300;
    return false;
  }, seq);
}

async function openRewind(page, seq) {
  await scrollTo(page, seq);
  await timelineRow(page, seq).hover();
  await timelineRow(page, seq).getByTestId("rewind-to-here").click();
  await page.locator(`[data-testid="rewind-prompt"][data-seq="${seq}"]`).waitFor();
}

test("rewind to here, files only: refused naming the file, rewound anyway, rows marked, Changes refreshed, then Redo", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await openRun(page);
    // Only model turns offer it.
    assert.equal(await page.locator('[data-testid="rewind-to-here"]').evaluateAll((bs) => bs.every((b) => b.closest('[data-type="model_call_completed"]'))), true);
    await openRewind(page, TURN);
    // The first choice has focus; Escape closes and gives focus back to the row's action.
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "rewind-files");
    await page.keyboard.press("Escape");
    await byId(page, "rewind-prompt").waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "rewind-to-here");
    await page.keyboard.press("Enter");
    await byId(page, "rewind-files").click();
    await byId(page, "rewind-conflict").waitFor();
    assert.deepEqual(await byId(page, "rewind-conflict-path").allInnerTexts(), ["config/settings.toml"]);
    assert.equal(await page.locator('[data-type="rewind_started"]').count(), 0, "nothing was touched");
    await shot(page, "rewind-conflict-light");
    await byId(page, "rewind-anyway").click();
    await byId(page, "rewind-notice").waitFor();
    assert.match(await byId(page, "rewind-notice").innerText(), /Files rewound to #29 \(5 files/);
    assert.equal(await byId(page, "fork-prompt").count(), 0, "files only: no fork");
    // Effects after the turn that the rewind put back are marked; earlier ones are not.
    await scrollTo(page, TURN + 4);
    const marked = await page.locator('[data-testid="timeline-row"][data-rewound="true"]').evaluateAll((rs) => rs.map((r) => [Number(r.dataset.seq), r.dataset.type]));
    assert.ok(marked.length > 0 && marked.every(([seq]) => seq > TURN), JSON.stringify(marked));
    assert.ok(marked.some(([, type]) => type === "artifact_recorded"), JSON.stringify(marked));
    await shot(page, "rewind-marked-light");
    // The Changes panel shows what the files hold now.
    await byId(page, "changes-tab").click();
    await page.locator('[data-testid="artifact-row"][data-path="config/settings.toml"][data-state="reverted"]').waitFor();
    assert.equal(await row(page, "src/greeter.py").getAttribute("data-state"), "pending", "written before the turn: untouched");
    assert.equal(await row(page, "docs/guide.md").getAttribute("data-state"), "reverted");
    await byId(page, "timeline-tab").click();
    await byId(page, "rewind-redo").click();
    await byId(page, "rewind-notice").waitFor({ state: "detached" });
    assert.equal(await page.locator('[data-testid="timeline-row"][data-rewound="true"]').count(), 0);
    await byId(page, "changes-tab").click();
    await page.locator('[data-testid="artifact-row"][data-path="docs/guide.md"][data-state="pending"]').waitFor();
    const calls = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => /rewind/.test(c.cmd)).map((c) => [c.cmd, c.args.to ?? null, c.args.force]));
    assert.deepEqual(calls, [["rewind_run", TURN, false], ["rewind_run", TURN, true], ["redo_rewind", null, false]]);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("rewind to here, both: the files are rewound, then the fork prompt opens at the turn and forks", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await openRun(page);
    await openRewind(page, TURN);
    await byId(page, "rewind-both").click();
    await byId(page, "rewind-anyway").click();
    await byId(page, "rewind-notice").waitFor();
    await page.locator(`[data-testid="fork-prompt"][data-seq="${TURN}"]`).waitFor();
    await shot(page, "rewind-both-light");
    await byId(page, "fork-message").fill("Leave the settings alone this time");
    await byId(page, "fork-send").click();
    await page.waitForFunction((run) => document.querySelector('[data-testid="run-view"]')?.dataset.runId !== run, RUN);
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    assert.match(await byId(page, "final-answer").innerText(), /Forked from before the settings/);
    const fork = await page.evaluate(() => window.__bearagentMock.calls.find((c) => c.cmd === "reply_to_run")?.args);
    assert.equal(fork.atSeq, TURN);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("rewind to here, conversation only: the fork prompt opens and no file is touched", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await openRun(page);
    await openRewind(page, TURN);
    await byId(page, "rewind-conversation").click();
    await page.locator(`[data-testid="fork-prompt"][data-seq="${TURN}"]`).waitFor();
    assert.equal(await byId(page, "rewind-notice").count(), 0);
    assert.equal(await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "rewind_run").length), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** Types `text` at the end of the open editor. */
async function typeAtEnd(page, text) {
  await byId(page, "editor-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type(text);
}

test("edit before keep: cancel leaves all as it was; keep my edit saves it as kept; a conflict is saved anyway", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await openRun(page);
    await byId(page, "changes-tab").click();
    await page.locator('[data-testid="changes-panel"][data-loaded="true"]').waitFor();
    await row(page, "docs/plan.md").getByTestId("artifact-select").click();
    await byId(page, "diff-edit").click();
    await byId(page, "editor-content").waitFor();
    assert.match(await byId(page, "editor-content").innerText(), /3\. Test each language\./);
    // Cancel (Escape in the editor): the diff is back, nothing was sent.
    await typeAtEnd(page, "scratch");
    await page.keyboard.press("Escape");
    await byId(page, "file-editor").waitFor({ state: "detached" });
    await page.locator('[data-testid="diff-view"][data-state="loaded"]').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "diff-edit");
    assert.equal(await row(page, "docs/plan.md").getAttribute("data-state"), "pending");
    // Edit and keep (Ctrl+Enter).
    await page.keyboard.press("Enter");
    await byId(page, "editor-content").waitFor();
    await typeAtEnd(page, "4. Ship it.\n");
    await page.locator('[data-testid="file-editor"][data-changed="true"]').waitFor();
    await shot(page, "edit-before-keep-light");
    await page.keyboard.press("Control+Enter");
    await page.locator('[data-testid="artifact-row"][data-path="docs/plan.md"][data-state="kept"]').waitFor();
    await byId(page, "file-editor").waitFor({ state: "detached" });
    assert.match(await byId(page, "diff-view").innerText(), /4\. Ship it\./);
    // The file edited since: refused, then saved anyway.
    await row(page, "config/settings.toml").getByTestId("artifact-select").click();
    await byId(page, "diff-edit").click();
    await byId(page, "editor-content").waitFor();
    await typeAtEnd(page, "retries = 3\n");
    await byId(page, "edit-keep").click();
    await byId(page, "edit-conflict").waitFor();
    await shot(page, "edit-conflict-light");
    await byId(page, "edit-save-anyway").click();
    await page.locator('[data-testid="artifact-row"][data-path="config/settings.toml"][data-state="kept"]').waitFor();
    const edits = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "keep_edited").map((c) => [c.args.path, c.args.force]));
    assert.deepEqual(edits, [["docs/plan.md", false], ["config/settings.toml", false], ["config/settings.toml", true]]);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** Scrolls the windowed conversation until `selector` is in the DOM, and centres it. */
async function scrollConversationTo(page, selector) {
  await page.waitForFunction((sel) => {
    const list = document.querySelector('[data-testid="conversation"] [data-testid="virtual-list"]') ?? document.querySelector('[data-testid="conversation"]');
    const found = document.querySelector(sel);
    if (found) {
      found.scrollIntoView({ block: "center" });
      return true;
    }
    const scroller = [list, ...(list?.querySelectorAll("*") ?? [])].find((el) => el && el.scrollHeight > el.clientHeight + 4);
    if (scroller) scroller.scrollTop += 300;
    return false;
  }, selector);
}

test("conversation: Rewind to here on a model turn rewinds, marks the cards of the calls it put back, and Redo clears them; the answer offers neither", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    await byId(page, "conversation").waitFor();
    // The answer turn has no Rewind or Fork: they would do nothing a reply does not.
    const answer = page.locator('[data-testid="conv-model"][data-answer="true"]');
    await scrollConversationTo(page, '[data-testid="conv-model"][data-answer="true"]');
    assert.equal(await answer.getByTestId("turn-actions").count(), 0);
    const action = `[data-testid="conv-rewind-to-here"][data-seq="${TURN}"]`;
    await scrollConversationTo(page, action);
    assert.equal(await page.locator(`[data-testid="conv-fork-from-here"][data-seq="${TURN}"]`).count(), 1, "Fork from here sits beside it");
    await page.locator(action).click();
    await page.locator(`[data-testid="rewind-prompt"][data-seq="${TURN}"]`).waitFor();
    await byId(page, "rewind-files").click();
    await byId(page, "rewind-anyway").click();
    await byId(page, "rewind-notice").waitFor();
    await scrollConversationTo(page, '[data-testid="tool-card"][data-rewound="true"]');
    const marked = await page.locator('[data-testid="tool-card"][data-rewound="true"]').evaluateAll((cs) => cs.map((c) => c.dataset.callId));
    assert.ok(marked.length > 0, "the cards of rewound calls are marked");
    assert.match(await page.locator('[data-testid="tool-card"][data-rewound="true"]').first().getByTestId("card-rewound").innerText(), /rewound/);
    await shot(page, "conversation-rewound-light");
    await byId(page, "rewind-redo").click();
    await byId(page, "rewind-notice").waitFor({ state: "detached" });
    assert.equal(await page.locator('[data-testid="tool-card"][data-rewound="true"]').count(), 0);
    const calls = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => /rewind/.test(c.cmd)).map((c) => [c.cmd, c.args.to ?? null, c.args.force]));
    assert.deepEqual(calls, [["rewind_run", TURN, false], ["rewind_run", TURN, true], ["redo_rewind", null, false]]);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
