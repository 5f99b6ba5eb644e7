// Chromium flow tests of runs in git worktrees against the dev-only mock
// backend, which plays what the runtime recorded in a real repository
// (src-tauri/src/scenarios/worktrees.rs): two runs started "In a new
// worktree" from the form (the request carries `worktree`) rewrite the same
// lines of outputs/report.md, grouped under their worktrees in the run list
// with state badges; the first applied from the run view (the report), the
// second refused by name with the runtime's reason, the first's apply
// undone, the second discarded after confirming; Apply waiting while a
// follow-up works in the same worktree; the backend's refusals shown where
// the form shows errors; a desktop notification for a run finishing in the
// background, none for the run on screen.
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
const GOAL = "Compare the architecture notes and write outputs/report.md";
const SAME_LINES = "the main checkout changed the same lines since the worktree's start";
// One run without a worktree, listed as before.
const PLAIN = {
  runId: "run-plain",
  goal: "Summarise the README",
  status: "succeeded",
  statusDetail: null,
  provider: "openai",
  model: "gpt-4.1",
  createdAt: "2025-03-14T08:00:00Z",
  updatedAt: "2025-03-14T08:01:00Z",
  modelCalls: 1,
  toolCalls: 0,
  inputTokens: 900,
  outputTokens: 40,
};
const seed = (extra = {}) => ({
  recent: [PROJECT],
  current: PROJECT,
  settings: { providers: [OPENAI] },
  runs: { [PROJECT]: [PLAIN] },
  stepMs: 10,
  streamMs: 5,
  gateModelCalls: true,
  ...extra,
});

const calls = (page, cmd) => page.evaluate((name) => window.__bearagentMock.calls.filter((c) => c.cmd === name).map((c) => c.args), cmd);
const runIdOf = (page) => byId(page, "run-view").getAttribute("data-run-id");
/** Lets the next `n` model calls complete (the recorded run makes 3, its follow-up 2). */
const release = (page, n) => page.evaluate((count) => {
  for (let i = 0; i < count; i++) window.__bearagentMock.releaseModelCall();
}, n);
const group = (page, branch) => page.locator(`[data-testid="worktree-group"][data-branch="${branch}"]`);
const panel = (page) => byId(page, "worktree-panel");

/** Fills the form for a run in a new worktree and starts it; returns the run's id once its view is open. */
async function startInWorktree(page, { name = "", base = "", carry = false } = {}) {
  await byId(page, "run-goal").fill(GOAL);
  await byId(page, "run-approval").selectOption("allow_all");
  await byId(page, "run-worktree").check();
  await byId(page, "run-worktree-name").fill(name);
  await byId(page, "run-worktree-base").fill(base);
  if (carry) await byId(page, "run-worktree-carry").check();
  await byId(page, "start-run").click();
  await byId(page, "run-view").waitFor();
  return runIdOf(page);
}

async function succeeded(page, runId) {
  await page.locator(`[data-testid="run-view"][data-run-id="${runId}"][data-status="succeeded"]`).waitFor();
}

