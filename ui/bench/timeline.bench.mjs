// Timeline benchmark: the production build in headless Chromium, with a
// fake Tauri IPC (bench/fakeIpc.js) serving a finished run of 20 000
// events in pages of 500, like the real `list_events`.
//
//   npm run bench:ui            (BENCH_EVENTS=50000 to change the size)
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
//   3. a full scroll pass, top → bottom, one viewport per frame: time,
//      frames, longest frame, frames over 50 ms and dropped 60 Hz frames;
//   4. the size of the built JavaScript.
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { build, preview } from "vite";

const uiRoot = fileURLToPath(new URL("..", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const NAV_RUNS = 7;
const GOAL_FIRST_PAINT_MS = 300;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => `${ms.toFixed(1)} ms`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;

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
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
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

function scrollPass(page) {
  return page.evaluate(async () => {
    const el = document.querySelector('[data-testid="timeline"]');
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
    const frames = [];
    let last = await frame();
    const start = last;
    let rendered = 0;
    while (el.scrollTop + el.clientHeight < el.scrollHeight - 1) {
      el.scrollTop += el.clientHeight;
      const now = await frame();
      frames.push(now - last);
      last = now;
      rendered = Math.max(rendered, document.querySelectorAll('[data-testid="timeline-row"]').length);
    }
    observer.disconnect();
    const lastSeq = Math.max(...[...document.querySelectorAll('[data-testid="timeline-row"]')].map((r) => Number(r.dataset.seq)));
    const sorted = [...frames].sort((a, b) => a - b);
    return {
      steps: frames.length,
      totalMs: last - start,
      scrollHeight: el.scrollHeight,
      meanFrame: frames.reduce((a, b) => a + b, 0) / frames.length,
      p95Frame: sorted[Math.floor(sorted.length * 0.95)],
      maxFrame: sorted[sorted.length - 1],
      over50: frames.filter((f) => f > 50).length,
      dropped: frames.reduce((n, f) => n + Math.max(0, Math.round(f / (1000 / 60)) - 1), 0),
      longTasks: longTasks.length,
      maxRowsInDom: rendered,
      lastSeq,
    };
  });
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

  const scroll = await scrollPass(page);
  const pages = await page.evaluate(() => window.__benchIpc.calls.filter((c) => c === "list_events").length);
  await close();
  return { cold, allPaged, navs, pagedIn, scroll, pages, problems, firstPaint: median(navs.map((n) => n.painted)) };
}

function report(r) {
  const { cold, allPaged, navs, pagedIn, scroll, pages, problems, firstPaint } = r;
  console.log(`\nBearAgent timeline benchmark — ${EVENTS.toLocaleString("en-US")} events, production build, headless Chromium, 1280×800`);
  console.log(`  windowing: ${windowing}; built JS ${kb(jsBytes)} (${kb(jsGzip)} gzip)`);
  console.log(`  fake IPC: list_events pages of 500 (${pages} page requests in total), JSON round trip per answer\n`);
  console.log("First paint of the run view (goal < 300 ms)");
  console.log(`  in-app navigation → first rows painted: median ${fmt(firstPaint)}, min ${fmt(Math.min(...navs.map((n) => n.painted)))}, max ${fmt(Math.max(...navs.map((n) => n.painted)))} over ${NAV_RUNS} runs (${navs[0].rows} rows in the DOM)`);
  console.log(`  cold app load → first rows painted:     ${fmt(cold.painted)} after navigation start (rows in DOM at ${fmt(cold.inDom)})`);
  console.log(`  all ${EVENTS.toLocaleString("en-US")} events paged in:            cold ${fmt(allPaged)}, in-app median ${fmt(median(pagedIn))}`);
  console.log(`  → ${firstPaint < GOAL_FIRST_PAINT_MS ? "MET" : "MISSED"}: ${fmt(firstPaint)} vs goal ${GOAL_FIRST_PAINT_MS} ms\n`);
  console.log("Full scroll pass, top → bottom, one viewport per frame");
  console.log(`  ${scroll.steps} steps over ${(scroll.scrollHeight / 1000).toFixed(0)}k px in ${fmt(scroll.totalMs)} (last row #${scroll.lastSeq})`);
  console.log(`  frame time: mean ${fmt(scroll.meanFrame)}, p95 ${fmt(scroll.p95Frame)}, max ${fmt(scroll.maxFrame)}`);
  console.log(`  frames over 50 ms: ${scroll.over50}; dropped 60 Hz frames: ${scroll.dropped}; long tasks: ${scroll.longTasks}`);
  console.log(`  at most ${scroll.maxRowsInDom} rows in the DOM at once`);
  if (problems.length) console.log(`\npage errors:\n  ${problems.join("\n  ")}`);
  if (scroll.lastSeq !== EVENTS) {
    console.error(`the scroll pass did not reach the last event (#${scroll.lastSeq} of ${EVENTS})`);
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
  }
} finally {
  await browser.close();
  await server.close();
  await rm(outDir, { recursive: true, force: true });
}
