// Timeline benchmark against the REAL app (release build, WebKitGTK under
// Xvfb, driven through tauri-driver): a finished run of ~20 000 events is
// recorded through the CLI with a scripted model into the BEARAGENT_HOME the
// app then opens. In the app:
//   1. first paint of the run view: the user clicks the run in the runs list
//      → first timeline rows painted (goal < 300 ms); and until all events
//      are paged in;
//   2. a scroll pass top → bottom, one viewport per frame, frame times from
//      the page's requestAnimationFrame (goal p95 < 20 ms), over the Events
//      timeline and over the Conversation view (the view a run opens in) of
//      the same run, each against the baseline below;
//   3. `list_events` pages of 500 over the real IPC, invoked from inside the
//      page exactly as ui/src/bindings.ts does (goal < 20 ms per page).
// The measuring follows ui/bench/timeline.bench.mjs (mocked IPC, Chromium).
//
// Rendering modes: under Xvfb there is no GPU. Without one the app paints on
// the CPU without compositing (src-tauri/src/webkit_env.rs), while the blank
// window keeps WebKit's default (accelerated compositing on Mesa's software
// GL). So 1 and 2 run twice: as each starts by default, and both with
// WEBKIT_DISABLE_COMPOSITING_MODE=1 (WebKit's own switch), which leaves the
// app's own cost (script, style, layout, paint). Baseline for 2: the same
// scroll pass over a plain list of text rows injected into the blank Tauri
// window (tests/desktop/blank-window), in the same mode.
//
//   npm run bench:timeline        (BENCH_EVENTS=… to change the size;
//                                  BENCH_INJECT_CSS='…' adds a style sheet to
//                                  the app's page first: a what-if for the
//                                  styles, the app itself unchanged)
import { machine, bins, requireBins, withSandbox, launch, close, recordRun, openWorkspace, injectStyle, appendPlainList, byTestId, showTab, WAIT, median, quantile, ms, ratio, verdict } from "./lib.mjs";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const NAV_RUNS = 7;
const PAGES = 20;
const PAGE = 500;
const BASELINE_ROWS = 2_000;
const GOAL = { firstPaint: 300, p95Frame: 20, page: 20 };
// Software compositing can make a frame ~100 ms: cap each pass so the bench
// stays within minutes; the figures then cover the part scrolled.
const SCROLL_CAP_MS = Number(process.env.BENCH_SCROLL_CAP_S ?? 120) * 1000;
const INJECT_CSS = process.env.BENCH_INJECT_CSS ?? "";
const MODES = [
  { name: "default rendering (without a GPU the app paints on the CPU without compositing, src-tauri/src/webkit_env.rs; the blank window composites on software GL)", env: null },
  { name: "WEBKIT_DISABLE_COMPOSITING_MODE=1", env: "1" },
];

requireBins("app", "blank", "cli");

/**
 * Clicks the run's link in the runs list; times the first rows of the view a
 * run opens in (Conversation) in the DOM and painted, then switches to
 * Events and times until all events are paged in and listed.
 */
function openRun(app, runId, count) {
  return app.execute(
    async (runId, count) => {
      const link = document.querySelector(`[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-link"]`);
      if (!link) throw new Error("run link not found");
      const t0 = performance.now();
      const first = await new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          const rows = document.querySelectorAll('[data-testid="conversation-list"] [data-index], [data-testid="timeline-row"]');
          if (rows.length === 0) return;
          observer.disconnect();
          const inDom = performance.now() - t0;
          // rAF runs just before the frame is rendered; a task queued from it
          // runs after that frame: the rows have been painted by then.
          requestAnimationFrame(() => setTimeout(() => resolve({ inDom, painted: performance.now() - t0, rows: rows.length }), 0));
        });
        observer.observe(document.body, { childList: true, subtree: true });
        link.click();
      });
      document.querySelector('[data-testid="timeline-tab"]').click();
      const loaded = () => document.querySelector(`.timeline[data-loaded="true"][data-count="${count}"]`);
      while (!loaded()) await new Promise((r) => setTimeout(r, 5));
      return { ...first, allLoaded: performance.now() - t0 };
    },
    runId,
    count,
  );
}

/** Back to the runs list (the run view's own link), waiting until the list is there and settled. */
async function backToRuns(app, runId) {
  await byTestId(app, "back-to-runs").click();
  await app.$(`[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-link"]`).waitForExist(WAIT);
  await app.pause(300);
}

/**
 * One viewport per frame from the top of `selector` to its bottom (at most
 * `capMs`); frame times from rAF timestamps. `rows` selects the list's rows
 * and `key` names the data attribute with a row's position (`lastSeq` is
 * the largest seen at the end: how far the pass got).
 */
