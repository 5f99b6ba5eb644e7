// Chromium flow of a web-process recycle (src-tauri/src/web_process.rs) as
// the page sees it, against the dev-only mock: left alone on a run's Events
// view scrolled into the middle, the page offers itself; the shell ends its
// web process and loads the page again (here: a reload, as the mock has no
// process to end). The new page shows the same run, in the same tab, at the
// same place. The real app's recycle is tested in
// tests/desktop/recycle.e2e.test.mjs.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { byId, shot, showEvents, startUi } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const RUN = "0190a000-0000-7000-8000-0000000c0001";
const seed = { recent: [PROJECT], current: PROJECT, recorded: { [PROJECT]: [{ runId: RUN, scenario: "twenty", take: 0 }] }, recycleIdleMs: 500 };

test("recycled while idle: the page comes back on the same run, in its Events tab, at the same row", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await page.setViewportSize({ width: 1400, height: 700 });
    await page.locator('[data-testid="conversation"][data-loaded="true"]').waitFor();
    await showEvents(page);
    await byId(page, "timeline").evaluate((el) => (el.scrollTop = el.scrollHeight * 0.6));
    await page.waitForTimeout(200);
    const firstRow = () =>
      page.evaluate(() => {
        const viewport = document.querySelector('[data-testid="timeline"]');
        const top = viewport.getBoundingClientRect().top;
        return [...viewport.querySelectorAll('[data-testid="timeline-row"]')].find((r) => r.getBoundingClientRect().bottom > top + 1)?.dataset.seq;
      });
    const before = await firstRow();
    assert.ok(Number(before) > 20, `scrolled into the run (first row seq ${before})`);

    // The page settles (5 s), then offers itself after the idle time.
    const offered = () => page.evaluate(() => window.__bearagentMock.calls.some((c) => c.cmd === "page_idle"));
    for (let i = 0; i < 80 && !(await offered()); i++) await page.waitForTimeout(100);
    assert.ok(await offered(), "the idle page offered itself");
    await page.reload();
    await page.locator('.shell[data-ready="true"]').waitFor();
    assert.equal(await byId(page, "timeline-tab").getAttribute("aria-selected"), "true", "the Events tab again");
    await page.locator('.timeline[data-loaded="true"]').waitFor();
    await page.waitForTimeout(300);
    assert.equal(await firstRow(), before, "the same first row");
    await shot(page, "recycle-restored");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
