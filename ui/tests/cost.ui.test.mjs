// Chromium flow tests of run cost against the dev-only mock backend: a max
// cost from the new-run form, the cost in the run view (header, meter, each
// model call) and the run list, the cost limit stopping a run, the field
// errors that block a bad limit, and a provider's price in Settings.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OPENAI, OPENAI_PRICED, byId, shot, showEvents, startUi } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const seed = (providers) => ({ recent: [PROJECT], current: PROJECT, settings: { providers }, stepMs: 20, streamMs: 5 });
const calls = (page, cmd) => page.evaluate((name) => window.__bearagentMock.calls.filter((c) => c.cmd === name).map((c) => c.args), cmd);
const fieldError = (page, id) => page.locator(`#${id}-error`);

/** Fills the new-run form with a goal, no approvals and a max cost, and submits it. */
async function submitRun(page, goal, maxCost) {
  await byId(page, "run-goal").fill(goal);
  await byId(page, "run-approval").selectOption("allow_all");
  await byId(page, "new-run").locator("summary").filter({ hasText: "Budgets" }).click();
  await byId(page, "run-budget-max-cost").fill(maxCost);
  await byId(page, "start-run").click();
}

const meterOf = (page, key) =>
  byId(page, "budget-meters")
    .locator(`[data-meter="${key}"]`)
    .evaluate((el) => ({ used: Number(el.dataset.used), limit: Number(el.dataset.limit), text: el.querySelector(".value").textContent }));

