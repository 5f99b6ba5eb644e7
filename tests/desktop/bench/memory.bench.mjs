// Memory and cold start of the real app beside a blank Tauri 2 window built
// from the same toolchain (tests/desktop/blank-window), release builds,
// WebKitGTK under Xvfb, launched through tauri-driver:
//   a. cold start → first paint (goal app ≤ 1.2× blank, issue 27);
//   b. idle memory ~5 s after start: PSS summed over the process and all its
//      descendants (WebKitWebProcess, WebKitNetworkProcess, …) (goal ≤ 1.1×);
//      the app on a fresh profile (its welcome screen), as a new user sees it;
//   c. the app's PSS after opening a 20 000-event run.
// Without a GPU render node the app asks WebKit to paint on the CPU, without
// compositing (src-tauri/src/webkit_env.rs); the blank window is then also
// measured painting that way, for a like-for-like figure beside the goal's.
//
// Start: the binary is launched through a bash wrapper that stamps
// $EPOCHREALTIME (µs, no fork) just before `exec`-ing it, so the start is
// the binary's exec, with no WebDriver overhead. (The kernel's
// /proc/PID/stat starttime, in 10 ms ticks and a few ms earlier — it counts
// the wrapper — is printed as a cross-check.) First paint: the page's
// `first-contentful-paint` entry (WebKitGTK has paint timing), made absolute
// with performance.timeOrigin. "Cold" = a new process each time, one
// discarded warm-up each first (the app's first start creates its database);
// the OS page cache is warm for both.
//
//   npm run bench:memory        (BENCH_STARTS=… cold starts each, BENCH_EVENTS=… for c)
import { readFileSync, writeFileSync, chmodSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  machine, bins, requireBins, withSandbox, launch, close, recordRun, openWorkspace, forkedAt, treeMemory, breakdown, pssByMapping, mappingGrowth,
  byTestId, showTab, WAIT, median, ms, mb, ratio, verdict, desktopEntryEnv,
} from "./lib.mjs";

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const IDLE_MS = 5_000;
const GOAL = { start: 1.2, memory: 1.1 };

requireBins("app", "blank", "cli");

/** A wrapper that records the exec time of `binary` in `stamp`, then becomes it (with `env` set). */
function wrapper(dir, name, binary, env = {}) {
  const file = join(dir, `${name}-start.sh`);
  const stamp = join(dir, `${name}.stamp`);
  const exports = Object.entries(env).map(([k, v]) => `export ${k}='${v}'\n`).join("");
  writeFileSync(file, `#!/bin/bash\necho "$EPOCHREALTIME" > '${stamp}'\n${exports}exec '${binary}' "$@"\n`);
  chmodSync(file, 0o755);
  return { file, stamp };
}

const TARGETS = {
  blank: { binary: bins.blank, ready: "#blank" },
  // As its desktop entry starts it.
  app: { binary: bins.app, ready: '.shell[data-ready="true"]', env: desktopEntryEnv() },
  blankCpu: { binary: bins.blank, ready: "#blank", env: { WEBKIT_SKIA_ENABLE_CPU_RENDERING: "1", WEBKIT_DISABLE_COMPOSITING_MODE: "1" } },
};
const hasRenderNode = (() => {
  try {
    return readdirSync("/dev/dri").some((f) => f.startsWith("renderD"));
  } catch {
    return false;
  }
})();
// The app paints on the CPU without compositing unless a GPU or the user says otherwise (webkit_env.rs).
const appPaintsOnCpu = !hasRenderNode && process.env.WEBKIT_SKIA_ENABLE_CPU_RENDERING === undefined && process.env.WEBKIT_DISABLE_COMPOSITING_MODE === undefined;
const KINDS = appPaintsOnCpu ? ["blank", "app", "blankCpu"] : ["blank", "app"];

/** One cold start: exec → first contentful paint, and the tree's memory after IDLE_MS. */
async function coldStart(tree, dir, kind) {
  const { binary, ready, env } = TARGETS[kind];
  const w = wrapper(dir, kind, binary, env);
  const browser = await launch(tree, w.file);
  try {
    await browser.$(ready).waitForExist(WAIT);
    const pid = tree.appPid(binary);
    const paint = await browser.waitUntil(
      () => browser.execute(() => {
        const e = performance.getEntriesByName("first-contentful-paint")[0];
        return e ? { origin: performance.timeOrigin, fcp: e.startTime } : false;
      }),
      { ...WAIT, timeoutMsg: "no first-contentful-paint entry" },
    );
    const fcp = paint.origin + paint.fcp;
    const execAt = Number(readFileSync(w.stamp, "utf8").trim().replace(",", ".")) * 1000; // a locale may use a comma
    const forked = forkedAt(pid);
    await sleep(IDLE_MS);
    const memory = treeMemory(pid);
    memory.maps = Object.fromEntries(memory.procs.map((p) => [p.name, pssByMapping(p.pid)]));
    // Split: exec → the page's navigation start (native side: Rust, GTK,
    // WebKit processes), then navigation start → first paint (the page).
    return { start: fcp - execAt, toNavigation: paint.origin - execAt, inPage: paint.fcp, startProc: fcp - forked, memory };
  } finally {
    await close(browser, tree, binary);
  }
}

