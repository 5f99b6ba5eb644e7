// Chromium flow tests of threads against the dev-only mock backend:
// replying to a finished run (the follow-up opens with the thread above
// its timeline), forking from a timeline row by keyboard, no reply while a
// run is in progress, errors titled by code, follow-ups marked in the run
// list, and the AGENTS.md a run loaded named under its header.
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
const seed = (extra = {}) => ({
  recent: [PROJECT],
  current: PROJECT,
  settings: { providers: [OPENAI] },
  // The project has an AGENTS.md: its runs load it.
  files: [`${PROJECT}/AGENTS.md`],
  stepMs: 20,
  streamMs: 10,
  ...extra,
});

const runIdOf = (page) => byId(page, "run-view").getAttribute("data-run-id");

async function startRun(page, goal, mode = "allow_all") {
  await byId(page, "run-goal").fill(goal);
  await byId(page, "run-approval").selectOption(mode);
  await byId(page, "start-run").click();
  await byId(page, "run-view").waitFor();
  await showEvents(page);
}

/** Waits for the open run (or the one given) to succeed. */
async function succeeded(page, runId = null) {
  const sel = runId ? `[data-testid="run-view"][data-run-id="${runId}"]` : '[data-testid="run-view"]';
  await page.locator(`${sel} [data-testid="run-outcome"][data-status="succeeded"]`).waitFor();
}

