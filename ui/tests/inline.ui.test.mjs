// Chromium flow of an edit card's inline diff (issue 57, point 1) against
// the dev-only mock and the run the Rust app recorded (scenario changes):
// the card of the call that alone wrote docs/guide.md shows the file's
// diff under it without a click — both its hunks, each with Revert — and
// reverting hunk 1 there reverts it in the file (the Changes tab agrees);
// the other hunk stays, renumbered.
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
const RUN = "run-changes";
const seed = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] }, recorded: { [PROJECT]: [{ runId: RUN, scenario: "changes" }] } };
const guideCard = (page) => page.locator('[data-testid="tool-card"]', { has: page.locator('[data-testid="card-summary"]', { hasText: "docs/guide.md" }) });

test("an edit's card shows its small diff inline without a click, and reverts a hunk from it", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    // The conversation is windowed: the card is further down.
    await page.locator('[data-testid="conversation"][data-loaded="true"]').waitFor();
    await page.locator('[data-testid="conversation"]').evaluate((root) => {
      for (const el of [root, ...root.querySelectorAll("*")]) if (el.scrollHeight > el.clientHeight + 10) el.scrollTop = el.scrollHeight;
    });
    const card = guideCard(page).first();
    await card.scrollIntoViewIfNeeded();
    const inline = card.getByTestId("card-inline-diff");
    await inline.locator('[data-testid="hunk-revert"][data-hunk="2"]').waitFor();
    assert.equal(await card.getAttribute("data-open"), "false", "no click: the card is closed");
    assert.equal(await inline.getAttribute("data-hunks"), "2");
    assert.equal(await inline.getByTestId("inline-diff-more").count(), 0, "small: shown whole");
    assert.deepEqual(await inline.locator('[data-testid="diff-line"]:not([data-kind="context"])').evaluateAll((rows) => rows.map((r) => r.dataset.kind)), [
      "removed",
      "added",
      "removed",
      "added",
    ]);
    await shot(page, "inline-diff-card");

    await inline.locator('[data-testid="hunk-revert"][data-hunk="1"]').click();
    await page.waitForFunction(() => window.__bearagentMock.calls.some((c) => c.cmd === "revert_hunks"));
    await card.locator('[data-testid="card-inline-diff"][data-hunks="1"]').waitFor();
    const [call] = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "revert_hunks").map((c) => c.args));
    assert.deepEqual(call, { runId: RUN, path: "docs/guide.md", hunks: [1], force: false });
    assert.match(await card.getByTestId("card-inline-diff").innerText(), /Languages: English, French, Spanish\./);
    assert.equal(await card.getByTestId("card-review").getAttribute("data-state"), "partial");
    await shot(page, "inline-diff-hunk-reverted");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("per-hunk Keep: hunk 2 kept from the card by key, hunk 1 reverted in Changes; the kept mark follows its hunk", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    await page.locator('[data-testid="conversation"][data-loaded="true"]').waitFor();
    await page.locator('[data-testid="conversation"]').evaluate((root) => {
      for (const el of [root, ...root.querySelectorAll("*")]) if (el.scrollHeight > el.clientHeight + 10) el.scrollTop = el.scrollHeight;
    });
    const card = guideCard(page).first();
    const inline = card.getByTestId("card-inline-diff");
    // n / p move between the hunks' buttons, k keeps the one focused.
    await inline.locator('[data-testid="hunk-revert"][data-hunk="2"]').focus();
    await page.keyboard.press("k");
    await inline.locator('[data-testid="inline-hunk"][data-hunk="2"][data-kept="true"]').waitFor();
    const kept = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "keep_hunks").map((c) => c.args));
    assert.deepEqual(kept, [{ runId: RUN, path: "docs/guide.md", hunks: [2] }]);
    await page.locator('[data-type="artifact_hunks_kept"], [data-testid="conv-note"]', { hasText: "Hunk 2 of a file kept docs/guide.md" }).first().waitFor();
    await shot(page, "inline-hunk-kept");

    await byId(page, "changes-tab").click();
    await page.locator('[data-testid="artifact-row"][data-path="docs/guide.md"] [data-testid="artifact-select"]').click();
    await page.locator('[data-testid="diff-view"] [data-testid="hunk-kept"][data-hunk="2"]').waitFor();
    assert.equal(await page.locator('[data-testid="diff-view"] [data-testid="hunk-keep"][data-hunk="1"]').count(), 1);
    await page.locator('[data-testid="diff-view"] [data-testid="hunk-revert"][data-hunk="1"]').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="diff-view"] [data-testid="diff-hunk"]').length === 1);
    // What is left is the kept hunk, now hunk 1.
    await page.locator('[data-testid="diff-view"] [data-testid="hunk-kept"][data-hunk="1"]').waitFor();
    await shot(page, "changes-hunk-kept-and-reverted");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