await withSandbox(async ({ sandbox, startTree }) => {
  const tree = await startTree();

  // a + b: alternating cold starts, after one discarded warm-up of each.
  const results = Object.fromEntries(KINDS.map((kind) => [kind, []]));
  for (const kind of KINDS) await coldStart(tree, sandbox.root, kind);
  for (let i = 0; i < STARTS; i++) {
    for (const kind of KINDS) results[kind].push(await coldStart(tree, sandbox.root, kind));
  }

  // c: the app with a big run open.
  const recorded = await recordRun(sandbox, EVENTS);
  const app = await launch(tree, bins.app);
  let home, opened;
  try {
    await openWorkspace(app, sandbox.workspace, { byTestId, WAIT });
    const link = `[data-testid="run-row"][data-run-id="${recorded.runId}"] [data-testid="run-link"]`;
    await app.$(link).waitForExist(WAIT);
    await sleep(IDLE_MS);
    home = treeMemory(tree.appPid(bins.app));
    await app.execute((sel) => document.querySelector(sel).click(), link);
    // A run opens in its conversation; the memory measured is with its event log shown too.
    await showTab(app, "timeline-tab");
    await app.$(`.timeline[data-loaded="true"][data-count="${recorded.lastSeq}"]`).waitForExist({ timeout: 120_000 });
    await sleep(IDLE_MS);
    opened = treeMemory(tree.appPid(bins.app));
  } finally {
    await close(app, tree, bins.app);
  }

  const med = (kind, f) => median(results[kind].map(f));
  const start = { blank: med("blank", (r) => r.start), app: med("app", (r) => r.start) };
  const startProc = { blank: med("blank", (r) => r.startProc), app: med("app", (r) => r.startProc) };
  const pss = { blank: med("blank", (r) => r.memory.pss), app: med("app", (r) => r.memory.pss) };
  const rss = { blank: med("blank", (r) => r.memory.rss), app: med("app", (r) => r.memory.rss) };
  const last = (kind) => results[kind][results[kind].length - 1].memory;

  console.log(`\nBearAgent memory and cold start — real app vs blank Tauri 2 window, WebKitGTK under Xvfb`);
  console.log(`  app:   ${bins.app}\n  blank: ${bins.blank}\n  ${STARTS} alternating cold starts each (after one warm-up each), medians; ${machine()}\n`);
  console.log(`Cold start: exec of the binary → first-contentful-paint (goal app ≤ ${GOAL.start}× blank)`);
  console.log(`  blank ${ms(start.blank)} [${results.blank.map((r) => r.start.toFixed(0)).join(", ")}]`);
  console.log(`  app   ${ms(start.app)} [${results.app.map((r) => r.start.toFixed(0)).join(", ")}]`);
  console.log(`  → ${verdict(start.app / start.blank <= GOAL.start)}: ${ratio(start.app, start.blank)}`);
  for (const kind of ["blank", "app"]) {
    console.log(`  ${kind.padEnd(5)} split: exec → navigation start ${ms(med(kind, (r) => r.toNavigation))}, → first paint ${ms(med(kind, (r) => r.inPage))} more`);
  }
  console.log(`  cross-check from /proc starttime (fork, 10 ms ticks): blank ${ms(startProc.blank)}, app ${ms(startProc.app)}, ${ratio(startProc.app, startProc.blank)}\n`);
  console.log(`Idle memory ${IDLE_MS / 1000} s after start, PSS summed over the process tree (goal app ≤ ${GOAL.memory}× blank)`);
  console.log(`  blank ${mb(pss.blank)} (RSS ${mb(rss.blank)}): ${breakdown(last("blank"))}`);
  console.log(`  app   ${mb(pss.app)} (RSS ${mb(rss.app)}): ${breakdown(last("app"))}`);
  console.log(`  → ${verdict(pss.app / pss.blank <= GOAL.memory)}: ${ratio(pss.app, pss.blank)} (RSS ${ratio(rss.app, rss.blank)})`);
  for (const name of ["main", "WebKitWebProcess"]) {
    console.log(`  app − blank in ${name}, by mapping (last start): ${mappingGrowth(last("blank").maps[name] ?? {}, last("app").maps[name] ?? {})}`);
  }
  if (appPaintsOnCpu) {
    const cpu = { start: med("blankCpu", (r) => r.start), pss: med("blankCpu", (r) => r.memory.pss) };
    console.log(`\nLike for like: the app paints on the CPU without compositing here (no GPU render node); the blank window painting so too`);
    console.log(`  cold start ${ms(cpu.start)} → app ${ratio(start.app, cpu.start)}; idle PSS ${mb(cpu.pss)} → app ${ratio(pss.app, cpu.pss)}`);
  }
  console.log("");
  console.log(`The app with a ${recorded.lastSeq.toLocaleString("en-US")}-event run open (recorded by the CLI in ${recorded.seconds.toFixed(1)} s), ${IDLE_MS / 1000} s after all events were in`);
  console.log(`  runs list, workspace open: PSS ${mb(home.pss)} (RSS ${mb(home.rss)}): ${breakdown(home)}`);
  console.log(`  run view open:             PSS ${mb(opened.pss)} (RSS ${mb(opened.rss)}): ${breakdown(opened)}`);
  console.log(`  = ${ratio(opened.pss, pss.blank)} the idle blank window; +${mb(opened.pss - home.pss)} for opening the run`);
});