function scrollPass(browser, selector, rows = '[data-testid="timeline-row"]', key = "seq") {
  return browser.execute(
    async (selector, capMs, rows, key) => {
      const el = document.querySelector(selector);
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      el.scrollTop = 0;
      await frame();
      await frame();
      const frames = [];
      let last = await frame();
      const start = last;
      let rendered = 0;
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 1 && last - start < capMs) {
        el.scrollTop += el.clientHeight;
        const now = await frame();
        frames.push(now - last);
        last = now;
        rendered = Math.max(rendered, document.querySelectorAll(rows).length);
      }
      const seqs = [...document.querySelectorAll(rows)].map((r) => Number(r.dataset[key]));
      const reached = (el.scrollTop + el.clientHeight) / el.scrollHeight;
      return { frames, totalMs: last - start, scrollHeight: el.scrollHeight, height: el.clientHeight, maxRowsInDom: rendered, lastSeq: Math.max(0, ...seqs), reached };
    },
    selector,
    SCROLL_CAP_MS,
    rows,
    key,
  );
}

/**
 * The Conversation view of the run, as it opens: back to the runs list,
 * the run opened again (on its Conversation tab), all of it folded in.
 * Returns how many items it lists.
 */
async function openConversation(app, runId) {
  await backToRuns(app, runId);
  await app.$(`[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-link"]`).click();
  await showTab(app, "conversation-tab");
  await app.$('.conversation[data-loaded="true"]').waitForExist(WAIT);
  // Loaded, then the count settled: the fold has every event.
  let count = -1;
  for (;;) {
    await app.pause(500);
    const now = Number(await app.execute(() => document.querySelector('[data-testid="conversation"]')?.dataset.count ?? 0));
    if (now === count && now > 0) return count;
    count = now;
  }
}

/** The baseline: a plain scrolling list of text rows, as tall as the app's timeline, in the blank window. */
async function baselinePass(tree, height) {
  const blank = await launch(tree, bins.blank);
  try {
    await blank.$("#blank").waitForExist(WAIT);
    await appendPlainList(blank, BASELINE_ROWS, height);
    await blank.pause(500);
    return await scrollPass(blank, "#list");
  } finally {
    await close(blank, tree, bins.blank);
  }
}

/** `list_events` pages spread over the run, and a trivial command as the IPC floor, timed in the page. */
function pageOverIpc(app, runId, lastSeq) {
  return app.execute(
    async (runId, lastSeq, pages, limit) => {
      const invoke = window.__TAURI_INTERNALS__.invoke;
      const time = async (f) => {
        const t0 = performance.now();
        const v = await f();
        return [performance.now() - t0, v];
      };
      await invoke("list_events", { runId, afterSeq: 0, limit }); // warm-up
      const times = [];
      let bytes = 0;
      let short = 0;
      for (let i = 0; i < pages; i++) {
        const afterSeq = Math.floor((i * (lastSeq - limit)) / (pages - 1));
        const [dt, page] = await time(() => invoke("list_events", { runId, afterSeq, limit }));
        times.push(dt);
        bytes += JSON.stringify(page).length;
        if (page.events.length !== limit) short += 1;
      }
      const floor = [];
      for (let i = 0; i < pages; i++) floor.push((await time(() => invoke("active_runs")))[0]);
      return { times, bytes, short, floor };
    },
    runId,
    lastSeq,
    PAGES,
    PAGE,
  );
}

/** First paint (NAV_RUNS opens), a scroll pass, and (first mode only) IPC paging, in a new tauri-driver tree. */
async function measureMode(startTree, sandbox, recorded, mode, withIpc) {
  if (mode.env) process.env.WEBKIT_DISABLE_COMPOSITING_MODE = mode.env;
  else delete process.env.WEBKIT_DISABLE_COMPOSITING_MODE;
  const tree = await startTree(); // the app inherits tauri-driver's environment
  delete process.env.WEBKIT_DISABLE_COMPOSITING_MODE;
  const out = {};
  const app = await launch(tree, bins.app);
  try {
    await openWorkspace(app, sandbox.workspace, { byTestId, WAIT });
    if (INJECT_CSS) await injectStyle(app, INJECT_CSS);
    await app.$(`[data-testid="run-row"][data-run-id="${recorded.runId}"]`).waitForExist(WAIT);
    out.navs = [];
    for (let i = 0; i < NAV_RUNS; i++) {
      if (i > 0) await backToRuns(app, recorded.runId);
      out.navs.push(await openRun(app, recorded.runId, recorded.lastSeq));
    }
    await app.pause(500);
    out.scroll = await scrollPass(app, '[data-testid="timeline"]');
    out.items = await openConversation(app, recorded.runId);
    await app.pause(500);
    out.conversation = await scrollPass(app, '[data-testid="conversation-list"]', '[data-testid="conversation-list"] [data-index]', "index");
    if (withIpc) out.ipc = await pageOverIpc(app, recorded.runId, recorded.lastSeq);
  } finally {
    await close(app, tree, bins.app);
  }
  out.baseline = await baselinePass(tree, out.scroll.height);
  await tree.stop();
  return out;
}

