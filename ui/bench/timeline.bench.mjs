// Timeline benchmark: the production build in headless Chromium, with a
// fake Tauri IPC (bench/fakeIpc.js) serving a finished run of 20 000
// events in pages of 500, like the real `list_events`.
//
//   npm run bench:ui            (BENCH_EVENTS=50000 to change the size)
//
// BENCH_UNCAPPED=1 runs Chromium without vsync and its frame rate limit:
// a frame then takes as long as its work, not a multiple of 16.7 ms, so
// the ratios against the plain list tell more than at 60 Hz.
//
// BENCH_ROUNDS=3 repeats the whole measurement and closes with the medians
// (frame figures vary with the machine's load). The report names the
// windowing the timeline uses, as Timeline.svelte imports it.
//
// Measures
//   1. first paint of the run view: in-app navigation (the user opens the
//      run from the list) → first timeline rows painted; and a cold load of
//      the app straight into the run view;
//   2. time until all events are paged in;
//   3. full scroll passes, top → bottom, one viewport per frame, over the
//      Events timeline, the Conversation view of the same run, and a plain
//      list of text rows on a blank page (the baseline, as in the real-app
//      bench): time, frames, p95 and longest frame, frames over 50 ms,
//      dropped 60 Hz frames, and each p95 against the plain list's;
//   4. the size of the built JavaScript.
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { build, preview } from "vite";
import { plainList } from "../../tests/desktop/bench/plainList.mjs";

