// Chromium flow tests of context size and compaction against the dev-only
// mock backend: a long run that compacts mid-run (its rows, the summary
// loaded on expand, the context meter), Compact on a finished run (the new
// row and the message; an error titled by its code), no meter for older
// runs, and the provider's context window and the profile's compaction in
// Settings.
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
  stepMs: 20,
  streamMs: 5,
  ...extra,
});

async function startRun(page, goal) {
  await byId(page, "run-goal").fill(goal);
  await byId(page, "run-approval").selectOption("allow_all");
  await byId(page, "start-run").click();
  await byId(page, "run-view").waitFor();
  await showEvents(page);
}

const succeeded = (page) => page.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
const calls = (page, cmd) => page.evaluate((name) => window.__bearagentMock.calls.filter((c) => c.cmd === name).map((c) => c.args), cmd);

/** Rows are windowed: scrolls the timeline from the top until `selector` is rendered. */
async function scrollTo(page, selector) {
  await page.evaluate(() => (document.querySelector('[data-testid="timeline"]').scrollTop = 0));
  await page.waitForFunction((sel) => {
    const found = document.querySelector(sel);
    if (found) {
      found.scrollIntoView({ block: "center" });
      return true;
    }
    document.querySelector('[data-testid="timeline"]').scrollTop += 200;
    return false;
  }, selector);
  return page.locator(selector).first();
}

