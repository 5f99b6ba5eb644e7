// Chromium flow tests of the run experience against the dev-only mock
// backend: starting a run, streaming text, approvals by keyboard, terminal
// status, gap filling, "what the model saw", the demo, interruption, runs
// of another process, a run whose events cannot be stored, quit.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OPENAI, byId, renderedSeqs, shot, showEvents, startUi } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const withProvider = (extra = {}) => ({
  recent: [PROJECT],
  current: PROJECT,
  settings: { providers: [OPENAI] },
  stepMs: 20,
  streamMs: 15,
  ...extra,
});

const hooks = (page, fn, ...args) => page.evaluate(([body, values]) => new Function("mock", "args", body)(window.__bearagentMock, values), [fn, args]);
const release = (page) => page.evaluate(() => window.__bearagentMock.releaseModelCall());
const runIdOf = (page) => byId(page, "run-view").getAttribute("data-run-id");

async function startRun(page, goal, mode = "ask_writes") {
  await byId(page, "run-goal").fill(goal);
  await byId(page, "run-approval").selectOption(mode);
  await byId(page, "start-run").click();
  await byId(page, "run-view").waitFor();
  await showEvents(page);
}

/** Every event the backend stored is in the timeline exactly once, in order. */
async function assertTimelineComplete(page) {
  const runId = await runIdOf(page);
  const stored = await page.evaluate((id) => window.__bearagentMock.eventCount(id), runId);
  await page.locator(`[data-testid="run-view"][data-last-seq="${stored}"]`).waitFor();
  assert.equal(await page.locator(".timeline").getAttribute("data-count"), String(stored));
  const seqs = await renderedSeqs(page);
  assert.equal(new Set(seqs).size, seqs.length, `no row twice: ${seqs}`);
  for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, `contiguous rows: ${seqs}`);
}

