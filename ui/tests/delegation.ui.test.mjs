// Chromium flow tests of helpers (delegation) against the dev-only mock
// backend: a `task` call's card shows its helper nested (description,
// live status, spend, Open) and, nested under it, the helper's own
// helper; a depth-2 helper's approval is asked on the top run's card and
// answered with the helper's run id; the run list puts helpers under the
// run that started them; the start form's Helpers switch; the run's header
// says which helper waits, brings its question into view, and A / D answer
// it when it is the only one.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OPENAI, byId, shot, startUi } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const seed = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] }, stepMs: 20, streamMs: 15 };

/** A run's turn that calls `task` (started, no result yet). */
function taskTurn(callId, description, prompt) {
  const call = { call_id: callId, tool_name: "task", arguments: { description, prompt } };
  return [
    { type: "run_started" },
    { type: "model_call_requested", context_version: "c1", context_bytes: 2048 },
    { type: "model_call_started", provider: "openai", model: "gpt-4.1" },
    { type: "model_call_completed", action: { type: "tool_calls", calls: [call] }, usage: { input: 900, output: 20 }, stop_reason: "tool_use" },
    { type: "tool_call_requested", call },
    { type: "tool_call_started", call_id: callId },
  ];
}

/** Seeds the parent with its `task` call; the helpers come later (`seedHelpers`). */
async function seedParent(page) {
  return page.evaluate(([path, payloads]) => window.__bearagentMock.seedRun(path, "Survey the notes", payloads), [PROJECT, taskTurn("call_task", "look around", "look around the notes")]);
}

/**
 * Stores the child (itself calling `task`) and the grandchild waiting on a
 * read, then announces them live as the backend would: each `run_created`
 * is pushed.
 */
async function seedHelpers(page, parentId) {
  return page.evaluate(
    ([path, parent, childTurn]) => {
      const mock = window.__bearagentMock;
      const read = { call_id: "call_read", tool_name: "read_file", arguments: { path: "A.md" } };
      const child = mock.seedRun(path, "look around the notes", childTurn, { delegatedBy: { run_id: parent, call_id: "call_task", depth: 1, description: "look around" } });
      const grand = mock.seedRun(
        path,
        "read A.md",
        [
          { type: "run_started" },
          { type: "model_call_requested", context_version: "c1", context_bytes: 1024 },
          { type: "model_call_started", provider: "openai", model: "gpt-4.1" },
          { type: "model_call_completed", action: { type: "tool_calls", calls: [read] }, usage: { input: 300, output: 12 }, stop_reason: "tool_use" },
          { type: "tool_call_requested", call: read },
          { type: "approval_requested", call_id: "call_read", tool_name: "read_file", summary: "read A.md" },
        ],
        { delegatedBy: { run_id: child, call_id: "call_deep", depth: 2, description: "read A" }, answers: true },
      );
      mock.emitStored(child, 1);
      mock.emitStored(grand, 1);
      return { child, grand };
    },
    [PROJECT, parentId, taskTurn("call_deep", "read A", "read A.md")],
  );
}

const helperCard = (page, runId) => page.locator(`[data-testid="helper-card"][data-run-id="${runId}"]`);