test("a run with a max cost: the limit is sent, the run view and the run list show what it cost", async () => {
  const { page, problems, close } = await ui.openApp(seed([OPENAI_PRICED]));
  try {
    await submitRun(page, "Compare the architecture notes and write outputs/report.md", "$0.50");
    await byId(page, "run-view").waitFor();
    await showEvents(page);
    const [{ request }] = await calls(page, "start_run");
    assert.equal(request.budgets.max_cost_micro_usd, 500_000);

    await page.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
    // Four calls at $2 / $8 per MTok: 5,284 + 6,488 + 18,980 + 17,484 micro-USD.
    const header = byId(page, "run-view").getByTestId("run-cost");
    await page.locator('[data-testid="run-view"] [data-testid="run-cost"][data-cost="48236"]').waitFor();
    assert.match(await header.innerText(), /Cost\s*\$0\.0482/);
    assert.deepEqual(await meterOf(page, "cost"), { used: 48_236, limit: 500_000, text: "$0.0482 / $0.5000" });
    // Each model call shows its own cost next to its tokens (the timeline is windowed: check the rows shown).
    const perCall = await page.locator('[data-type="model_call_completed"] [data-testid="call-cost"]').evaluateAll((els) => els.map((e) => Number(e.dataset.cost)));
    assert.ok(perCall.length > 0 && perCall.every((c) => [5_284, 6_488, 18_980, 17_484].includes(c)), `per-call costs: ${perCall}`);
    await page.evaluate(() => (document.querySelector('[data-testid="timeline"]').scrollTop = 0));
    const first = page.locator('[data-testid="timeline-row"][data-type="model_call_completed"]').first();
    await page.locator('[data-testid="timeline-row"][data-seq="5"]').waitFor();
    assert.match(await first.innerText(), /2,410 input · 58 output tokens · \$0\.0053 · stop: tool use/);
    await shot(page, "cost-run-view");

    await byId(page, "back-to-runs").click();
    const row = page.locator('[data-testid="run-row"][data-status="succeeded"]');
    await row.waitFor();
    assert.equal(await row.getByTestId("run-cost").innerText(), "$0.0482");
    await shot(page, "cost-run-list");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the cost limit stops a run before a call that could pass it, and says so", async () => {
  const { page, problems, close } = await ui.openApp(seed([OPENAI_PRICED]));
  try {
    // $0.09: the fourth call's worst case (its prompt plus 8,192 output tokens) would pass it.
    await submitRun(page, "Summarise the notes into outputs/report.md", "0.05");
    const outcome = page.locator('[data-testid="run-outcome"][data-status="budget_exhausted"]');
    await outcome.waitFor();
    assert.match(await byId(page, "run-outcome-detail").innerText(), /Stopped before the next model call: it could have taken the cost past the limit \(\$0\.0500\)/);
    const meter = await meterOf(page, "cost");
    assert.ok(meter.used > 0 && meter.used < meter.limit, `spent below the limit: ${JSON.stringify(meter)}`);
    // Events opens a finished run at its beginning: its end is the last row.
    await showEvents(page);
    await page.getByTestId("timeline").evaluate((el) => (el.scrollTop = el.scrollHeight));
    const row = page.locator('[data-testid="timeline-row"][data-type="budget_exhausted"]');
    await row.waitFor();
    assert.match(await row.innerText(), /Cost limit reached[\s\S]*past its cost limit of \$0\.0500/);
    await shot(page, "cost-limit-reached");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a max cost of 0, junk, or one the provider cannot price is a field error and nothing starts", async () => {
  const { page, problems, close } = await ui.openApp(seed([OPENAI]));
  try {
    await submitRun(page, "Tidy the docs", "0");
    await fieldError(page, "run-budget-maxCostUsd").waitFor();
    assert.match(await fieldError(page, "run-budget-maxCostUsd").innerText(), /more than \$0; leave it empty for no cost limit/);
    assert.equal(await page.locator("#run-budget-maxCostUsd").getAttribute("aria-invalid"), "true");
    await shot(page, "cost-field-error");

    await byId(page, "run-budget-max-cost").fill("five dollars");
    await byId(page, "start-run").click();
    await page.waitForFunction(() => /Enter an amount in USD/.test(document.querySelector("#run-budget-maxCostUsd-error")?.textContent ?? ""));

    // openai has no price here: the hint says so and the limit is refused before the backend would.
    assert.match(await page.locator("#run-budget-maxCostUsd-hint").innerText(), /openai has no price/);
    await byId(page, "run-budget-max-cost").fill("1");
    await byId(page, "start-run").click();
    await page.waitForFunction(() => /openai has no price, so a cost limit cannot be checked/.test(document.querySelector("#run-budget-maxCostUsd-error")?.textContent ?? ""));
    assert.equal((await calls(page, "start_run")).length, 0);

    // Empty again: no cost limit, the run starts, and its cost is unknown rather than $0.
    await byId(page, "run-budget-max-cost").fill("");
    await byId(page, "start-run").click();
    await byId(page, "run-view").waitFor();
    const [{ request }] = await calls(page, "start_run");
    assert.equal(request.budgets.max_cost_micro_usd, null);
    const header = page.locator('[data-testid="run-view"] [data-testid="run-cost"]');
    assert.equal(await header.getAttribute("data-cost"), "unknown");
    assert.match(await header.innerText(), /unknown — provider has no price/);
    assert.equal(await byId(page, "budget-meters").locator('[data-meter="cost"]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("settings: a provider's price is optional, validated like the other fields, and shown", async () => {
  const { page, problems, close } = await ui.openApp(seed([OPENAI]), { hash: "#/settings" });
  try {
    const card = page.locator('[data-testid="provider-item"][data-name="openai"]');
    assert.match(await card.getByTestId("provider-price-text").innerText(), /no price: run cost unknown/);
    await card.getByRole("button", { name: "Edit openai" }).click();
    const form = byId(page, "provider-form");
    assert.match(await form.getByTestId("price-note").innerText(), /Cost will show as unknown/i);

    // Only a cached price: input and output are needed too; a negative one is refused.
    await form.getByLabel("Cached input $/MTok", { exact: true }).fill("0.5");
    await form.getByLabel("Output $/MTok", { exact: true }).fill("-8");
    await byId(page, "save-provider").click();
    await fieldError(page, "provider-price-input").waitFor();
    assert.match(await fieldError(page, "provider-price-input").innerText(), /Input price is needed too/);
    assert.match(await fieldError(page, "provider-price-output").innerText(), /0 or more/);
    assert.equal((await calls(page, "save_provider")).length, 0);
    await shot(page, "settings-price-validation");

    await form.getByLabel("Input $/MTok", { exact: true }).fill("2");
    await form.getByLabel("Output $/MTok", { exact: true }).fill("$8");
    await byId(page, "save-provider").click();
    await byId(page, "provider-form").waitFor({ state: "detached" });
    const [{ provider }] = await calls(page, "save_provider");
    assert.deepEqual(provider.price, { inputPerMtok: 2, outputPerMtok: 8, cachedInputPerMtok: 0.5 });
    assert.equal(await card.getByTestId("provider-price-text").innerText(), "$2.00 in · $8.00 out · $0.50 cached per MTok");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