test("run view: start → streaming text → approval by keyboard → final answer", async () => {
  const { page, problems, close } = await ui.openApp(withProvider({ gateModelCalls: true }));
  try {
    assert.equal(await byId(page, "welcome").count(), 0, "a provider is configured: no first-launch card");
    assert.equal(await byId(page, "run-provider").inputValue(), "openai");
    await startRun(page, "Compare the architecture notes in docs and write the conclusion to outputs/report.md");

    // Model text streams into the model call row until the completion commits.
    const streaming = byId(page, "streaming-text");
    await page.waitForFunction(() => document.querySelector('[data-testid="streaming-text"]')?.textContent?.includes("laid out, then read"));
    assert.match(await streaming.innerText(), /I'll start by looking at how the workspace is laid out/);
    assert.equal(await byId(page, "elapsed").getAttribute("data-ticking"), "true");
    await shot(page, "run-streaming");
    await release(page);
    await page.locator('[data-type="model_call_completed"]').first().waitFor();
    await page.locator('[data-type="tool_call_completed"]').first().waitFor();
    // The first call's streamed text was replaced by the committed completion.
    await page.waitForFunction(() => !document.querySelector('[data-seq="4"] [data-testid="streaming-text"]'));

    await release(page); // read_file
    await page.locator('[data-type="tool_call_completed"]').nth(1).waitFor();
    await release(page); // write_file, which needs approval
    const approval = page.locator('[data-testid="approval-row"][data-state="pending"]');
    await approval.waitFor();
    await page.locator('[data-testid="run-view"][data-status="awaiting_approval"]').waitFor();
    // The new request has keyboard focus; its controls are labelled.
    // Read from the focused element itself in one go: under load the
    // virtualised timeline may re-render the row between two queries.
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "approval-row");
    const focused = await page.evaluate(() => {
      const el = document.activeElement;
      return { keys: el?.getAttribute("aria-keyshortcuts") ?? "", outline: el ? getComputedStyle(el).outlineStyle : "none" };
    });
    assert.match(focused.keys, /Shift\+A/);
    await page.getByLabel(/Reason if you deny/).waitFor();
    assert.notEqual(focused.outline, "none", "the focused approval row shows its focus");
    await shot(page, "run-approval");

    await page.keyboard.press("a");
    await page.locator('[data-testid="approval-row"][data-state="approved"]').waitFor();
    assert.match(await byId(page, "approval-decided").innerText(), /Approved by user/);
    await release(page); // final answer
    const outcome = page.locator('[data-testid="run-outcome"][data-status="succeeded"]');
    await outcome.waitFor();
    assert.equal(await outcome.getAttribute("data-tone"), "success");
    assert.match(await byId(page, "final-answer").innerText(), /outputs\/report\.md compares the notes/);
    assert.equal(await byId(page, "cancel-run").count(), 0);
    await page.locator('[data-testid="elapsed"][data-ticking="false"]').waitFor();
    await assertTimelineComplete(page);
    const meters = await byId(page, "budget-meters").locator("[data-meter]").evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.meter, `${e.dataset.used}/${e.dataset.limit}`])));
    assert.equal(meters.model_calls, "4/50");
    assert.equal(meters.tool_calls, "3/100");
    await shot(page, "run-succeeded");

    // At the end of a finished run the list no longer follows: a row
    // expanded there must not be pushed away by a jump to the end.
    await page.evaluate(() => (document.querySelector('[data-testid="timeline"]').scrollTop = 0));
    await page.locator('.timeline[data-follow="false"]').waitFor();
    await page.evaluate(() => {
      const el = document.querySelector('[data-testid="timeline"]');
      el.scrollTop = el.scrollHeight;
    });
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="timeline"]');
      return el.scrollHeight - el.scrollTop - el.clientHeight < 24;
    });
    await page.waitForTimeout(100);
    assert.equal(await page.locator(".timeline").getAttribute("data-follow"), "false");

    // The long read_file result is collapsed to a preview and expands to the full text.
    await page.evaluate(() => (document.querySelector('[data-testid="timeline"]').scrollTop = 0));
    // Rows are windowed: scroll down from the top until it is rendered.
    // Read and click in the page in one go: the windowed rows around it
    // are measured as they appear and may re-render it between two
    // Playwright steps.
    const collapsed = await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="tool-result"][data-collapsed="true"]');
      if (!el) {
        document.querySelector('[data-testid="timeline"]').scrollTop += 120;
        return false;
      }
      return { bytes: el.getAttribute("data-bytes"), text: el.textContent };
    });
    const { bytes, text } = await collapsed.jsonValue();
    assert.ok(Number(bytes) > 2048);
    assert.doesNotMatch(text, /7\. Risks/);
    await page.waitForFunction((b) => {
      const toggle = document.querySelector(`[data-testid="tool-result"][data-collapsed="true"][data-bytes="${b}"] [data-testid="toggle-result"]`);
      toggle?.click();
      return Boolean(toggle);
    }, bytes);
    // The expanded row grows; the list keeps what is in view steady, so the
    // row may scroll away: read it the moment it shows.
    const expanded = await page.waitForFunction((b) => {
      const el = document.querySelector(`[data-testid="tool-result"][data-collapsed="false"][data-bytes="${b}"]`);
      return el ? { text: el.textContent, toggle: el.querySelector('[data-testid="toggle-result"]')?.textContent ?? "" } : false;
    }, bytes);
    const shown = await expanded.jsonValue();
    assert.match(shown.text, /7\. Risks/);
    assert.match(shown.toggle, /Collapse/);

    // Back to the list: the run is there, succeeded.
    await byId(page, "back-to-runs").click();
    const row = page.locator('[data-testid="run-row"][data-status="succeeded"]');
    await row.waitFor();
    assert.match(await row.innerText(), /Compare the architecture notes/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("ask for everything: Shift+A approves a tool for the run, D and Deny send a reason the model receives", async () => {
  // Model calls are held until the Events view shows: a request that came
  // first would take focus in the Conversation view, before the switch.
  const { page, problems, close } = await ui.openApp(withProvider({ gateModelCalls: true }));
  try {
    await startRun(page, "Summarise the notes", "ask_all");
    await release(page); // list_dir
    let approval = page.locator('[data-testid="approval-row"][data-state="pending"]');
    await approval.waitFor();
    await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "approval-row");
    await page.keyboard.press("Shift+A");
    await page.locator('[data-testid="approval-row"][data-state="approved"]').first().waitFor();
    assert.match(await byId(page, "approval-decided").first().innerText(), /for the rest of this run/);
    await release(page); // read_file

    // read_file: deny with the keyboard (no reason).
    await page.locator('[data-testid="approval-row"][data-state="pending"][data-call-id="call_2"]').waitFor();
    await page.waitForFunction(() => document.activeElement?.dataset.callId === "call_2");
    await page.keyboard.press("d");
    await page.locator('[data-testid="approval-row"][data-state="denied"][data-call-id="call_2"]').waitFor();
    await release(page); // write_file

    // write_file: typing "a" or "d" in the reason field does not answer; Deny sends the reason.
    approval = page.locator('[data-testid="approval-row"][data-state="pending"][data-call-id="call_3"]');
    await approval.waitFor();
    await approval.getByTestId("deny-reason").fill("keep outputs/ as it is, add nothing");
    assert.equal(await approval.getAttribute("data-state"), "pending");
    await approval.getByTestId("deny").click();
    const denied = page.locator('[data-testid="approval-row"][data-state="denied"][data-call-id="call_3"]');
    await denied.waitFor();
    assert.match(await denied.innerText(), /keep outputs\/ as it is, add nothing/);
    await release(page); // the final answer
    const reasonRow = page.locator('[data-type="approval_denied"]').last();
    assert.match(await reasonRow.innerText(), /reason given to the model/);
    await page.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
    assert.match(await byId(page, "final-answer").innerText(), /You declined the write, so nothing was changed/);
    const failed = page.locator('[data-type="tool_call_failed"]').last();
    assert.equal(await failed.getByTestId("error-class").getAttribute("data-error-class"), "tool");
    await shot(page, "run-denied");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("timeline paging with a gap: rows 1-3, then 10 arrives → 4-9 are paged, nothing twice", async () => {
  const { page, problems, close } = await ui.openApp(withProvider());
  try {
    const runId = await page.evaluate((path) =>
      window.__bearagentMock.seedRun(path, "Check the gap filling", [
        { type: "run_started" },
        { type: "model_call_requested", context_version: "c1", context_bytes: 2048 },
      ]), PROJECT);
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), runId);
    await showEvents(page);
    await page.locator('[data-testid="timeline-row"][data-seq="3"]').waitFor();
    assert.deepEqual(await renderedSeqs(page), [1, 2, 3]);

    await page.evaluate((id) => {
      const mock = window.__bearagentMock;
      const call = { call_id: "call_1", tool_name: "read_file", arguments: { path: "docs/notes.md" } };
      // 4-9 are committed while this window misses their pushes…
      mock.appendEvent(id, { type: "model_call_started", provider: "openai", model: "gpt-4.1" }, { silent: true });
      mock.appendEvent(id, { type: "model_call_completed", action: { type: "tool_calls", calls: [call] }, usage: { input: 900, output: 20 }, stop_reason: "tool_use" }, { silent: true });
      mock.appendEvent(id, { type: "tool_call_requested", call }, { silent: true });
      mock.appendEvent(id, { type: "tool_call_started", call_id: "call_1" }, { silent: true });
      mock.appendEvent(id, { type: "tool_call_completed", result: { call_id: "call_1", content: "# Notes\n- one\n- two\n", is_error: false }, receipt: null, truncated: false, original_bytes: 20 }, { silent: true });
      mock.appendEvent(id, { type: "model_call_requested", context_version: "c1", context_bytes: 3100 }, { silent: true });
      // …and 10 is pushed.
      mock.appendEvent(id, { type: "model_call_started", provider: "openai", model: "gpt-4.1" });
    }, runId);
    await page.locator('[data-testid="timeline-row"][data-seq="10"]').waitFor();
    assert.deepEqual(await renderedSeqs(page), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const pages = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "list_events").map((c) => [c.args.afterSeq, c.args.limit]));
    assert.deepEqual(pages, [[0, 500], [3, 500]]);

    // A duplicate push changes nothing.
    await page.evaluate((id) => window.__bearagentMock.emitStored(id, 6), runId);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
    assert.deepEqual(await renderedSeqs(page), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await shot(page, "timeline-gap");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("what the model saw: the exact context of a model call", async () => {
  const { page, problems, close } = await ui.openApp(withProvider());
  try {
    await startRun(page, "Write the report", "allow_all");
    await page.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
    // The last model call (the final answer) saw the goal, then each turn's text, call and result.
    await page.evaluate(() => {
      const el = document.querySelector('[data-testid="timeline"]');
      el.scrollTop = el.scrollHeight;
    });
    await page.locator('[data-testid="timeline-row"][data-type="run_succeeded"]').waitFor();
    const lastCall = page.locator('[data-type="model_call_completed"]').last();
    await lastCall.getByTestId("model-saw").click();
    const panel = page.locator('[data-testid="model-context"][data-state="ready"]');
    await panel.waitFor();
    assert.match(await byId(page, "context-system").innerText(), /You are BearAgent/);
    const kinds = await byId(page, "context-history").locator("li").evaluateAll((items) => items.map((i) => i.dataset.kind));
    assert.deepEqual(kinds, ["message", "message", "tool_call", "tool_result", "message", "tool_call", "tool_result", "message", "tool_call", "tool_result"]);
    assert.match(await byId(page, "context-tools").innerText(), /list_dir[\s\S]*read_file[\s\S]*write_file/);
    assert.match(await panel.innerText(), /Model call requested at #\d+/);
    await shot(page, "model-context");
    await page.keyboard.press("Escape");
    await page.locator('[data-testid="model-context"]').waitFor({ state: "hidden" });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("first launch: the offline demo opens its workspace and a run labelled DEMO", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, problems, close } = await ui.openApp({ stepMs: 20, streamMs: 10 }, { colorScheme });
    try {
      await byId(page, "welcome").waitFor();
      await byId(page, "add-provider").waitFor();
      await shot(page, `home-first-launch-${colorScheme}`);
      await byId(page, "try-demo").click();
      await byId(page, "demo-badge").waitFor();
      assert.match(await byId(page, "demo-badge").innerText(), /DEMO/);
      assert.match(await byId(page, "current-workspace").getAttribute("data-path"), /^\/tmp\/bearagent-demo-\d+$/);
      await page.locator('[data-testid="approval-row"][data-state="pending"]').waitFor();
      await shot(page, `demo-approval-${colorScheme}`);
      await byId(page, "approve").click();
      await page.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
      assert.match(await byId(page, "final-answer").innerText(), /wrote docs\/plan\.md/);
      await shot(page, `demo-succeeded-${colorScheme}`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  }
});

test("interrupted while waiting: shown as interrupted (not success), the request still answers and resumes", async () => {
  const { page, problems, close } = await ui.openApp({ stepMs: 20, streamMs: 10 });
  try {
    await byId(page, "try-demo").click();
    await page.locator('[data-testid="approval-row"][data-state="pending"]').waitFor();
    const runId = await runIdOf(page);
    await page.evaluate((id) => window.__bearagentMock.interrupt(id), runId);
    const outcome = page.locator('[data-testid="run-outcome"][data-status="interrupted"]');
    await outcome.waitFor();
    assert.equal(await outcome.getAttribute("data-tone"), "danger");
    assert.match(await outcome.innerText(), /Interrupted[\s\S]*Answer the request below to resume/);
    await byId(page, "approval-resume-note").waitFor();
    assert.equal(await byId(page, "cancel-run").count(), 0);
    await shot(page, "run-interrupted");

    // Answered from its card in the conversation; the resume shows in Events.
    await byId(page, "approve").click();
    await showEvents(page);
    await page.locator('[data-type="run_resumed"]').waitFor();
    await page.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
    await assertTimelineComplete(page);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a run another process executes: a notice, its request read-only, no cancel; its end shows and the notice goes", async () => {
  const { page, problems, close } = await ui.openApp(withProvider());
  try {
    const call = { call_id: "call_1", tool_name: "write_file", arguments: { path: "docs/plan.md", content: "# Plan\n" } };
    const runId = await page.evaluate(([path, call]) => {
      const mock = window.__bearagentMock;
      const id = mock.seedRun(path, "Write the plan from the CLI", [
        { type: "run_started" },
        { type: "model_call_requested", context_version: "c1", context_bytes: 2048 },
        { type: "model_call_started", provider: "openai", model: "gpt-4.1" },
        { type: "model_call_completed", action: { type: "tool_calls", calls: [call] }, usage: { input: 900, output: 20 }, stop_reason: "tool_use" },
        { type: "tool_call_requested", call },
        { type: "approval_requested", call_id: call.call_id, tool_name: call.tool_name, summary: "write docs/plan.md" },
      ]);
      mock.runElsewhere(id, 4242, "bearagent");
      return id;
    }, [PROJECT, call]);
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), runId);
    await showEvents(page);

    const notice = byId(page, "run-owner-elsewhere");
    await notice.waitFor();
    assert.equal((await notice.innerText()).trim(), "Running in another BearAgent process (bearagent, pid 4242). Approvals and cancel happen there.");
    const row = page.locator('[data-testid="approval-row"][data-state="elsewhere"]');
    await row.waitFor();
    assert.match(await byId(page, "approval-elsewhere").innerText(), /Waiting for approval in the other process/);
    for (const id of ["approve", "approve-always", "deny", "deny-reason", "cancel-run"]) assert.equal(await byId(page, id).count(), 0, `no ${id}`);
    // The shortcuts answer nothing either.
    await row.evaluate((el) => el.focus());
    for (const key of ["a", "Shift+A", "d"]) await page.keyboard.press(key);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
    const decided = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "decide_approval" || c.cmd === "cancel_run").length);
    assert.equal(decided, 0);
    await shot(page, "run-owner-elsewhere");

    // The other process gets its answer and finishes: this window follows.
    await page.evaluate((id) => {
      const mock = window.__bearagentMock;
      mock.appendEvent(id, { type: "approval_granted", call_id: "call_1", by: "user", scope: "once" });
      mock.appendEvent(id, { type: "tool_call_started", call_id: "call_1" });
      mock.appendEvent(id, { type: "tool_call_completed", result: { call_id: "call_1", content: "wrote docs/plan.md", is_error: false }, receipt: null, truncated: false, original_bytes: 18 });
      mock.appendEvent(id, { type: "run_succeeded", answer: "The plan is in docs/plan.md." });
    }, runId);
    await page.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
    await notice.waitFor({ state: "detached" });
    assert.match(await byId(page, "approval-decided").innerText(), /Approved by user/);
    await assertTimelineComplete(page);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a run whose events cannot be stored: the reason is shown and the run reads as failed", async () => {
  const { page, problems, close } = await ui.openApp(withProvider());
  try {
    const runId = await page.evaluate((path) =>
      window.__bearagentMock.seedRun(path, "Summarise the notes", [
        { type: "run_started" },
        { type: "model_call_requested", context_version: "c1", context_bytes: 2048 },
      ]), PROJECT);
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), runId);
    await showEvents(page);
    await page.locator('[data-testid="timeline-row"][data-seq="3"]').waitFor();
    assert.equal(await byId(page, "run-aborted").count(), 0);

    const message = "BearAgent could not record this run's events: database or disk is full";
    await page.evaluate(([id, text]) => window.__bearagentMock.abortRun(id, text), [runId, message]);
    const aborted = byId(page, "run-aborted");
    await aborted.waitFor();
    assert.match(await aborted.innerText(), /database or disk is full/);
    await page.locator('[data-testid="run-outcome"][data-status="failed"]').waitFor();
    await shot(page, "run-aborted");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("closing with a run in progress asks first: stay, or quit anyway", async () => {
  const { page, problems, close } = await ui.openApp({ stepMs: 20, streamMs: 10 });
  try {
    await byId(page, "try-demo").click();
    await page.locator('[data-testid="approval-row"][data-state="pending"]').waitFor();
    await page.evaluate(() => window.__bearagentMock.requestQuit());
    const dialog = byId(page, "quit-dialog");
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /A run is still in progress[\s\S]*interrupted/);
    await shot(page, "quit-dialog");
    await byId(page, "quit-stay").click();
    await dialog.waitFor({ state: "hidden" });
    assert.equal(await page.evaluate(() => window.__bearagentMock.quitCalled), false);

    await page.evaluate(() => window.__bearagentMock.requestQuit());
    await byId(page, "quit-anyway").click();
    await page.waitForFunction(() => window.__bearagentMock.quitCalled === true);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("home: filter runs by status and goal text, open one", async () => {
  const run = (runId, status, goal, createdAt, statusDetail = null) => ({
    runId, status, goal, createdAt, updatedAt: createdAt.replace(/:00Z$/, ":42Z"), statusDetail, modelCalls: 3, toolCalls: 2, inputTokens: 12_400, outputTokens: 1_030,
  });
  const seed = withProvider({
    runs: {
      [PROJECT]: [
        run("r-3", "interrupted", "Compare the architecture notes and write outputs/report.md", "2025-03-14T10:05:00Z"),
        run("r-2", "failed", "Add a CHANGELOG entry for the 0.2 release", "2025-03-14T09:58:00Z", "provider error: 503 overloaded"),
        run("r-1", "succeeded", "Summarise open TODOs across src/ into TODO.md", "2025-03-13T16:20:00Z"),
      ],
    },
  });
  const { page, problems, close } = await ui.openApp(seed);
  try {
    const rows = byId(page, "run-row");
    await rows.first().waitFor();
    assert.equal(await rows.count(), 3);
    assert.match(await rows.nth(2).innerText(), /42 s/, "duration column");
    await shot(page, "home-runs");

    await byId(page, "run-filter-status").selectOption("failed");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="run-row"]').length === 1);
    assert.match(await rows.first().innerText(), /CHANGELOG/);
    const search = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "search_runs").at(-1).args.filter);
    assert.equal(search.status, "failed");

    await byId(page, "run-filter-status").selectOption("");
    await byId(page, "run-filter-text").fill("todo");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="run-row"]').length === 1);
    assert.match(await rows.first().innerText(), /Summarise open TODOs/);
    await byId(page, "run-filter-text").fill("nothing like this");
    await byId(page, "runs-no-match").waitFor();

    await byId(page, "run-filter-text").fill("");
    await page.locator('[data-testid="run-row"][data-run-id="r-3"]').click();
    const view = page.locator('[data-testid="run-view"][data-run-id="r-3"][data-status="interrupted"]');
    await view.waitFor();
    assert.equal(await page.locator('[data-testid="run-outcome"]').getAttribute("data-tone"), "danger");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a long run stays windowed: 5 000 events, few rows in the DOM, the end reachable", async () => {
  const { page, problems, close } = await ui.openApp(withProvider());
  try {
    const runId = await page.evaluate((path) => {
      const payloads = [];
      for (let i = 0; i < 1666; i++) {
        const call = { call_id: `c${i}`, tool_name: "read_file", arguments: { path: `src/file_${i}.rs` } };
        payloads.push({ type: "tool_call_requested", call });
        payloads.push({ type: "tool_call_started", call_id: call.call_id });
        payloads.push({ type: "tool_call_completed", result: { call_id: call.call_id, content: `fn f${i}() {}\n`.repeat(1 + (i % 5)), is_error: false }, receipt: null, truncated: false, original_bytes: 20 });
      }
      return window.__bearagentMock.seedRun(path, "Read every file", payloads);
    }, PROJECT);
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), runId);
    await showEvents(page);
    await page.locator('.timeline[data-loaded="true"][data-count="4999"]').waitFor();
    const inDom = await page.locator('[data-testid="timeline-row"]').count();
    assert.ok(inDom > 5 && inDom < 80, `windowed: ${inDom} rows in the DOM`);
    await page.evaluate(() => {
      const el = document.querySelector('[data-testid="timeline"]');
      el.scrollTop = el.scrollHeight;
    });
    await page.locator('[data-testid="timeline-row"][data-seq="4999"]').waitFor();
    const seqs = await renderedSeqs(page);
    assert.equal(new Set(seqs).size, seqs.length);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
