// Scroll memory: what the web process keeps after scrolling a finished run.
// A run of ~12 000 events (BENCH_EVENTS) is recorded through the CLI; the
// app opens it on the Events tab and scrolls its timeline top → bottom,
// one viewport per frame (every row is mounted once), three times; then
// the blank Tauri window does the same over a plain list of as many rows. PSS of each process after
// each pass (5 s idle). Every row mounted on the way is garbage afterwards,
// so this shows how high the page's memory climbs before it is collected.
// With JSC_logGC=1 in the environment the web process logs each garbage
// collection (heap size before and after) to stderr.
//
//   npm run bench:scroll-memory        (~6 min on 2 CPUs)
import { setTimeout as sleep } from "node:timers/promises";
import { machine, bins, requireBins, withSandbox, launch, close, recordRun, openWorkspace, appendPlainList, byTestId, showTab, WAIT, treeMemory, breakdown } from "./lib.mjs";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 12_000);
const PASSES = 3;
const IDLE_MS = 5_000;
/** The blank window's list, about as tall as the app's timeline in an 800-px screen. */
const LIST_HEIGHT_PX = 700;

requireBins("app", "blank", "cli");

const processes = (tree, bin) => breakdown(treeMemory(tree.appPid(bin)));

/** Top → bottom of `selector`, one viewport per frame; returns the scrolled height. */
const scrollPass = (browser, selector) =>
  browser.execute(async (selector) => {
    const el = document.querySelector(selector);
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    el.scrollTop = 0;
    await frame();
    while (el.scrollTop + el.clientHeight < el.scrollHeight - 1) {
      el.scrollTop += el.clientHeight;
      await frame();
    }
    return el.scrollHeight;
  }, selector);

async function passes(label, tree, bin, browser, selector) {
  await sleep(IDLE_MS);
  console.log(`${label}, opened: ${processes(tree, bin)}`);
  for (let i = 1; i <= PASSES; i++) {
    const height = await scrollPass(browser, selector);
    await sleep(IDLE_MS);
    console.log(`${label}, after pass ${i} (${height} px): ${processes(tree, bin)}`);
  }
}

await withSandbox(async ({ sandbox, startTree }) => {
  const recorded = await recordRun(sandbox, EVENTS);
  const tree = await startTree();
  console.log(`BearAgent scroll memory — ${recorded.lastSeq} events; ${machine()}`);
  const app = await launch(tree, bins.app);
  try {
    await openWorkspace(app, sandbox.workspace, { byTestId, WAIT });
    await app.$(`[data-testid="run-row"][data-run-id="${recorded.runId}"] [data-testid="run-link"]`).click();
    await showTab(app, "timeline-tab");
    await app.$(`.timeline[data-loaded="true"][data-count="${recorded.lastSeq}"]`).waitForExist(WAIT);
    await passes("app timeline", tree, bins.app, app, '[data-testid="timeline"]');
  } finally {
    await close(app, tree, bins.app);
  }
  const blank = await launch(tree, bins.blank);
  try {
    await blank.$("#blank").waitForExist(WAIT);
    await appendPlainList(blank, recorded.lastSeq, LIST_HEIGHT_PX);
    await passes("blank window list", tree, bins.blank, blank, "#list");
  } finally {
    await close(blank, tree, bins.blank);
  }
});