const uiRoot = fileURLToPath(new URL("..", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const UNCAPPED = process.env.BENCH_UNCAPPED === "1";
const NAV_RUNS = 7;
const BASELINE_ROWS = 2_000;
const GOAL_FIRST_PAINT_MS = 300;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${ms.toFixed(1)} ms`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const ratio = (x, base) => `${(x / base).toFixed(2)}×`;

const timelineSource = await readFile(new URL("../src/components/run/Timeline.svelte", import.meta.url), "utf8");
const windowing = [...timelineSource.matchAll(/import (\w+) from "([^"]*virtual[^"]*)"/gi)].map((m) => `${m[1]} (${m[2]})`).join(", ") || "not found in Timeline.svelte";

const outDir = await mkdtemp(join(tmpdir(), "bearagent-bench-"));
await build({ root: uiRoot, logLevel: "warn", build: { outDir, emptyOutDir: true } });
let jsBytes = 0;
let jsGzip = 0;
for (const name of await readdir(join(outDir, "assets"))) {
  if (!name.endsWith(".js")) continue;
  const bytes = await readFile(join(outDir, "assets", name));
  jsBytes += bytes.length;
  jsGzip += gzipSync(bytes).length;
}
const server = await preview({ root: uiRoot, logLevel: "warn", build: { outDir }, preview: { host: "127.0.0.1", port: 0, strictPort: false } });
const base = server.resolvedUrls.local[0];
const fakeIpc = await readFile(new URL("./fakeIpc.js", import.meta.url), "utf8");

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
    ...(UNCAPPED ? ["--disable-gpu-vsync", "--disable-frame-rate-limit"] : []),
  ],
});

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light", locale: "en-US" });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.addInitScript(`window.__BENCH__ = { events: ${EVENTS} };\n${fakeIpc}`);
  // Record when the first rows of the view a run opens in (Conversation) are in the DOM and then painted.
  await page.addInitScript((FIRST_ROWS) => {
    window.__firstRows = null;
    const observer = new MutationObserver(() => {
      if (window.__firstRows !== null || !document.querySelector(FIRST_ROWS)) return;
      window.__firstRows = { inDom: performance.now() };
      requestAnimationFrame(() => setTimeout(() => (window.__firstRows.painted = performance.now()), 0));
    });
    document.addEventListener("DOMContentLoaded", () => observer.observe(document.body, { childList: true, subtree: true }));
  }, '[data-testid="conversation-list"] [data-index], [data-testid="timeline-row"]');
  return { page, problems, close: () => context.close() };
}

/** In-app navigation from the home screen to the run view. */
function navigate(page, hash) {
  return page.evaluate(
    (target) =>
      new Promise((resolve) => {
        const t0 = performance.now();
        const observer = new MutationObserver(() => {
          const rows = document.querySelectorAll('[data-testid="conversation-list"] [data-index], [data-testid="timeline-row"]');
          if (rows.length === 0) return;
          observer.disconnect();
          const inDom = performance.now() - t0;
          requestAnimationFrame(() => setTimeout(() => resolve({ inDom, painted: performance.now() - t0, rows: rows.length }), 0));
        });
        observer.observe(document.body, { childList: true, subtree: true });
        window.location.hash = target;
      }),
    hash,
  );
}

/**
 * One viewport per frame from the top of `selector` to its bottom; frame
 * times from rAF timestamps. `rows` selects the list's rows and `key` names
 * the data attribute holding a row's position (to check the pass reached the end).
 */
function scrollPass(page, selector, rows, key) {
  return page.evaluate(
    async ([selector, rows, key]) => {
      const el = document.querySelector(selector);
      const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
      el.scrollTop = 0;
      await frame();
      await frame();
      const longTasks = [];
      const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((e) => e.duration)));
      try {
        observer.observe({ type: "longtask", buffered: false });
      } catch {
        /* not supported */
      }
      // Elements made during the pass (not those moved): a plain list makes
      // none; a windowed list that makes each row coming into view anew makes its subtree.
      let added = 0;
      const seen = new WeakSet(el.querySelectorAll("*"));
      const mutations = new MutationObserver((records) => {
        for (const r of records)
          for (const n of r.addedNodes) {
            if (n.nodeType !== 1) continue;
            for (const e of [n, ...n.querySelectorAll("*")]) {
              if (!seen.has(e)) added += 1;
              seen.add(e);
            }
          }
      });
      mutations.observe(el, { childList: true, subtree: true });
      const frames = [];
      let last = await frame();
      const start = last;
      let rendered = 0;
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 1) {
        el.scrollTop += el.clientHeight;
        const now = await frame();
        frames.push(now - last);
        last = now;
        rendered = Math.max(rendered, document.querySelectorAll(rows).length);
      }
      observer.disconnect();
      mutations.disconnect();
      const lastRow = Math.max(0, ...[...document.querySelectorAll(rows)].map((r) => Number(r.dataset[key])));
      const sorted = [...frames].sort((a, b) => a - b);
      return {
        steps: frames.length,
        totalMs: last - start,
        height: el.clientHeight,
        scrollHeight: el.scrollHeight,
        meanFrame: frames.reduce((a, b) => a + b, 0) / frames.length,
        p95Frame: sorted[Math.floor(sorted.length * 0.95)],
        maxFrame: sorted[sorted.length - 1],
        over50: frames.filter((f) => f > 50).length,
        dropped: frames.reduce((n, f) => n + Math.max(0, Math.round(f / (1000 / 60)) - 1), 0),
        longTasks: longTasks.length,
        maxRowsInDom: rendered,
        addedPerStep: added / Math.max(1, frames.length),
        lastRow,
      };
    },
    [selector, rows, key],
  );
}

const timelinePass = (page) => scrollPass(page, '[data-testid="timeline"]', '[data-testid="timeline-row"]', "seq");
const conversationPass = (page) => scrollPass(page, '[data-testid="conversation-list"]', '[data-testid="conversation-list"] [data-index]', "index");

/**
 * The baseline of the real-app bench (tests/desktop/bench/plainList.mjs):
 * a plain scrolling list of text rows, `height` px tall, on an otherwise
 * blank page of the same browser.
 */
async function baselinePass(height) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: "light", locale: "en-US" });
  try {
    const page = await context.newPage();
    await page.setContent('<body id="blank"></body>');
    await page.evaluate(plainList, { rows: BASELINE_ROWS, height });
    await page.waitForTimeout(300);
    return await scrollPass(page, "#list", "#list > div", "index");
  } finally {
    await context.close();
  }
}

/** One full measurement of the build. */
async function measure() {
  const { page, problems, close } = await newPage();
  const runHash = "#/run/bench-run";

  // Cold load straight into the run view.
  await page.goto(`${base}${runHash}`);
  await page.waitForFunction(() => window.__firstRows?.painted !== undefined && window.__firstRows !== null, null, { timeout: 30_000 });
  const cold = await page.evaluate(() => window.__firstRows);
  await page.getByTestId("timeline-tab").click();
  await page.locator(`.timeline[data-loaded="true"][data-count="${EVENTS}"]`).waitFor({ timeout: 60_000 });
  const allPaged = await page.evaluate(() => performance.now());

  // In-app navigation: home → run, several times (a new view and store each time).
  const navs = [];
  const pagedIn = [];
  for (let i = 0; i < NAV_RUNS; i++) {
    await page.evaluate(() => (window.location.hash = "#/"));
    await page.locator('[data-testid="run-row"]').first().waitFor();
    await page.waitForTimeout(100);
    const t = await navigate(page, runHash);
    navs.push(t);
    const t0 = Date.now();
    // The run opens in its conversation; the scroll pass below measures the event log.
    await page.getByTestId("timeline-tab").click();
    await page.locator(`.timeline[data-loaded="true"][data-count="${EVENTS}"]`).waitFor({ timeout: 60_000 });
    pagedIn.push(Date.now() - t0 + t.painted);
  }

  const scroll = await timelinePass(page);
  // The view a run opens in: the same pass over the conversation of the same run.
  await page.evaluate(() => (window.location.hash = "#/"));
  await page.locator('[data-testid="run-row"]').first().waitFor();
  await page.evaluate((hash) => (window.location.hash = hash), runHash);
  await page.locator('.conversation[data-loaded="true"]').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500);
  const conversationCount = Number(await page.getByTestId("conversation").getAttribute("data-count"));
  const conversation = await conversationPass(page);
  const pages = await page.evaluate(() => window.__benchIpc.calls.filter((c) => c === "list_events").length);
  await close();
  const baseline = await baselinePass(scroll.height);
  return { cold, allPaged, navs, pagedIn, scroll, conversation, conversationCount, baseline, pages, problems, firstPaint: median(navs.map((n) => n.painted)) };
}

function report(r) {
  const { cold, allPaged, navs, pagedIn, scroll, conversation, conversationCount, baseline, pages, problems, firstPaint } = r;
  console.log(`\nBearAgent timeline benchmark — ${EVENTS.toLocaleString("en-US")} events, production build, headless Chromium, 1280×800`);
  console.log(`  windowing: ${windowing}; built JS ${kb(jsBytes)} (${kb(jsGzip)} gzip)`);
  if (UNCAPPED) console.log("  Chromium without vsync or frame rate limit (BENCH_UNCAPPED=1): frames take as long as their work");
  console.log(`  fake IPC: list_events pages of 500 (${pages} page requests in total), JSON round trip per answer\n`);
  console.log("First paint of the run view (goal < 300 ms)");
  console.log(`  in-app navigation → first rows painted: median ${fmt(firstPaint)}, min ${fmt(Math.min(...navs.map((n) => n.painted)))}, max ${fmt(Math.max(...navs.map((n) => n.painted)))} over ${NAV_RUNS} runs (${navs[0].rows} rows in the DOM)`);
  console.log(`  cold app load → first rows painted:     ${fmt(cold.painted)} after navigation start (rows in DOM at ${fmt(cold.inDom)})`);
  console.log(`  all ${EVENTS.toLocaleString("en-US")} events paged in:            cold ${fmt(allPaged)}, in-app median ${fmt(median(pagedIn))}`);
  console.log(`  → ${firstPaint < GOAL_FIRST_PAINT_MS ? "MET" : "MISSED"}: ${fmt(firstPaint)} vs goal ${GOAL_FIRST_PAINT_MS} ms\n`);
  console.log(`Full scroll passes, top → bottom, one viewport (${scroll.height} px) per frame`);
  const pass = (name, p, end) => {
    console.log(`  ${name}: ${p.steps} steps over ${(p.scrollHeight / 1000).toFixed(0)}k px in ${fmt(p.totalMs)} (${end}); at most ${p.maxRowsInDom} rows in the DOM, ${p.addedPerStep.toFixed(1)} elements made per step`);
    console.log(`    frame time: mean ${fmt(p.meanFrame)}, p95 ${fmt(p.p95Frame)}, max ${fmt(p.maxFrame)}; over 50 ms: ${p.over50}; dropped 60 Hz frames: ${p.dropped}; long tasks: ${p.longTasks}`);
  };
  pass("Events timeline", scroll, `last row #${scroll.lastRow}`);
  pass("Conversation   ", conversation, `last item ${conversation.lastRow + 1} of ${conversationCount}`);
  pass("plain list     ", baseline, `${BASELINE_ROWS} text rows on a blank page`);
  console.log(`  → p95 against the plain list: timeline ${ratio(scroll.p95Frame, baseline.p95Frame)}, conversation ${ratio(conversation.p95Frame, baseline.p95Frame)}`);
  if (problems.length) console.log(`\npage errors:\n  ${problems.join("\n  ")}`);
  if (scroll.lastRow !== EVENTS) {
    console.error(`the scroll pass did not reach the last event (#${scroll.lastRow} of ${EVENTS})`);
    process.exitCode = 1;
  }
  if (conversation.lastRow !== conversationCount - 1) {
    console.error(`the conversation pass did not reach the last item (${conversation.lastRow + 1} of ${conversationCount})`);
    process.exitCode = 1;
  }
}

try {
  const results = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`\n— round ${round + 1} of ${ROUNDS}`);
    const r = await measure();
    results.push(r);
    report(r);
  }
  if (ROUNDS > 1) {
    const m = (f) => median(results.map(f));
    console.log(`\nMedians over ${ROUNDS} rounds (${windowing})`);
    console.log(`  first paint ${fmt(m((r) => r.firstPaint))}, cold ${fmt(m((r) => r.cold.painted))}`);
    console.log(
      `  scroll frame mean ${fmt(m((r) => r.scroll.meanFrame))}, p95 ${fmt(m((r) => r.scroll.p95Frame))}, max ${fmt(m((r) => r.scroll.maxFrame))}; ` +
        `over 50 ms ${m((r) => r.scroll.over50)}, dropped ${m((r) => r.scroll.dropped)}`,
    );
    console.log(`  conversation frame p95 ${fmt(m((r) => r.conversation.p95Frame))}, plain list p95 ${fmt(m((r) => r.baseline.p95Frame))}`);
    console.log(
      `  → p95 against the plain list (median of each round's ratio): timeline ${m((r) => r.scroll.p95Frame / r.baseline.p95Frame).toFixed(2)}×, ` +
        `conversation ${m((r) => r.conversation.p95Frame / r.baseline.p95Frame).toFixed(2)}×`,
    );
  }
} finally {
  await browser.close();
  await server.close();
  await rm(outDir, { recursive: true, force: true });
}
