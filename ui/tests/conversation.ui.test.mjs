// Chromium flows of the conversation view (a run's default view) against the
// dev-only mock and the runs the Rust app recorded (scenarios conversation,
// commands, twenty): the three-step run reads as the goal, the model's text
// and one card per tool call; the failed command's card is red with its exit
// code and output; an edit's and a write's card show their diff; approvals
// answered (and denied) inside their cards while a command's output streams
// into its card; a card's deep link to its events; scroll positions kept
// across views; the keyboard; and the density of the recorded 20-step run
// against its event timeline.
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
const RUN = "0190a000-0000-7000-8000-0000000c0001";
const recorded = (scenario, take = 0) => ({ recent: [PROJECT], current: PROJECT, recorded: { [PROJECT]: [{ runId: RUN, scenario, take }] } });
const cards = (page) => page.locator('[data-testid="tool-card"]');
const cardOf = (page, callId) => page.locator(`[data-testid="tool-card"][data-call-id="${callId}"]`);
const liveSeed = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] }, stepMs: 20, streamMs: 10, gateModelCalls: true, gateCommands: true };
const summaries = (page) => page.locator('[data-testid="card-summary"]').allInnerTexts();

test("the recorded three-step run reads as 1 goal, the model's text and 3 cards: the failure red with its output, the edit's diff", async () => {
  const { page, problems, close } = await ui.openApp(recorded("conversation"), { hash: `#/run/${RUN}` });
  try {
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    assert.equal(await byId(page, "conversation-tab").getAttribute("aria-selected"), "true", "the conversation is the default view");
    await page.locator('[data-testid="conversation"][data-loaded="true"]').waitFor();
    assert.equal(await byId(page, "conv-user").count(), 1);
    assert.match(await byId(page, "conv-user").innerText(), /Fix the failing test in calc\.py/);
    assert.deepEqual(await page.locator('[data-testid="model-text"]').allInnerTexts(), [
      "Running the tests first.",
      "add() subtracts. Fixing that one line.",
      "Running them again.",
      "Fixed: add() subtracted instead of adding. Both checks pass now.",
    ]);
    assert.equal(await cards(page).count(), 3);
    assert.deepEqual(await summaries(page), ["Ran python3 -B test_calc.py", "Edited calc.py +1 −1", "Ran python3 -B test_calc.py"]);

    // The failed run of the tests: red, exit 1, its output open.
    const failed = cardOf(page, "call_1");
    assert.equal(await failed.getAttribute("data-status"), "failed");
    assert.equal(await failed.getByTestId("card-status").innerText(), "exit 1");
    assert.equal(await failed.evaluate((el) => getComputedStyle(el).borderLeftColor), await cssColor(page, "--danger-fg"));
    await failed.locator('[data-testid="terminal"]', { hasText: "FAIL: add(2, 3) returned -1, expected 5" }).waitFor();
    assert.equal(await cardOf(page, "call_3").getAttribute("data-status"), "ok");
    assert.equal(await cardOf(page, "call_3").getAttribute("data-open"), "false", "a passing command stays closed");

    // The edit's card opens on its diff.
    const edit = cardOf(page, "call_2");
    await edit.getByTestId("card-toggle").click();
    await edit.getByTestId("card-diff").waitFor();
    assert.deepEqual(await diffLines(edit), ["removed:    return a - b", "added:    return a + b"]);
    await shot(page, "conversation-three-steps");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** The review commands the mock was asked for, as "cmd path force". */
const reviewCalls = (page) =>
  page.evaluate(() =>
    window.__bearagentMock.calls.filter((c) => /^(keep|revert|reapply)_artifact$/.test(c.cmd)).map((c) => `${c.cmd} ${c.args.path}${c.args.force ? " force" : ""}`),
  );
const notes = (page) => page.locator('[data-testid="conv-note"]').allInnerTexts();

test("the edit's card reviews its file like Changes: revert, re-apply, a conflict reverted anyway, keep", async () => {
  const { page, problems, close } = await ui.openApp(recorded("conversation"), { hash: `#/run/${RUN}` });
  try {
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    const edit = cardOf(page, "call_2");
    const review = edit.getByTestId("card-review");
    await edit.locator('[data-testid="card-review"][data-state="pending"]').waitFor();
    assert.equal(await review.getByTestId("artifact-state").count(), 0, "nothing decided yet: no state badge");
    assert.equal(await cardOf(page, "call_1").getByTestId("card-review").count(), 0, "a command's card reviews nothing");

    // Revert from the card: the card and the Changes tab both say reverted.
    await review.getByTestId("artifact-revert").click();
    await edit.locator('[data-testid="card-review"][data-state="reverted"]').waitFor();
    assert.match(await review.getByTestId("artifact-state").textContent(), /^reverted$/);
    assert.equal(await review.getByTestId("artifact-revert").count(), 0);
    assert.equal(await review.getByTestId("artifact-keep").count(), 0);
    await shot(page, "conversation-card-reverted");
    await byId(page, "changes-tab").click();
    await page.locator('[data-testid="artifact-row"][data-path="calc.py"][data-state="reverted"]').waitFor();
    await byId(page, "conversation-tab").click();

    // Re-apply brings the run's version back.
    await edit.getByTestId("artifact-reapply").click();
    await edit.locator('[data-testid="card-review"][data-state="pending"]').waitFor();

    // Edited since: the card refuses like Changes and offers "Revert anyway".
    await page.evaluate((id) => window.__bearagentMock.editFile(id, "calc.py"), RUN);
    await edit.getByTestId("artifact-revert").click();
    const conflict = edit.getByTestId("artifact-conflict");
    await conflict.waitFor();
    assert.match(await conflict.innerText(), /calc\.py changed since the run wrote it/);
    await shot(page, "conversation-card-conflict");
    await conflict.getByTestId("artifact-revert-anyway").click();
    await edit.locator('[data-testid="card-review"][data-state="reverted"]').waitFor();
    assert.equal(await edit.getByTestId("artifact-conflict").count(), 0);
    await edit.getByTestId("artifact-reapply").click();

    // Keep.
    await edit.locator('[data-testid="card-review"][data-state="pending"]').waitFor();
    await edit.getByTestId("artifact-keep").click();
    await edit.locator('[data-testid="card-review"][data-state="kept"]').waitFor();
    assert.equal(await edit.getByTestId("artifact-keep").innerText(), "Kept");
    assert.equal(await edit.getByTestId("artifact-keep").isDisabled(), true);
    await byId(page, "changes-tab").click();
    await page.locator('[data-testid="artifact-row"][data-path="calc.py"][data-state="kept"]').waitFor();
    await byId(page, "conversation-tab").click();

    // What the backend was asked, and the events it recorded (the conversation's notes).
    assert.deepEqual(await reviewCalls(page), [
      "revert_artifact calc.py",
      "reapply_artifact calc.py",
      "revert_artifact calc.py",
      "revert_artifact calc.py force",
      "reapply_artifact calc.py",
      "keep_artifact calc.py",
    ]);
    await page.locator('[data-testid="conv-note"]', { hasText: "File kept calc.py" }).waitFor();
    assert.deepEqual((await notes(page)).filter((n) => n.endsWith("calc.py")), [
      "File reverted calc.py",
      "File re-applied calc.py",
      "File reverted (forced) calc.py",
      "File re-applied calc.py",
      "File kept calc.py",
    ]);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a file other calls changed too: the card links to Changes with the file selected", async () => {
  const { page, problems, close } = await ui.openApp(recorded("conversation"), { hash: `#/run/${RUN}` });
  try {
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    await cardOf(page, "call_2").locator('[data-testid="card-review"][data-state="pending"]').waitFor();
    // The second test run rewrote calc.py too (as a formatter would).
    await page.evaluate((id) => window.__bearagentMock.appendEvent(id, { type: "artifact_recorded", call_id: "call_3", path: "calc.py", before_hash: null, after_hash: null }), RUN);
    const link = cardOf(page, "call_2").getByTestId("card-review-changes");
    await link.waitFor();
    assert.equal(await cardOf(page, "call_2").getByTestId("card-review").count(), 0, "no per-file buttons on one of several calls");
    await link.click();
    assert.equal(await byId(page, "changes-tab").getAttribute("aria-selected"), "true");
    await page.locator('[data-testid="artifact-row"][data-path="calc.py"][data-selected="true"]').waitFor();
    assert.deepEqual(await reviewCalls(page), []);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** The changed lines of a card's diff, as "kind:text". */
const diffLines = (card) => card.locator('[data-testid="diff-line"]:not([data-kind="context"])').evaluateAll((rows) => rows.map((r) => `${r.dataset.kind}:${r.querySelector(".code")?.textContent ?? ""}`));
const cssColor = (page, name) => page.evaluate((n) => getComputedStyle(document.documentElement).getPropertyValue(n).trim(), name).then(hexToRgb);

test("a write over an existing file: its card shows the run's diff of the file from Changes", async () => {
  const { page, problems, close } = await ui.openApp(recorded("commands"), { hash: `#/run/${RUN}` });
  try {
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    assert.equal(await byId(page, "conversation-tab").getAttribute("aria-selected"), "true", "the conversation is the default view");
    await page.locator('[data-testid="conversation"][data-loaded="true"]').waitFor();
    assert.equal(await byId(page, "conv-user").count(), 1);
    assert.match(await byId(page, "conv-user").innerText(), /Fix the failing tests in the greeter/);
    // The write's diff, read from Changes for its inline view, gives its summary the counts.
    await cardOf(page, "call_2").locator('[data-testid="card-summary"]', { hasText: "+1 −0" }).waitFor();
    assert.deepEqual(await summaries(page), ["Ran make test", "Wrote src/lib.rs +1 −0", "Ran make test"]);
    assert.match(await page.locator('[data-testid="model-text"]').first().innerText(), /Let me run the tests/);
    assert.equal(await page.locator('[data-testid="conv-notice"][data-outcome="true"]').getAttribute("data-tone"), "success");

    assert.equal(await cardOf(page, "call_1").getByTestId("card-status").innerText(), "exit 2");
    // The write's card opens on its diff (read from Changes: this call is the file's only change).
    const write = cardOf(page, "call_2");
    await write.getByTestId("card-toggle").click();
    await write.getByTestId("card-diff").waitFor();
    const lines = await write.locator('[data-testid="diff-line"]').evaluateAll((rows) => rows.map((r) => `${r.dataset.kind}:${r.querySelector(".code")?.textContent ?? ""}`));
    assert.ok(lines.some((l) => l.startsWith("added:") && l.includes('"fr" => format!("Bonjour, {name} !")')), JSON.stringify(lines));
    assert.equal(lines.filter((l) => !l.startsWith("context:")).length, 1, "one line added, none removed");
    assert.equal(await write.getByTestId("card-summary").innerText(), "Wrote src/lib.rs +1 −0");
    await shot(page, "conversation-write-diff");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

function hexToRgb(hex) {
  const n = Number.parseInt(hex.replace("#", ""), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

test("an approval answered inside its card; the command's output streams into the card while it runs", async () => {
  const seed = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] }, stepMs: 20, streamMs: 10, gateModelCalls: true, gateCommands: true };
  const { page, problems, close } = await ui.openApp(seed);
  try {
    await byId(page, "run-goal").fill("Fix the failing tests in the greeter");
    await byId(page, "start-run").click();
    await byId(page, "run-view").waitFor();
    await page.evaluate(() => window.__bearagentMock.releaseModelCall());

    const card = cardOf(page, "call_1");
    await card.locator('[data-status="asking"]').first().waitFor();
    assert.equal(await card.getAttribute("data-status"), "asking");
    assert.equal(await card.getByTestId("card-summary").innerText(), "Run make test");
    const approval = card.locator('[data-testid="approval-row"][data-state="pending"]');
    assert.equal(await approval.getByTestId("approval-command-line").innerText(), "make test");
    await approval.getByTestId("approve-network").waitFor();
    await shot(page, "conversation-asking");
    // Every choice of the approval is in the card: here "always allow commands starting with".
    assert.equal(await approval.getByTestId("allow-prefix").inputValue(), "make test");
    await approval.getByTestId("approve-prefix").click();

    // Running: the badge counts, the terminal in the card fills before the command ends.
    await card.locator('[data-testid="card-status"][data-status="running"]').waitFor();
    await card.locator('[data-testid="terminal"][data-state="running"]', { hasText: "FAILED" }).waitFor();
    assert.equal(await card.getByTestId("approval-row").count(), 0, "the controls go once answered");
    await shot(page, "conversation-running");
    await page.evaluate(() => window.__bearagentMock.releaseCommand());
    await card.locator('[data-testid="card-status"][data-status="failed"]').waitFor();
    assert.equal(await card.getByTestId("card-status").innerText(), "exit 2");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** Starts "Fix the failing test in calc.py" (the recorded conversation scenario) and waits for its first card to ask. */
async function startCalcRun(page) {
  await byId(page, "run-goal").fill("Fix the failing test in calc.py");
  await byId(page, "run-approval").selectOption("ask_writes");
  await byId(page, "start-run").click();
  await cardOf(page, "call_1").locator('[data-testid="card-status"][data-status="asking"]').waitFor();
}

test("the edit's diff is in its waiting card and the edit is approved there; the run ends green", async () => {
  const { page, problems, close } = await ui.openApp({ ...liveSeed, gateModelCalls: false });
  try {
    await page.setViewportSize({ width: 1400, height: 1000 });
    await startCalcRun(page);
    await cardOf(page, "call_1").getByTestId("approve").click();
    await cardOf(page, "call_1").locator('[data-testid="terminal"]', { hasText: "FAIL: add(2, 3) returned -1" }).waitFor();
    assert.equal(await cardOf(page, "call_1").getAttribute("data-status"), "running", "the output shows while the command runs");
    await page.evaluate(() => window.__bearagentMock.releaseCommand());

    const edit = cardOf(page, "call_2");
    await edit.locator('[data-testid="card-status"][data-status="asking"]').waitFor();
    assert.equal(await edit.getByTestId("card-summary").innerText(), "Edit calc.py +1 −1");
    assert.deepEqual(await diffLines(edit), ["removed:    return a - b", "added:    return a + b"]);
    // Inline without a click (the card stays closed): the backend's diff against the file as it is now, its context lines too.
    assert.equal(await edit.getAttribute("data-open"), "false");
    assert.match(await edit.getByTestId("card-inline-diff").innerText(), /def add\(a, b\):/);
    await shot(page, "conversation-edit-asking");
    await edit.locator('[data-testid="approval-row"][data-state="pending"]').getByTestId("approve").click();
    await edit.locator('[data-testid="card-status"][data-status="ok"]').waitFor();
    assert.equal(await edit.getByTestId("card-summary").innerText(), "Edited calc.py +1 −1");

    await cardOf(page, "call_3").locator('[data-testid="card-status"][data-status="asking"]').waitFor();
    await cardOf(page, "call_3").getByTestId("approve").click();
    await page.evaluate(() => window.__bearagentMock.releaseCommand());
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    assert.equal(await cardOf(page, "call_3").getByTestId("card-status").innerText(), "ok");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the edit denied from its card with a reason: the card says so, the model is told", async () => {
  const { page, problems, close } = await ui.openApp({ ...liveSeed, gateModelCalls: false });
  try {
    await startCalcRun(page);
    await cardOf(page, "call_1").getByTestId("approve").click();
    await page.evaluate(() => window.__bearagentMock.releaseCommand());
    const edit = cardOf(page, "call_2");
    await edit.locator('[data-testid="card-status"][data-status="asking"]').waitFor();
    await edit.getByTestId("deny-reason").fill("keep subtracting for now");
    await edit.getByTestId("deny").click();
    await edit.locator('[data-testid="card-status"][data-status="denied"]').waitFor();
    assert.equal(await edit.getByTestId("card-reason").innerText(), "Denied by user: “keep subtracting for now”");
    await page.locator('[data-testid="run-view"][data-status]:not([data-status="running"]):not([data-status="awaiting_approval"])').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a card links to its events; each view keeps its scroll position", async () => {
  const { page, problems, close } = await ui.openApp(recorded("twenty"), { hash: `#/run/${RUN}` });
  try {
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.locator('[data-testid="conversation"][data-loaded="true"]').waitFor();
    const scroller = (testid) => page.getByTestId(testid);
    const firstVisible = (selector) =>
      page.evaluate((sel) => {
        const rows = [...document.querySelectorAll(sel)];
        const top = document.querySelector('[role="region"]').getBoundingClientRect().top;
        return rows.find((r) => r.getBoundingClientRect().bottom > top + 1)?.dataset.callId ?? rows.find((r) => r.getBoundingClientRect().bottom > top + 1)?.dataset.seq;
      }, selector);

    // Deep link: the card's events, centred and marked.
    const edit = cardOf(page, "call_4");
    const range = await edit.getByTestId("card-events").innerText();
    const [from, to] = range.match(/\d+/g).map(Number);
    await edit.getByTestId("card-events").click();
    assert.equal(await byId(page, "timeline-tab").getAttribute("aria-selected"), "true");
    await page.locator(`[data-testid="timeline-row"][data-seq="${from}"][data-highlighted="true"]`).waitFor();
    const marked = await page.locator('[data-testid="timeline-row"][data-highlighted="true"]').evaluateAll((rows) => rows.map((r) => Number(r.dataset.seq)));
    assert.deepEqual(marked, Array.from({ length: to - from + 1 }, (_, i) => from + i));
    assert.ok(await page.locator(`[data-testid="timeline-row"][data-seq="${to}"]`).isVisible(), "the card's last event is in view");
    await shot(page, "conversation-deep-link");

    // Scroll each view somewhere in the middle, switch away and back.
    await byId(page, "conversation-tab").click();
    await scroller("conversation-list").evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await page.waitForTimeout(200);
    const convTop = await firstVisible('[data-testid="tool-card"]');
    const convScroll = await scroller("conversation-list").evaluate((el) => el.scrollTop);
    await showEvents(page);
    await scroller("timeline").evaluate((el) => (el.scrollTop = el.scrollHeight * 0.6));
    await page.waitForTimeout(200);
    const eventsTop = await firstVisible('[data-testid="timeline-row"]');
    await byId(page, "conversation-tab").click();
    await page.waitForTimeout(300);
    assert.equal(await firstVisible('[data-testid="tool-card"]'), convTop, "the conversation is where it was");
    assert.ok(Math.abs((await scroller("conversation-list").evaluate((el) => el.scrollTop)) - convScroll) < 60);
    await showEvents(page);
    await page.waitForTimeout(300);
    assert.equal(await firstVisible('[data-testid="timeline-row"]'), eventsTop, "the events are where they were");
    // V switches views from the keyboard.
    await page.keyboard.press("v");
    assert.equal(await byId(page, "conversation-tab").getAttribute("aria-selected"), "true");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

const focusedCall = (page) => page.evaluate(() => document.activeElement?.closest("[data-card-index]")?.getAttribute("data-call-id") ?? null);
const decisions = (page) => page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "decide_approval").map((c) => c.args.decision));

test("keyboard: n finds the card that waits, a approves it, Enter / o open and close, j / k move between cards", async () => {
  const { page, problems, close } = await ui.openApp(liveSeed);
  try {
    await byId(page, "run-goal").fill("Fix the failing tests in the greeter");
    await byId(page, "start-run").click();
    await byId(page, "run-view").waitFor();
    await page.evaluate(() => window.__bearagentMock.releaseModelCall());
    const first = cardOf(page, "call_1");
    await first.locator('[data-testid="card-status"][data-status="asking"]').waitFor();
    // The recording this run plays approves its first command with the network.
    await first.getByTestId("approve-network").click();
    await first.locator('[data-testid="card-status"][data-status="running"]').waitFor();
    await page.evaluate(() => window.__bearagentMock.releaseCommand());
    await first.locator('[data-testid="card-status"][data-status="failed"]').waitFor();

    await page.evaluate(() => window.__bearagentMock.releaseModelCall());
    const write = cardOf(page, "call_2");
    await write.locator('[data-testid="card-status"][data-status="asking"]').waitFor();
    await page.evaluate(() => document.activeElement?.blur());
    // n: the next card that failed or waits (the failed command first, then the write).
    await page.keyboard.press("n");
    assert.equal(await focusedCall(page), "call_1");
    await page.keyboard.press("n");
    assert.equal(await focusedCall(page), "call_2");
    assert.equal(await write.getAttribute("tabindex"), "0");
    // A waiting write shows its diff inline, closed; Enter / o open and close it.
    assert.equal(await write.getAttribute("data-open"), "false");
    await write.getByTestId("card-inline-diff").waitFor();
    await page.keyboard.press("Enter");
    assert.equal(await write.getAttribute("data-open"), "true");
    await page.keyboard.press("o");
    assert.equal(await write.getAttribute("data-open"), "false");
    await page.keyboard.press("k");
    assert.equal(await focusedCall(page), "call_1");
    await page.keyboard.press("Enter");
    assert.equal(await first.getAttribute("data-open"), "false", "the failed command's card closes");
    await page.keyboard.press("j");
    assert.equal(await focusedCall(page), "call_2");
    // Typing in the card's fields takes no key.
    await write.getByTestId("deny-reason").fill("dna");
    assert.equal(await write.getAttribute("data-status"), "asking");
    await write.getByTestId("deny-reason").fill("");
    await write.focus();
    await page.keyboard.press("a");
    await write.locator('[data-testid="card-status"]:not([data-status="asking"])').waitFor();
    assert.deepEqual((await decisions(page)).at(-1), { approve: true, scope: "once", reason: null });
    await shot(page, "conversation-keyboard");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("keyboard: d denies the focused card's request", async () => {
  const { page, problems, close } = await ui.openApp({ ...liveSeed, gateModelCalls: false });
  try {
    await byId(page, "run-goal").fill("Compare the architecture notes in docs and write the conclusion to outputs/report.md");
    await byId(page, "start-run").click();
    const write = page.locator('[data-testid="tool-card"][data-tool="write_file"]');
    await write.locator('[data-testid="card-status"][data-status="asking"]').waitFor();
    await page.evaluate(() => document.activeElement?.blur());
    await page.keyboard.press("n");
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.tool), "write_file");
    await page.keyboard.press("d");
    await write.locator('[data-testid="card-status"][data-status="denied"]').waitFor();
    assert.equal(await write.getByTestId("card-reason").innerText(), "Denied by user.");
    assert.deepEqual((await decisions(page)).at(-1), { approve: false, scope: "once", reason: null });
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** Scrolls a windowed list to its end in steps, so every row is measured; returns its full height. */
async function measuredHeight(page, testid) {
  return page.getByTestId(testid).evaluate(async (el) => {
    for (let top = 0; top <= el.scrollHeight; top += el.clientHeight / 2) {
      el.scrollTop = top;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    }
    el.scrollTop = 0;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    return el.scrollHeight;
  });
}

test("density: the recorded 20-step run fits about two screens in the conversation, against many more as events", async () => {
  const { page, problems, close } = await ui.openApp(recorded("twenty"), { hash: `#/run/${RUN}` });
  try {
    await page.setViewportSize({ width: 1400, height: 1000 });
    await page.locator('[data-testid="conversation"][data-loaded="true"]').waitFor();
    const items = Number(await byId(page, "conversation").getAttribute("data-count"));
    const conversation = await measuredHeight(page, "conversation-list");
    await shot(page, "conversation-density");
    await showEvents(page);
    const rows = Number(await page.locator(".timeline").getAttribute("data-count"));
    const events = await measuredHeight(page, "timeline");
    await shot(page, "conversation-density-events");
    console.log(`density (20 steps, 1400×1000): Events ${rows} rows, ${Math.round(events)} px (${(events / 1000).toFixed(2)} windows); Conversation ${items} items, ${Math.round(conversation)} px (${(conversation / 1000).toFixed(2)} windows)`);
    assert.equal(await cards(page).count(), 0, "Events shows no cards");
    assert.ok(conversation <= 2.5 * 1000, `the conversation fits 2.5 windows: ${conversation} px`);
    assert.ok(conversation * 3 < events, `far shorter than the events: ${conversation} vs ${events} px`);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