test("a task card nests its helper and the helper's own; a depth-2 approval is answered there as the helper", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    const parent = await seedParent(page);
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), parent);
    const card = page.locator('[data-testid="tool-card"][data-call-id="call_task"]');
    await card.waitFor();
    assert.equal(await card.getByTestId("helper-card").count(), 0, "no helper before one starts");

    // The helpers start while the parent is open: their cards come from the live feed.
    const { child, grand } = await seedHelpers(page, parent);
    const childCard = card.locator(`[data-testid="helper-card"][data-run-id="${child}"]`);
    await childCard.waitFor();
    assert.equal(await childCard.getByTestId("helper-description").first().innerText(), "look around");
    assert.equal(await childCard.getAttribute("data-status"), "running");
    assert.match(await childCard.getByTestId("helper-spend").first().innerText(), /1 model call · 1 tool call · 900 \/ 20 tokens/);
    assert.equal(await childCard.getByTestId("helper-open").first().getAttribute("href"), `#/run/${child}`);

    // The grandchild sits under the child, its question on the top run's card.
    const grandCard = childCard.locator(`[data-testid="helper-card"][data-run-id="${grand}"]`);
    await grandCard.waitFor();
    assert.equal(await grandCard.getAttribute("data-depth"), "2");
    const ask = grandCard.getByTestId("helper-approval");
    await ask.waitFor();
    assert.equal(await ask.getAttribute("data-run-id"), grand);
    assert.equal(await ask.getByTestId("helper-asks").innerText(), 'helper "read A" asks:');
    assert.equal(await ask.getByTestId("helper-ask-tool").innerText(), "read_file");
    assert.equal(await ask.getByTestId("helper-ask-summary").innerText(), "read A.md");
    assert.equal(await childCard.getByTestId("helper-approval").count(), 1, "only the grandchild asks");
    await shot(page, "helpers-nested-approval");

    await ask.getByTestId("helper-approve").click();
    // The answer goes to the grandchild, under its own run id and call id.
    await page.waitForFunction(() => window.__bearagentMock.calls.some((c) => c.cmd === "decide_approval"));
    const decided = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "decide_approval").map((c) => c.args));
    assert.deepEqual(decided, [{ runId: grand, callId: "call_read", decision: { approve: true, scope: "once", reason: null } }]);
    // Its grant, committed live, closes the question.
    await grandCard.getByTestId("helper-approval").waitFor({ state: "detached" });
    const events = await page.evaluate((id) => window.__bearagentMock.eventCount(id), grand);
    assert.equal(events, 8, "the grandchild's run_created, its 6 seeded events and its approval_granted");

    // The helpers finish: their cards follow live.
    await page.evaluate(
      ([g, c]) => {
        const mock = window.__bearagentMock;
        mock.appendEvent(g, { type: "run_succeeded", answer: "A says alpha." });
        mock.appendEvent(c, { type: "budget_exhausted", which: "tool_calls" });
      },
      [grand, child],
    );
    await page.locator(`[data-testid="helper-card"][data-run-id="${grand}"][data-status="succeeded"]`).waitFor();
    await page.locator(`[data-testid="helper-card"][data-run-id="${child}"][data-status="budget_exhausted"]`).waitFor();

    // Open: the helper's own run view.
    await childCard.getByTestId("helper-open").first().click();
    await page.locator(`[data-testid="run-view"][data-run-id="${child}"]`).waitFor();
    // Back on the parent, reopened: the helpers are read from the store.
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), parent);
    await page.locator(`[data-testid="run-view"][data-run-id="${parent}"]`).waitFor();
    await page.locator(`[data-testid="tool-card"][data-call-id="call_task"] [data-testid="helper-card"][data-run-id="${grand}"][data-status="succeeded"]`).waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the header says which helper waits, shows its question, and A answers it as the helper", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    const parent = await seedParent(page);
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), parent);
    await page.locator('[data-testid="tool-card"][data-call-id="call_task"]').waitFor();
    const waits = page.getByTestId("helper-waits");
    await waits.waitFor({ state: "attached" });
    assert.equal(await waits.getByTestId("helper-waits-button").count(), 0, "no helper waits yet");

    const { grand } = await seedHelpers(page, parent);
    const button = waits.getByTestId("helper-waits-button");
    await button.waitFor();
    assert.equal(await waits.getAttribute("role"), "status");
    assert.equal(await button.innerText(), '⚠ helper "read A" waits for your approval');
    assert.equal(await button.getAttribute("data-run-id"), grand);
    assert.equal(await button.getAttribute("aria-keyshortcuts"), "A D");

    // From the Events view too: the conversation comes back, at the helper's question.
    await page.getByTestId("timeline-tab").click();
    await button.click();
    const approve = page.locator(`[data-testid="helper-approval"][data-run-id="${grand}"] [data-testid="helper-approve"]`);
    await page.waitForFunction((id) => document.activeElement?.closest(`[data-testid="helper-approval"][data-run-id="${id}"]`) != null, grand);
    assert.equal(await approve.evaluate((el) => el === document.activeElement), true, "its Approve holds the focus");
    const inView = await approve.evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
    });
    assert.equal(inView, true, "its Approve is in view");
    await shot(page, "helpers-header-waits");

    // A, away from the card (the run asks nothing itself): the helper is answered, as itself.
    await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    await page.keyboard.press("a");
    await page.waitForFunction(() => window.__bearagentMock.calls.some((c) => c.cmd === "decide_approval"));
    const decided = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "decide_approval").map((c) => c.args));
    assert.deepEqual(decided, [{ runId: grand, callId: "call_read", decision: { approve: true, scope: "once", reason: null } }]);
    await button.waitFor({ state: "detached" });
    await page.locator(`[data-testid="helper-approval"][data-run-id="${grand}"]`).waitFor({ state: "detached" });
    // Nobody waits any more: A does nothing.
    await page.keyboard.press("a");
    await page.waitForTimeout(150);
    assert.equal(await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "decide_approval").length), 1);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("several waiting helpers are counted in the header, and A answers none of them", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    const parent = await seedParent(page);
    await page.evaluate(
      ([path, parent]) => {
        const mock = window.__bearagentMock;
        for (const [name, file] of [["read A", "A.md"], ["read B", "B.md"]]) {
          const read = { call_id: "call_read", tool_name: "read_file", arguments: { path: file } };
          mock.seedRun(path, `read ${file}`, [{ type: "run_started" }, { type: "tool_call_requested", call: read }, { type: "approval_requested", call_id: "call_read", tool_name: "read_file", summary: `read ${file}` }], {
            delegatedBy: { run_id: parent, call_id: "call_task", depth: 1, description: name },
          });
        }
      },
      [PROJECT, parent],
    );
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), parent);
    const button = page.getByTestId("helper-waits-button");
    await button.waitFor();
    assert.equal(await button.innerText(), "⚠ 2 helpers wait for your approval");
    assert.equal(await button.getAttribute("aria-keyshortcuts"), null);
    await page.keyboard.press("a");
    await page.keyboard.press("d");
    await page.waitForTimeout(150);
    assert.equal(await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "decide_approval").length), 0, "which one is not for a key to guess");
    assert.equal(await page.locator('[data-testid="helper-approval"]').count(), 2);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("while the run itself asks, the header says nothing of its helpers and A is the run's", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    const write = { call_id: "call_write", tool_name: "write_file", arguments: { path: "B.md", content: "b" } };
    const turn = taskTurn("call_task", "look around", "look around the notes");
    turn[3].action.calls.push(write);
    turn.push({ type: "tool_call_requested", call: write }, { type: "approval_requested", call_id: "call_write", tool_name: "write_file", summary: "write B.md" });
    const parent = await page.evaluate(([path, payloads]) => window.__bearagentMock.seedRun(path, "Survey the notes", payloads), [PROJECT, turn]);
    await page.evaluate(
      ([path, parent]) => {
        const read = { call_id: "call_read", tool_name: "read_file", arguments: { path: "A.md" } };
        window.__bearagentMock.seedRun(path, "read A.md", [{ type: "run_started" }, { type: "tool_call_requested", call: read }, { type: "approval_requested", call_id: "call_read", tool_name: "read_file", summary: "read A.md" }], {
          delegatedBy: { run_id: parent, call_id: "call_task", depth: 1, description: "read A" },
        });
      },
      [PROJECT, parent],
    );
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), parent);
    await page.locator('[data-testid="run-view"][data-status="awaiting_approval"]').waitFor();
    await page.locator('[data-testid="helper-approval"]').waitFor();
    const waits = page.getByTestId("helper-waits");
    assert.equal(await waits.getAttribute("data-count"), "0");
    assert.equal(await waits.getByTestId("helper-waits-button").count(), 0, "the run's own question shows itself");
    await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    await page.keyboard.press("a");
    await page.waitForTimeout(150);
    const decided = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "decide_approval").map((c) => c.args.runId));
    assert.ok(!decided.some((id) => id !== parent), `no helper answered by A: ${JSON.stringify(decided)}`);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a helper's answer that fails stays on its card with the error; nothing is decided for the user", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    const parent = await seedParent(page);
    const { grand } = await page.evaluate(
      ([path, parent]) => {
        const mock = window.__bearagentMock;
        const read = { call_id: "call_read", tool_name: "read_file", arguments: { path: "A.md" } };
        // Not `answers`: the mock has no loop waiting, so the answer is refused (not_found).
        const grand = mock.seedRun(path, "read A.md", [{ type: "run_started" }, { type: "tool_call_requested", call: read }, { type: "approval_requested", call_id: "call_read", tool_name: "read_file", summary: "read A.md" }], {
          delegatedBy: { run_id: parent, call_id: "call_task", depth: 1, description: "read A" },
        });
        return { grand };
      },
      [PROJECT, parent],
    );
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), parent);
    const ask = page.locator(`[data-testid="helper-approval"][data-run-id="${grand}"]`);
    await ask.waitFor();
    await ask.getByTestId("helper-deny").click();
    await ask.getByTestId("helper-decision-error").waitFor();
    assert.match(await ask.getByTestId("helper-decision-error").innerText(), /not_found/);
    assert.equal(await ask.getAttribute("data-state"), "failed");
    // Still answerable: the question stays until an answer is committed.
    assert.equal(await ask.getByTestId("helper-approve").isEnabled(), true);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the run list puts helpers under the run that started them; the form's Helpers switch asks for them", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    const parent = await seedParent(page);
    // Seeded (and so listed) after the parent: newer, so above it unless grouped.
    const { child, grand } = await seedHelpers(page, parent);
    const other = await page.evaluate((path) => {
      const mock = window.__bearagentMock;
      const id = mock.seedRun(path, "Something else", [{ type: "run_started" }]);
      // Any pushed event refreshes the list.
      mock.emitStored(id, 1);
      return id;
    }, PROJECT);
    const rows = page.locator('[data-testid="runs-list"] [data-testid="run-row"]');
    await page.locator(`[data-testid="run-row"][data-run-id="${other}"]`).waitFor();
    await page.locator(`[data-testid="run-row"][data-run-id="${grand}"]`).waitFor();
    const listed = await rows.evaluateAll((trs) => trs.map((tr) => [tr.dataset.runId, tr.dataset.level]));
    assert.deepEqual(listed, [
      [other, "0"],
      [parent, "0"],
      [child, "1"],
      [grand, "2"],
    ]);
    const tag = page.locator(`[data-testid="run-row"][data-run-id="${grand}"] [data-testid="run-helper-tag"]`);
    assert.equal(await tag.getAttribute("data-parent-run-id"), child);
    assert.match(await tag.getAttribute("title"), /Helper "read A"/);
    await shot(page, "helpers-run-list");

    // The form: Helpers off by default, on sends `delegate`.
    const helpers = byId(page, "run-helpers");
    assert.equal(await helpers.isChecked(), false);
    await helpers.check();
    await byId(page, "run-goal").fill("Survey the notes with helpers");
    await byId(page, "start-run").click();
    await page.waitForFunction(() => window.__bearagentMock.calls.some((c) => c.cmd === "start_run"));
    const [request] = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "start_run").map((c) => c.args.request));
    assert.equal(request.delegate, true);
    // (The mock has no recording of a run with helpers: it fails at once, saying so.)
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