test("a long run compacts twice: each row says how much and what it replaced, Summary loads on expand, the meter counts it", async () => {
  // A 12k-token window (the recorded run's): each long log the run reads fills about a third of it.
  const { page, problems, close } = await ui.openApp(seed({ settings: { providers: [{ ...OPENAI, contextWindow: 12_000 }] } }));
  try {
    await startRun(page, "Find the flaky build in the long logs");
    // While it runs, the meter follows the latest request.
    const meter = byId(page, "context-meter");
    await meter.waitFor();
    assert.equal(await meter.getAttribute("data-window"), "12000");
    await succeeded(page);

    await page.locator('[data-testid="context-meter"][data-compactions="2"]').waitFor();
    assert.match(await byId(page, "context-meter-value").innerText(), /^~\d+(\.\d)?k \/ 12k tokens$/);
    assert.equal(await byId(page, "context-meter-note").innerText(), "compacted 2×");
    assert.match(await meter.innerText(), /Context\s+~[\d.]+k \/ 12k tokens\s+compacted 2×/);
    assert.ok(Number(await meter.getAttribute("data-estimated")) <= 10_200, "the last request fits under the share");

    // Each request row says its estimate against the window.
    const request = await scrollTo(page, '[data-testid="timeline-row"][data-type="model_call_requested"] [data-testid="request-tokens"]');
    assert.match(await request.innerText(), /^· ~[\d.,]+k? of 12k tokens$/);

    const row = await scrollTo(page, '[data-testid="timeline-row"][data-type="context_compacted"]');
    assert.match(await row.innerText(), /Context compacted: ~\d{2},\d{3} → ~[\d,]+ tokens/);
    assert.match(await row.getByTestId("compaction-row").innerText(), /tokens \(\d+% smaller\) · replaced/);
    const body = row.getByTestId("compaction-row");
    const through = Number(await body.getAttribute("data-replaced-through"));
    assert.ok(through > 5);
    assert.equal(await body.getByTestId("compaction-replaced").innerText(), `replaced events #1–#${through}`);
    assert.match(await body.getByTestId("compaction-tokens").innerText(), /^~\d{2},\d{3} → ~[\d,]+ tokens$/);
    assert.equal(await body.getByTestId("compaction-summary").count(), 0, "collapsed until asked");

    const toggle = body.getByTestId("compaction-summary-toggle");
    assert.equal(await toggle.getAttribute("aria-expanded"), "false");
    await toggle.click();
    const summary = body.locator('[data-testid="compaction-summary"][data-state="ready"]');
    await summary.waitFor();
    assert.equal(await toggle.getAttribute("aria-expanded"), "true");
    assert.match(await summary.innerText(), /^Handoff summary \(scripted\): goal: Find the flaky build in the long logs\. \d+ tool results so far/);
    const [read] = await calls(page, "event_text");
    assert.equal(read.runId, await byId(page, "run-view").getAttribute("data-run-id"));
    assert.match(read.blob, /^[0-9a-f]{64}$/);
    await shot(page, "compaction-row-summary");

    // Collapsing and expanding again does not read it twice.
    await toggle.click();
    await summary.waitFor({ state: "detached" });
    await toggle.click();
    await summary.waitFor();
    assert.equal((await calls(page, "event_text")).length, 1);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Compact on a finished run: the row and the message appear, the meter says what the next reply starts from", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    await startRun(page, "Write the report");
    await succeeded(page);
    const runId = await byId(page, "run-view").getAttribute("data-run-id");
    const meter = byId(page, "context-meter");
    await meter.waitFor();
    assert.match(await byId(page, "context-meter-value").innerText(), /^~[\d.]+k \/ 1\.05M tokens$/);
    assert.equal(await byId(page, "context-meter-note").count(), 0, "not compacted yet");
    const lastSeq = Number(await byId(page, "run-view").getAttribute("data-last-seq"));
    assert.equal(await byId(page, "compact-result").isVisible(), false);

    await byId(page, "compact-run").click();
    const result = byId(page, "compact-result");
    await result.waitFor();
    assert.match(await result.innerText(), /^Compacted: ~[\d,]+ → ~[\d,]+ tokens; your next reply starts from the summary$/);
    assert.deepEqual(await calls(page, "compact_run"), [{ runId }]);

    // The committed event joins the timeline as its last row.
    await page.locator(`[data-testid="run-view"][data-last-seq="${lastSeq + 1}"]`).waitFor();
    const row = await scrollTo(page, `[data-testid="timeline-row"][data-seq="${lastSeq + 1}"]`);
    assert.equal(await row.getAttribute("data-type"), "context_compacted");
    assert.equal(await row.getByTestId("compaction-replaced").innerText(), `replaced events #1–#${lastSeq}`);
    await row.getByTestId("compaction-summary-toggle").click();
    assert.match(await row.locator('[data-testid="compaction-summary"][data-state="ready"]').innerText(), /^Handoff summary \(scripted\): goal: Compare the architecture notes[\s\S]*3 tool results so far/);
    await page.locator('[data-testid="context-meter"][data-compactions="1"]').waitFor();
    assert.match(await byId(page, "context-meter-note").innerText(), /^compacted 1× · next request ~[\d.,]+k?$/);
    // The summarising call counts as a model call; the run is still a success.
    await page.locator('[data-testid="budget-meters"] [data-meter="model_calls"][data-used="5"]').waitFor();
    assert.equal(await byId(page, "run-view").getAttribute("data-status"), "succeeded");
    await shot(page, "compaction-by-hand");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Compact errors are titled by code; runs recorded before estimates have no meter", async () => {
  // The provider refuses connections: summarising fails with `unavailable`.
  const refusing = { ...OPENAI, baseUrl: "http://localhost:9/v1" };
  const run = { runId: "r-old", status: "succeeded", goal: "Summarise open TODOs", createdAt: "2025-03-13T16:20:00Z", updatedAt: "2025-03-13T16:20:42Z", statusDetail: null, modelCalls: 1, toolCalls: 0, inputTokens: 1_200, outputTokens: 80 };
  const { page, problems, close } = await ui.openApp(seed({ settings: { providers: [refusing] }, runs: { [PROJECT]: [run] } }));
  try {
    await page.evaluate(() => (window.location.hash = "#/run/r-old"));
    await page.locator('[data-testid="run-view"][data-run-id="r-old"][data-status="succeeded"]').waitFor();
    await byId(page, "reply-box").waitFor();
    assert.equal(await byId(page, "context-meter").count(), 0, "no request of this run says its size");
    const lastSeq = await byId(page, "run-view").getAttribute("data-last-seq");

    await byId(page, "compact-run").click();
    const error = byId(page, "compact-error").getByTestId("error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "unavailable");
    assert.match(await error.innerText(), /^The model could not summarise the run; nothing was changed\s+the run could not be compacted/);
    assert.equal(await byId(page, "compact-result").isVisible(), false);
    assert.equal(await byId(page, "run-view").getAttribute("data-last-seq"), lastSeq, "no event was recorded");
    await shot(page, "compaction-error");
    await error.getByRole("button", { name: "Dismiss error" }).click();
    await byId(page, "compact-error").waitFor({ state: "detached" });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("settings: the provider's context window and the profile's compaction validate, save and round-trip", async () => {
  const profile = {
    name: "careful",
    provider: "openai",
    approvalMode: "ask_writes",
    budgets: { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null },
    contextCaps: { max_context_bytes: 400_000, max_tool_result_bytes: 16_384, compact_at_permille: 700 },
    commands: { sandbox: true, network: false, max_timeout_secs: 600, toolchain_dirs: [".cargo"], env: [], rules: [] },
    mcpRules: {},
  };
  const { page, problems, close } = await ui.openApp({ settings: { providers: [OPENAI], profiles: [profile] } }, { hash: "#/settings" });
  try {
    // Provider: unchanged, it saves without a window (the model's default).
    const provider = page.locator('[data-testid="provider-item"][data-name="openai"]');
    assert.equal(await provider.getByTestId("provider-window-text").innerText(), "context window: the model's default");
    await provider.getByRole("button", { name: "Edit openai" }).click();
    const window = byId(page, "provider-context-window");
    assert.equal(await window.inputValue(), "");
    await byId(page, "save-provider").click();
    await byId(page, "provider-form").waitFor({ state: "detached" });
    assert.equal((await calls(page, "save_provider"))[0].provider.contextWindow, null);

    await provider.getByRole("button", { name: "Edit openai" }).click();
    await window.fill("500");
    await byId(page, "save-provider").click();
    const windowError = page.locator("#provider-context-window-error");
    await windowError.waitFor();
    assert.match(await windowError.innerText(), /whole number of tokens from 1,000 to 10,000,000/);
    assert.equal(await window.getAttribute("aria-invalid"), "true");
    assert.equal((await calls(page, "save_provider")).length, 1, "nothing sent");
    await window.fill("128,000");
    await byId(page, "save-provider").click();
    await byId(page, "provider-form").waitFor({ state: "detached" });
    assert.equal((await calls(page, "save_provider"))[1].provider.contextWindow, 128_000);
    assert.equal(await provider.getByTestId("provider-window-text").innerText(), "context window 128,000 tokens");
    await provider.getByRole("button", { name: "Edit openai" }).click();
    assert.equal(await window.inputValue(), "128000");
    await byId(page, "provider-form").getByRole("button", { name: "Cancel" }).click();

    // Profile: unchanged, it round-trips its 0.7.
    const item = page.locator('[data-testid="profile-item"][data-name="careful"]');
    assert.equal(await item.getByTestId("profile-compaction").innerText(), "Context: compacts at 0.7 of the window");
    await item.getByRole("button", { name: "Edit careful" }).click();
    const share = byId(page, "profile-compact-at");
    const enabled = byId(page, "profile-compaction-enabled");
    assert.equal(await share.inputValue(), "0.7");
    assert.equal(await enabled.isChecked(), true);
    await byId(page, "save-profile").click();
    await byId(page, "profile-form").waitFor({ state: "detached" });
    assert.deepEqual((await calls(page, "save_profile"))[0].profile.contextCaps, profile.contextCaps);

    await item.getByRole("button", { name: "Edit careful" }).click();
    await share.fill("1.5");
    await byId(page, "save-profile").click();
    const shareError = page.locator("#profile-compact-at-error");
    await shareError.waitFor();
    assert.match(await shareError.innerText(), /share of the window from 0\.1 to 0\.99/);
    assert.equal((await calls(page, "save_profile")).length, 1, "nothing sent");
    await shot(page, "compaction-settings-error");
    await share.fill("0.8");
    await byId(page, "save-profile").click();
    await byId(page, "profile-form").waitFor({ state: "detached" });
    assert.equal((await calls(page, "save_profile"))[1].profile.contextCaps.compact_at_permille, 800);
    assert.equal(await item.getByTestId("profile-compaction").innerText(), "Context: compacts at 0.8 of the window");

    // Off: the share is kept but not used (nor checked); the profile says null.
    await item.getByRole("button", { name: "Edit careful" }).click();
    await enabled.uncheck();
    assert.equal(await share.isDisabled(), true);
    await share.evaluate((el) => el.removeAttribute("disabled"));
    await share.fill("nonsense");
    await byId(page, "save-profile").click();
    await byId(page, "profile-form").waitFor({ state: "detached" });
    assert.equal((await calls(page, "save_profile"))[2].profile.contextCaps.compact_at_permille, null);
    assert.match(await item.getByTestId("profile-compaction").innerText(), /compaction off/);
    await item.getByRole("button", { name: "Edit careful" }).click();
    assert.equal(await enabled.isChecked(), false);
    assert.equal(await share.isDisabled(), true);
    await shot(page, "compaction-settings-off");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