const frameStats = (s) => `median ${ms(median(s.frames))}, p95 ${ms(quantile(s.frames, 0.95))}, max ${ms(Math.max(...s.frames))}; ${s.frames.length} frames, ${s.frames.filter((f) => f > 50).length} over 50 ms`;

await withSandbox(async ({ sandbox, startTree }) => {
  const recorded = await recordRun(sandbox, EVENTS);
  const results = [];
  for (const [i, mode] of MODES.entries()) results.push(await measureMode(startTree, sandbox, recorded, mode, i === 0));

  console.log(`\nBearAgent timeline benchmark — real app (${bins.app}), WebKitGTK under Xvfb`);
  console.log(`  run: ${recorded.lastSeq.toLocaleString("en-US")} events (${recorded.steps} scripted read_file steps), recorded by the CLI in ${recorded.seconds.toFixed(1)} s; ${machine()}`);
  if (INJECT_CSS) console.log(`  WHAT-IF: the app's page had this style sheet added: ${INJECT_CSS}`);
  MODES.forEach((mode, i) => {
    const { navs, scroll, baseline, conversation, items } = results[i];
    const paints = navs.map((n) => n.painted);
    const firstPaint = median(paints);
    const p95 = quantile(scroll.frames, 0.95);
    const baseP95 = quantile(baseline.frames, 0.95);
    const covered = scroll.lastSeq === recorded.lastSeq ? "full pass" : `stopped at the ${SCROLL_CAP_MS / 1000} s cap at row #${scroll.lastSeq} (${(scroll.reached * 100).toFixed(0)}% of the height)`;
    console.log(`\n== ${mode.name}`);
    console.log(`First paint of the run view, click in the runs list → first rows painted (goal < ${GOAL.firstPaint} ms)`);
    console.log(`  first open ${ms(paints[0])}; median ${ms(firstPaint)}, min ${ms(Math.min(...paints))}, max ${ms(Math.max(...paints))} over ${NAV_RUNS} opens (${navs[0].rows} rows in the DOM, in DOM at median ${ms(median(navs.map((n) => n.inDom)))})`);
    console.log(`  all ${recorded.lastSeq.toLocaleString("en-US")} events paged in: first open ${ms(navs[0].allLoaded)}, median ${ms(median(navs.map((n) => n.allLoaded)))}`);
    console.log(`  → ${verdict(firstPaint < GOAL.firstPaint)}: ${ms(firstPaint)} = ${ratio(firstPaint, GOAL.firstPaint)} the goal`);
    console.log(`Scroll pass, top → bottom, one viewport (${scroll.height} px) per frame (goal p95 < ${GOAL.p95Frame} ms)`);
    console.log(`  app:      ${frameStats(scroll)}; ${covered}; ≤ ${scroll.maxRowsInDom} rows in the DOM`);
    console.log(`  baseline: ${frameStats(baseline)} (blank window, plain list of ${BASELINE_ROWS} rows)`);
    console.log(`  → ${verdict(p95 < GOAL.p95Frame)}: p95 ${ms(p95)} = ${ratio(p95, GOAL.p95Frame)} the goal, ${ratio(p95, baseP95)} the baseline`);
    const convP95 = quantile(conversation.frames, 0.95);
    const convCovered =
      conversation.lastSeq === items - 1 ? "full pass" : `stopped at the ${SCROLL_CAP_MS / 1000} s cap at item ${conversation.lastSeq + 1} of ${items} (${(conversation.reached * 100).toFixed(0)}% of the height)`;
    console.log(`Scroll pass over the Conversation view (${items.toLocaleString("en-US")} items), one viewport (${conversation.height} px) per frame`);
    console.log(`  app:      ${frameStats(conversation)}; ${convCovered}; ≤ ${conversation.maxRowsInDom} rows in the DOM`);
    console.log(`  → ${verdict(convP95 < GOAL.p95Frame)}: p95 ${ms(convP95)} = ${ratio(convP95, GOAL.p95Frame)} the goal, ${ratio(convP95, baseP95)} the baseline (Events timeline: ${ratio(p95, baseP95)})`);
  });
  const { ipc } = results[0];
  const pageMs = median(ipc.times);
  console.log(`\nlist_events over IPC, ${PAGE} events a page, ${PAGES} pages spread over the run, timed in the page (default rendering)`);
  console.log(`  median ${ms(pageMs)}, p95 ${ms(quantile(ipc.times, 0.95))}, max ${ms(Math.max(...ipc.times))}; ${(ipc.bytes / PAGES / 1024).toFixed(0)} KiB of JSON a page${ipc.short ? `; ${ipc.short} short pages!` : ""}`);
  console.log(`  IPC floor (active_runs, no data): median ${ms(median(ipc.floor))}`);
  console.log(`  → ${verdict(pageMs < GOAL.page)}: ${ms(pageMs)} = ${ratio(pageMs, GOAL.page)} the goal (${GOAL.page} ms)`);
});