test("two runs in worktrees: grouped with their state, applied from the run view (the second's same lines refused by name), the apply undone, one discarded after confirming", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    // The switch shows the worktree's fields and names its branch.
    await byId(page, "run-worktree").check();
    await byId(page, "run-worktree-name").fill("report-a");
    assert.match(await byId(page, "run-worktree-hint").innerText(), /on branch bearagent\/report-a in its own checkout; your checkout is not touched until you apply it/);
    assert.equal(await byId(page, "run-worktree-name").getAttribute("placeholder"), "from the run id");
    assert.equal(await byId(page, "run-worktree-base").getAttribute("placeholder"), "HEAD");
    await shot(page, "worktrees-form");

    const first = await startInWorktree(page, { name: "report-a" });
    await release(page, 3);
    await succeeded(page, first);
    assert.match(await byId(page, "worktree-branch").innerText(), /bearagent\/report-a/);
    assert.match(await byId(page, "worktree-folder").innerText(), /\/worktrees\/bear-demo-[0-9a-f]{8}\/report-a$/);

    await byId(page, "back-to-runs").click();
    const second = await startInWorktree(page, { base: "main", carry: true });
    const [a, b] = await calls(page, "start_run");
    assert.deepEqual(a.request.worktree, { name: "report-a", base: null, carryChanges: false });
    assert.deepEqual(b.request.worktree, { name: null, base: "main", carryChanges: true });

    // While the second works, the list shows it running in its worktree; the first is ready.
    await byId(page, "back-to-runs").click();
    const branchB = `bearagent/${second.replace(/-/g, "").slice(-8)}`;
    await page.locator(`[data-testid="worktree-group"][data-branch="${branchB}"][data-state="running"]`).waitFor();
    await page.locator('[data-testid="worktree-group"][data-branch="bearagent/report-a"][data-state="ready_to_apply"]').waitFor();
    assert.equal(await group(page, branchB).getByTestId("worktree-state").innerText(), "running");
    assert.equal(await group(page, "bearagent/report-a").getByTestId("worktree-state").innerText(), "ready to apply");
    // The size the runtime measured: the worktree's files, .git aside.
    assert.equal(await group(page, "bearagent/report-a").getByTestId("worktree-size").innerText(), "252 B");
    assert.deepEqual(await group(page, "bearagent/report-a").getByTestId("run-row").evaluateAll((rows) => rows.map((r) => r.dataset.runId)), [first]);
    assert.deepEqual(await group(page, branchB).getByTestId("run-row").evaluateAll((rows) => rows.map((r) => r.dataset.runId)), [second]);
    // The run without a worktree lists as before, under no header.
    const plain = page.locator('[data-testid="run-row"][data-run-id="run-plain"]');
    assert.equal(await plain.evaluate((row) => row.closest('[data-testid="worktree-group"]') === null), true);
    await shot(page, "worktrees-list-running");
    await release(page, 3);
    await page.locator(`[data-testid="worktree-group"][data-branch="${branchB}"][data-state="ready_to_apply"]`).waitFor();

    // Apply the first from its run view: the report names the file; the badge turns to applied.
    await group(page, "bearagent/report-a").locator(`[data-testid="run-row"][data-run-id="${first}"] [data-testid="run-link"]`).click();
    await succeeded(page, first);
    await page.locator('[data-testid="worktree-panel"][data-state="ready_to_apply"]').waitFor();
    await byId(page, "worktree-apply").click();
    await byId(page, "worktree-report").waitFor();
    assert.equal(await byId(page, "worktree-report-summary").innerText(), "Applied 1 file to the main checkout");
    assert.equal(await byId(page, "worktree-report-applied").locator("code").innerText(), "outputs/report.md");
    assert.equal(await byId(page, "worktree-report-refused").count(), 0);
    await page.locator('[data-testid="worktree-panel"][data-state="applied"]').waitFor();
    assert.equal(await panel(page).getByTestId("worktree-state").innerText(), "applied");
    assert.equal(await page.evaluate((p) => window.__bearagentMock.hasFile(`${p}/outputs/report.md`), PROJECT), true);
    assert.deepEqual(await calls(page, "apply_worktree"), [{ runId: first, paths: [] }]);
    // The conversation notes it after the answer.
    await page.locator('[data-testid="conv-note"]', { hasText: "Applied 1 file to the main checkout" }).waitFor();
    await shot(page, "worktrees-applied");

    // The second rewrote the same lines: refused by name, with the runtime's reason, announced.
    await byId(page, "back-to-runs").click();
    await group(page, branchB).locator(`[data-testid="run-row"][data-run-id="${second}"] [data-testid="run-link"]`).click();
    await succeeded(page, second);
    await page.locator('[data-testid="worktree-panel"][data-state="ready_to_apply"]').waitFor();
    await byId(page, "worktree-apply").click();
    const refused = byId(page, "worktree-report-refused");
    await refused.waitFor();
    assert.equal(await refused.getAttribute("role"), "alert");
    assert.equal(await byId(page, "worktree-report-summary").innerText(), `Applied nothing to the main checkout; refused outputs/report.md (${SAME_LINES})`);
    const file = refused.locator('[data-testid="worktree-refused-file"][data-path="outputs/report.md"]');
    assert.match(await file.innerText(), new RegExp(`outputs/report\\.md — ${SAME_LINES.replace(/'/g, ".")}`));
    // Refusals leave it ready to apply again.
    assert.equal(await panel(page).getAttribute("data-state"), "ready_to_apply");
    await shot(page, "worktrees-refused");

    // Undo the first's apply: the main checkout's report is back as before; it is ready to apply again.
    await byId(page, "back-to-runs").click();
    await group(page, "bearagent/report-a").locator(`[data-testid="run-row"][data-run-id="${first}"] [data-testid="run-link"]`).click();
    await page.locator('[data-testid="worktree-panel"][data-state="applied"]').waitFor();
    await byId(page, "worktree-undo-apply").click();
    assert.equal(await byId(page, "worktree-undone").innerText(), "Apply undone: 1 file back as before.");
    await page.locator('[data-testid="worktree-panel"][data-state="ready_to_apply"]').waitFor();
    assert.deepEqual(await calls(page, "undo_apply"), [{ runId: first, force: false }]);
    await page.locator('[data-testid="conv-note"]', { hasText: "Apply undone: 1 file back as before" }).waitFor();
    await byId(page, "back-to-runs").click();
    await group(page, branchB).locator(`[data-testid="run-row"][data-run-id="${second}"] [data-testid="run-link"]`).click();
    await page.locator('[data-testid="worktree-panel"][data-state="ready_to_apply"]').waitFor();

    // Discard asks first; "Keep it" does nothing.
    await byId(page, "worktree-discard").click();
    const confirm = byId(page, "worktree-discard-confirm");
    await confirm.waitFor();
    assert.equal(await confirm.getAttribute("role"), "alertdialog");
    assert.match(await confirm.innerText(), new RegExp(`Discard this worktree\\? Its folder and the branch ${branchB} are removed`));
    await byId(page, "worktree-discard-no").click();
    await confirm.waitFor({ state: "detached" });
    assert.deepEqual(await calls(page, "discard_worktree"), []);
    await byId(page, "worktree-discard").click();
    await shot(page, "worktrees-discard-confirm");
    await byId(page, "worktree-discard-yes").click();
    await page.locator('[data-testid="worktree-panel"][data-state="discarded"]').waitFor();
    assert.deepEqual(await calls(page, "discard_worktree"), [{ runId: second }]);
    assert.equal(await byId(page, "worktree-apply").isDisabled(), true);
    assert.equal(await byId(page, "worktree-discard").isDisabled(), true);
    await page.locator('[data-testid="conv-note"]', { hasText: "Worktree discarded" }).waitFor();

    // The list shows both states.
    await byId(page, "back-to-runs").click();
    await page.locator('[data-testid="worktree-group"][data-branch="bearagent/report-a"][data-state="ready_to_apply"]').waitFor();
    await page.locator(`[data-testid="worktree-group"][data-branch="${branchB}"][data-state="discarded"]`).waitFor();
    await shot(page, "worktrees-list-done");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a follow-up continues in the same worktree: Apply waits while it runs; both runs list under the worktree", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    const first = await startInWorktree(page, { name: "thread" });
    await release(page, 3);
    await succeeded(page, first);
    await page.locator('[data-testid="worktree-panel"][data-state="ready_to_apply"]').waitFor();
    assert.equal(await byId(page, "worktree-apply").isDisabled(), false);

    await byId(page, "reply-message").fill("Now add a summary section at the top");
    await byId(page, "reply-send").click();
    await page.waitForFunction((id) => document.querySelector('[data-testid="run-view"]')?.dataset.runId !== id, first);
    const followUp = await runIdOf(page);
    // The follow-up works in the same worktree: no Apply while it runs.
    assert.match(await byId(page, "worktree-branch").innerText(), /bearagent\/thread/);
    assert.equal(await byId(page, "worktree-apply").count(), 0);

    // Its parent's Apply waits too, saying why.
    await page.locator(`[data-testid="thread-entry"][data-run-id="${first}"] [data-testid="thread-entry-open"]`).click();
    await page.locator(`[data-testid="run-view"][data-run-id="${first}"]`).waitFor();
    await page.locator('[data-testid="worktree-panel"][data-state="running"]').waitFor();
    assert.equal(await byId(page, "worktree-apply").isDisabled(), true);
    assert.equal(await byId(page, "worktree-discard").isDisabled(), true);
    assert.match(await byId(page, "worktree-wait").innerText(), /in progress: apply or discard it after it ends/);
    await shot(page, "worktrees-follow-up-waits");

    await release(page, 2);
    await page.locator('[data-testid="worktree-panel"][data-state="ready_to_apply"]').waitFor();
    assert.equal(await byId(page, "worktree-apply").isDisabled(), false);

    await byId(page, "back-to-runs").click();
    const rows = group(page, "bearagent/thread").getByTestId("run-row");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="worktree-group"] [data-testid="run-row"]').length === 2);
    assert.deepEqual(await rows.evaluateAll((r) => r.map((row) => row.dataset.runId)), [first, followUp], "oldest first under the header");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the form checks the name, and shows the backend's refusals: not a repository, a name taken", async () => {
  const { page, problems, close } = await ui.openApp(seed({ gateModelCalls: false }));
  try {
    await byId(page, "run-goal").fill(GOAL);
    await byId(page, "run-worktree").check();
    await byId(page, "run-worktree-name").fill("not ok");
    await byId(page, "start-run").click();
    assert.match(await page.locator("#run-worktree-name-error").innerText(), /letters, digits/);
    assert.equal((await calls(page, "start_run")).length, 0);

    // A name whose worktree folder exists already: a conflict, shown on the form.
    await byId(page, "run-approval").selectOption("allow_all");
    await byId(page, "run-worktree-name").fill("taken");
    await byId(page, "start-run").click();
    await byId(page, "run-view").waitFor();
    await byId(page, "back-to-runs").click();
    await byId(page, "run-goal").fill(GOAL);
    await byId(page, "run-approval").selectOption("allow_all");
    await byId(page, "run-worktree").check();
    await byId(page, "run-worktree-name").fill("taken");
    await byId(page, "start-run").click();
    const error = page.locator('[data-testid="new-run"] [data-testid="error"][data-code="conflict"]');
    await error.waitFor();
    assert.match(await error.innerText(), /\/worktrees\/bear-demo-[0-9a-f]{8}\/taken exists already; choose another worktree name/);

    // A workspace that is no git repository.
    await page.evaluate(() => window.__bearagentMock.openFromBackend("/home/dev/projects/notes"));
    await page.locator('[data-testid="new-run"]', { hasText: "New run in notes" }).waitFor();
    await byId(page, "run-goal").fill(GOAL);
    await byId(page, "run-worktree").check();
    await byId(page, "start-run").click();
    const notRepo = page.locator('[data-testid="new-run"] [data-testid="error"][data-code="invalid_input"]');
    await notRepo.waitFor();
    assert.match(await notRepo.innerText(), /is not in a git repository; a worktree needs one/);
    await shot(page, "worktrees-form-error");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a run finishing in the background raises a desktop notification; the run on screen does not", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    // A stand-in for the Web Notifications API, already allowed, recording what is shown.
    await page.evaluate(() => {
      window.__shown = [];
      window.Notification = class {
        static permission = "granted";
        static requestPermission = async () => "granted";
        constructor(title, options) {
          window.__shown.push({ title, body: options?.body ?? null });
        }
      };
    });
    const shown = () => page.evaluate(() => window.__shown);

    const viewed = await startInWorktree(page, { name: "on-screen" });
    await release(page, 3);
    await succeeded(page, viewed);
    assert.deepEqual(await shown(), [], "the run on screen is not notified");

    await byId(page, "back-to-runs").click();
    await startInWorktree(page, { name: "background" });
    await byId(page, "back-to-runs").click();
    await byId(page, "runs-list").waitFor();
    await release(page, 3);
    await page.waitForFunction(() => window.__shown.length === 1);
    assert.deepEqual(await shown(), [{ title: "Run finished", body: GOAL }]);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