test("reply to a finished run: the follow-up opens with the earlier run collapsed above, expandable and openable; the list marks it", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    await startRun(page, "Compare the architecture notes and write outputs/report.md");
    const first = await runIdOf(page);
    await succeeded(page);
    // The AGENTS.md it loaded is named under the header and has its row.
    assert.equal((await byId(page, "run-instructions").innerText()).trim(), "Instructions: AGENTS.md, 2.1 KB");
    await page.evaluate(() => (document.querySelector('[data-testid="timeline"]').scrollTop = 0));
    assert.match(await page.locator('[data-testid="timeline-row"][data-type="instructions_loaded"]').innerText(), /Instructions: AGENTS\.md, 2\.1 KB/);
    // A run that continues nothing has no thread.
    assert.equal(await byId(page, "thread").count(), 0);

    const message = byId(page, "reply-message");
    const send = byId(page, "reply-send");
    assert.equal(await send.isDisabled(), true, "nothing to send yet");
    await message.fill("Now add a summary section at the top");
    assert.equal(await send.isDisabled(), false);
    await shot(page, "thread-reply-box");
    await message.press("Control+Enter");

    // The follow-up opens: a new run, its thread above the timeline.
    await page.waitForFunction((id) => {
      const view = document.querySelector('[data-testid="run-view"]');
      return view && view.dataset.runId !== id;
    }, first);
    const second = await runIdOf(page);
    assert.equal(new URL(page.url()).hash, `#/run/${second}`);
    const entry = page.locator(`[data-testid="thread-entry"][data-run-id="${first}"]`);
    await entry.waitFor();
    assert.equal(await byId(page, "thread-entry").count(), 1);
    assert.equal(await entry.getAttribute("data-expanded"), "false");
    assert.equal(await entry.getAttribute("data-status"), "succeeded");
    assert.match(await entry.innerText(), /Compare the architecture notes/);
    assert.match(await entry.getByTestId("thread-entry-preview").innerText(), /outputs\/report\.md compares the notes/);
    const current = byId(page, "thread-current");
    assert.equal(await current.getAttribute("data-run-id"), second);
    assert.match(await current.innerText(), /This run\s+follow-up/);
    await succeeded(page, second);
    assert.match(await byId(page, "final-answer").innerText(), /Follow-up: I re-read outputs\/report\.md with the earlier conversation in view/);
    assert.match(await page.locator('[data-testid="run-view"] h2.goal').innerText(), /Now add a summary section/);
    await shot(page, "thread-follow-up");

    // Expanding shows the whole answer; the earlier run opens from there.
    await entry.getByTestId("thread-entry-toggle").click();
    await page.locator(`[data-testid="thread-entry"][data-run-id="${first}"][data-expanded="true"]`).waitFor();
    assert.match(await entry.getByTestId("thread-entry-answer").innerText(), /event-sourced core with thin shells is the right split/);
    assert.equal(await entry.getByTestId("thread-entry-toggle").getAttribute("aria-expanded"), "true");
    await entry.getByTestId("thread-entry-open").click();
    await page.locator(`[data-testid="run-view"][data-run-id="${first}"]`).waitFor();

    // The run list marks the follow-up (naming what it continues), not the first run.
    await byId(page, "back-to-runs").click();
    await page.locator(`[data-testid="run-row"][data-run-id="${second}"]`).waitFor();
    const marker = page.locator(`[data-testid="run-row"][data-run-id="${second}"] [data-testid="run-thread-marker"]`);
    assert.equal(await marker.getAttribute("data-parent-run-id"), first);
    assert.match(await marker.innerText(), /follow-up/);
    assert.match(await marker.getAttribute("title"), /Continues the run “Compare the architecture notes/);
    assert.equal(await page.locator(`[data-testid="run-row"][data-run-id="${first}"] [data-testid="run-thread-marker"]`).count(), 0);
    // Filtering by goal still finds it.
    await byId(page, "run-filter-text").fill("summary section");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="run-row"]').length === 1);
    assert.equal(await byId(page, "run-thread-marker").count(), 1);
    await shot(page, "thread-run-list");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("fork from a timeline row by keyboard: an inline prompt, Escape closes it, Ctrl+Enter forks; the fork shows “forked at #N”", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    await startRun(page, "Write the report");
    const parent = await runIdOf(page);
    await succeeded(page);
    await page.evaluate(() => (document.querySelector('[data-testid="timeline"]').scrollTop = 0));
    // #3 is the AGENTS.md row: the run's context from there on is only its goal and instructions.
    const row = page.locator('[data-testid="timeline-row"][data-seq="3"]');
    await row.waitFor();
    const action = row.locator('[data-testid="fork-from-here"][data-seq="3"]');
    assert.equal(await action.evaluate((el) => getComputedStyle(el).opacity), "0", "hidden until hover or focus");

    // Keyboard: Tab from the row before reaches this row's action.
    await page.locator('[data-testid="fork-from-here"][data-seq="2"]').focus();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.seq), "3");
    assert.equal(await action.evaluate((el) => getComputedStyle(el).opacity), "1", "shown while focused");
    assert.match(await action.getAttribute("aria-label"), /Fork from here \(#3\)/);
    await page.keyboard.press("Enter");
    const prompt = page.locator('[data-testid="fork-prompt"][data-seq="3"]');
    await prompt.waitFor();
    await page.waitForFunction(() => document.activeElement?.dataset.testid === "fork-message");
    assert.equal(await byId(page, "fork-send").isDisabled(), true);
    await page.keyboard.type("never mind");
    await page.keyboard.press("Escape");
    await prompt.waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "fork-from-here", "focus back on the action");

    await page.keyboard.press("Enter");
    await prompt.waitFor();
    assert.equal(await byId(page, "fork-message").inputValue(), "", "a fresh draft");
    await page.keyboard.type("Read the README instead and summarise it");
    await shot(page, "thread-fork-prompt");
    await page.keyboard.press("Control+Enter");

    await page.waitForFunction((id) => document.querySelector('[data-testid="run-view"]')?.dataset.runId !== id, parent);
    const fork = await runIdOf(page);
    const current = byId(page, "thread-current");
    await current.waitFor();
    assert.equal(await current.getAttribute("data-forked-at"), "3");
    assert.equal(await current.getAttribute("data-run-id"), fork);
    assert.match(await current.getByTestId("thread-relation").innerText(), /forked at #3/);
    await page.locator(`[data-testid="thread-entry"][data-run-id="${parent}"]`).waitFor();
    await succeeded(page, fork);
    const call = await page.evaluate((id) => window.__bearagentMock.calls.find((c) => c.cmd === "reply_to_run" && c.args.runId === id).args, parent);
    assert.deepEqual(call, { runId: parent, message: "Read the README instead and summarise it", atSeq: 3, images: [] });
    await shot(page, "thread-fork");

    // A fork of the fork: the thread lists both earlier runs, the middle one "forked at #3".
    await showEvents(page);
    await page.evaluate(() => (document.querySelector('[data-testid="timeline"]').scrollTop = 0));
    await page.locator('[data-testid="timeline-row"][data-seq="6"]').hover();
    await page.locator('[data-testid="fork-from-here"][data-seq="6"]').click();
    await byId(page, "fork-message").fill("Stop after reading");
    await byId(page, "fork-send").click();
    await page.waitForFunction((id) => document.querySelector('[data-testid="run-view"]')?.dataset.runId !== id, fork);
    await page.locator('[data-testid="thread"][data-count="2"]').waitFor();
    const middle = page.locator(`[data-testid="thread-entry"][data-run-id="${fork}"]`);
    assert.equal(await middle.getAttribute("data-forked-at"), "3");
    assert.match(await middle.getByTestId("thread-relation").innerText(), /forked at #3/);
    assert.equal(await byId(page, "thread-current").getAttribute("data-forked-at"), "6");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("no reply or fork while a run is in progress; an interrupted run offers them; a refused reply is titled by its code", async () => {
  const { page, problems, close } = await ui.openApp(seed({ files: [], gateModelCalls: true }));
  try {
    await startRun(page, "Write the report");
    await page.locator('[data-testid="timeline-row"][data-type="model_call_started"]').waitFor();
    assert.equal(await byId(page, "reply-box").count(), 0);
    assert.equal(await byId(page, "fork-from-here").count(), 0);
    assert.equal(await byId(page, "run-instructions").count(), 0, "no AGENTS.md in this project");
    for (let i = 0; i < 4; i++) await page.evaluate(() => window.__bearagentMock.releaseModelCall());
    await succeeded(page);
    await byId(page, "reply-box").waitFor();
    assert.ok((await byId(page, "fork-from-here").count()) > 0);

    // The workspace folder is gone: the backend refuses with not_found; the draft stays.
    await page.evaluate((path) => window.__bearagentMock.removeFolder(path), PROJECT);
    await byId(page, "reply-message").fill("Add a conclusion");
    await byId(page, "reply-send").click();
    const error = byId(page, "reply-error").getByTestId("error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "not_found");
    assert.match(await error.innerText(), /The run's workspace folder or provider is gone[\s\S]*path not found/);
    assert.equal(await byId(page, "reply-message").inputValue(), "Add a conclusion");
    await shot(page, "thread-reply-error");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }

  const demo = await ui.openApp({ stepMs: 20, streamMs: 10 });
  try {
    await byId(demo.page, "try-demo").click();
    await demo.page.locator('[data-testid="approval-row"][data-state="pending"]').waitFor();
    assert.equal(await byId(demo.page, "reply-box").count(), 0, "waiting for approval is in progress");
    const runId = await runIdOf(demo.page);
    await demo.page.evaluate((id) => window.__bearagentMock.interrupt(id), runId);
    await demo.page.locator('[data-testid="run-outcome"][data-status="interrupted"]').waitFor();
    await byId(demo.page, "reply-box").waitFor();
    // The demo's follow-up re-reads docs/plan.md, which the interrupted run never wrote.
    await byId(demo.page, "reply-message").fill("What would the plan say?");
    await byId(demo.page, "reply-send").click();
    await demo.page.waitForFunction((id) => document.querySelector('[data-testid="run-view"]')?.dataset.runId !== id, runId);
    await byId(demo.page, "demo-badge").waitFor();
    await demo.page.locator('[data-testid="thread-entry"][data-status="interrupted"]').waitFor();
    await succeeded(demo.page);
    assert.match(await byId(demo.page, "final-answer").innerText(), /Demo follow-up: docs\/plan\.md is not there/);
    assert.deepEqual(demo.problems, []);
  } finally {
    await demo.close();
  }
});

test("seeded threads: follow-ups are marked in the list and open with their thread", async () => {
  const run = (runId, goal, createdAt, parentRunId = null) => ({
    runId, status: "succeeded", goal, createdAt, updatedAt: createdAt.replace(/:00Z$/, ":42Z"), statusDetail: null, modelCalls: 3, toolCalls: 2, inputTokens: 12_400, outputTokens: 1_030, parentRunId,
  });
  // Newest first, as the list shows them: children before their parents in the seed.
  const { page, problems, close } = await ui.openApp(seed({
    runs: {
      [PROJECT]: [
        run("r-3", "And a changelog entry", "2025-03-14T10:05:00Z", "r-2"),
        run("r-2", "Now the tests", "2025-03-14T09:58:00Z", "r-1"),
        run("r-1", "Summarise open TODOs across src/ into TODO.md", "2025-03-13T16:20:00Z"),
      ],
    },
  }));
  try {
    await byId(page, "run-row").first().waitFor();
    const markers = await byId(page, "run-thread-marker").evaluateAll((els) => els.map((e) => e.dataset.parentRunId));
    assert.deepEqual(markers, ["r-2", "r-1"]);
    await page.locator('[data-testid="run-row"][data-run-id="r-3"] [data-testid="run-link"]').click();
    await page.locator('[data-testid="thread"][data-count="2"]').waitFor();
    const entries = await byId(page, "thread-entry").evaluateAll((els) => els.map((e) => e.dataset.runId));
    assert.deepEqual(entries, ["r-1", "r-2"]);
    assert.match(await page.locator('[data-testid="thread-entry"][data-run-id="r-2"] [data-testid="thread-relation"]').innerText(), /follow-up/);
    assert.equal(await page.locator('[data-testid="thread-entry"][data-run-id="r-1"] [data-testid="thread-relation"]').count(), 0, "the first run continues nothing");
    await shot(page, "thread-seeded");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
