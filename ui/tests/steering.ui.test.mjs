// Chromium flow test of steering a run against the dev-only mock backend:
// "Plan first" starts a plan-mode run whose answer is a Plan card; Approve
// plan starts the follow-up that carries it out; its todo list updates live
// around a command approval remembered for the workspace; Settings lists
// the remembered approval and removes it.
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
const APPROVAL = "The plan is approved. Carry it out now, step by step.";
const seed = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] }, stepMs: 30, streamMs: 10 };
const calls = (page, cmd) => page.evaluate((name) => window.__bearagentMock.calls.filter((c) => c.cmd === name).map((c) => c.args), cmd);

async function startPlanRun(page) {
  await byId(page, "run-goal").fill("Make the parser accept empty input");
  await byId(page, "run-plan-first").check();
  await byId(page, "start-run").click();
  await byId(page, "run-view").waitFor();
  const [{ request }] = await calls(page, "start_run");
  assert.equal(request.planMode, true);
}

async function approvePlan(page) {
  const planRun = await byId(page, "run-view").getAttribute("data-run-id");
  await byId(page, "plan-card").waitFor();
  assert.match(await byId(page, "plan-card").innerText(), /Plan[\s\S]*Run `make test`/);
  await byId(page, "plan-mode-badge").waitFor();
  await showEvents(page);
  assert.match(await page.locator('[data-testid="timeline-row"][data-type="run_created"]').innerText(), /Run created · plan mode/);
  await byId(page, "conversation-tab").click();
  await byId(page, "approve-plan").click();
  await page.locator(`[data-testid="run-view"]:not([data-run-id="${planRun}"])`).waitFor();
  const [reply] = await calls(page, "reply_to_run");
  assert.deepEqual({ runId: reply.runId, message: reply.message }, { runId: planRun, message: APPROVAL });
  assert.match(await byId(page, "conv-user").first().innerText(), /Carry it out now/);
}

test("plan first, approve the plan, a live todo list, and an approval remembered for the workspace", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    await startPlanRun(page);
    await approvePlan(page);

    // The follow-up's list: one step done while its command waits for approval.
    const summary = byId(page, "todo-summary");
    await page.locator('[data-testid="todo-summary"]', { hasText: "1 of 3 done" }).waitFor();
    assert.deepEqual(await page.locator('[data-testid="todo-item"]').evaluateAll((items) => items.map((i) => i.dataset.status)), ["completed", "in_progress", "pending"]);
    await shot(page, "steering-todo");

    await byId(page, "allow-prefix-remember").selectOption("workspace");
    await byId(page, "approve-prefix").click();
    const [{ decision }] = await calls(page, "decide_approval");
    assert.equal(decision.remember, "workspace");
    await page.locator('[data-testid="todo-summary"]', { hasText: "3 of 3 done" }).waitFor();
    assert.equal(await summary.innerText(), "3 of 3 done");

    await byId(page, "nav-settings").click();
    const rule = page.locator(`[data-testid="remembered-rule"][data-prefix="${decision.allowPrefix}"]`);
    await rule.waitFor();
    assert.match(await rule.innerText(), new RegExp(`allow ${decision.allowPrefix} in ${PROJECT}`));
    await shot(page, "steering-remembered");
    await rule.getByTestId("remembered-remove").click();
    await byId(page, "remembered-empty").waitFor();
    const [forgot] = await calls(page, "forget_rule");
    assert.match(forgot.id, /^[0-9a-f]{12}$/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a plan edited before approval: the follow-up's message carries the person's version", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    await startPlanRun(page);
    const planRun = await byId(page, "run-view").getAttribute("data-run-id");
    await byId(page, "plan-card").waitFor();
    await byId(page, "edit-plan").click();
    const editor = byId(page, "plan-editor");
    const original = await editor.inputValue();
    assert.match(original, /Run `make test`/);
    assert.equal(await byId(page, "approve-plan").innerText(), "Approve plan", "an untouched draft approves the plan as it is");
    const mine = original.replace("Run `make test`", "Run `make check` and `make test`");
    await editor.fill(mine);
    await byId(page, "plan-edited").waitFor();
    assert.equal(await byId(page, "approve-plan").innerText(), "Approve edited plan");
    await shot(page, "steering-plan-edited");
    await byId(page, "approve-plan").click();
    await page.locator(`[data-testid="run-view"]:not([data-run-id="${planRun}"])`).waitFor();
    const [reply] = await calls(page, "reply_to_run");
    assert.equal(reply.runId, planRun);
    assert.ok(reply.message.startsWith(APPROVAL), reply.message);
    assert.match(reply.message, /Carry out my version below/);
    assert.match(reply.message, /Run `make check` and `make test`/);
    assert.match(await byId(page, "conv-user").first().innerText(), /make check/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
