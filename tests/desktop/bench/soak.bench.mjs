// Soak: a 2 000-step run IN the real app (release build, WebKitGTK under
// Xvfb, through tauri-driver), started from the new-run form against a
// loopback OpenAI-compatible model, approvals "all", with the run view open
// (following the end) all the way. RSS and PSS of the app's process tree
// before and after (goal: growth < 50 MB), per process and by kind of
// mapping, so growth can be placed in the app process (Rust: runtime, store,
// IPC) or the web process (the UI's JS heap, DOM, WebKit caches).
//
// To tell what holds it, the same soak then runs again in a new app process
// with the runs list open instead of the run view, and each ends by leaving
// the run view, idling, and reloading the page (a reload drops the page's
// whole JS heap: what stays is WebKit's or the allocator's, not the UI's).
//
// PSS splits a shared page among the processes mapping it, so other WebKit
// processes on the machine lower it; RSS is printed beside it as a check.
//
//   npm run bench:soak          (BENCH_STEPS=… to change the length)
//
// For diagnosis: BENCH_VIEWS=run (or list) runs one of the two soaks;
// BENCH_INJECT_CSS='…' (as in bench:timeline) adds that style sheet to the
// page before the first run of each (the reload before the second run
// drops it), e.g. to hide the timeline's rows and see what painting them
// costs.
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { toolTurn, answerTurn } from "../loopback-model.mjs";
import {
  machine, bins, requireBins, withSandbox, launch, close, openWorkspace, treeMemory, breakdown, pssByMapping, mappingGrowth,
  writeModules, modulePath, injectStyle, byTestId, WAIT, mb, verdict, desktopEntryEnv, descendants,
} from "./lib.mjs";

const STEPS = Number(process.env.BENCH_STEPS ?? 2_000);
const IDLE_MS = 5_000;
const LONG_IDLE_MS = 30_000;
// The app recycles an idle page's web process once it holds far more than
// when the page was new (src-tauri/src/web_process.rs: 15 s without input,
// no run in progress): wait that long and a little more for it. WebDriver's
// session ends with the web process, so the app is told to recycle anyway
// (BEARAGENT_WEB_RECYCLE=on, as shipped apart from that), and the stages
// after a recycle are measured from /proc only: the soak ends there.
// BEARAGENT_WEB_RECYCLE=off measures the app without recycling.
process.env.BEARAGENT_WEB_RECYCLE ??= "on";
// The app starts as its desktop entry starts it (tauri-driver passes the
// environment on).
for (const [name, value] of Object.entries(desktopEntryEnv())) process.env[name] ??= value;
const RECYCLE_WAIT_MS = 30_000;
const GOAL_GROWTH_MB = 50;
const MAX_RUN_MS = 20 * 60_000;
// Diagnostics: which soaks to run ("run,list") and a style sheet to add to
// the page before each run (to test what WebKit keeps memory for).
const VIEWS = (process.env.BENCH_VIEWS ?? "run,list").split(",").map((v) => v.trim());
if (VIEWS.length === 0 || VIEWS.some((v) => v !== "run" && v !== "list")) {
  throw new Error(`BENCH_VIEWS must name run, list or both ("run,list"), not ${JSON.stringify(process.env.BENCH_VIEWS)}`);
}
const INJECT_CSS = process.env.BENCH_INJECT_CSS ?? "";

requireBins("app");

/**
 * The model: one read_file turn per request (over varied files, so loop
 * detection never triggers), then an answer. Unlike loopback-model.mjs it
 * keeps no request bodies: they reach ~400 KB each and would make this
 * process, not the app, the one that grows.
 */
function startModel() {
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const i = calls++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(i < STEPS ? toolTurn(`call_${i}`, "read_file", { path: modulePath(i) }) : answerTurn(`Read ${STEPS} files.`));
    });
  });
  return new Promise((ok) =>
    server.listen(0, "127.0.0.1", () => ok({ server, port: server.address().port, calls: () => calls, reset: () => (calls = 0) })),
  );
}

/** Provider with a 1M-token window (else the unknown model's 32k would compact); a profile roomy enough for the run. */
function writeConfig(dataDir, port) {
  const lines = [
    "version = 1",
    "[providers.local]", 'protocol = "openai-chat"', `base_url = "http://127.0.0.1:${port}"`, 'model = "loopback"', 'key = "none"', "context_window = 1000000",
    "[profiles.soak]", 'provider = "local"', 'approval = "all"',
    `max_model_calls = ${STEPS + 10}`, `max_tool_calls = ${STEPS + 10}`, "max_input_tokens = 100000000000",
    "max_output_tokens = 100000000", "max_wall_time_secs = 36000",
  ];
  writeFileSync(join(dataDir, "config.toml"), lines.join("\n") + "\n");
}

/**
 * One soak in a new app process, with `view` ("run" or "list") open while
 * it runs; memory at each stage. Then, in the same process, a second run
 * of the same length: growing again by as much means memory retained per
 * run; growing little means the first run's peak is reused.
 */
async function soak(tree, sandbox, model, view) {
  const app = await launch(tree, bins.app);
  // The tree's memory, with each process's PSS by kind of mapping.
  const memory = () => {
    const m = treeMemory(tree.appPid(bins.app));
    m.maps = Object.fromEntries(m.procs.map((p) => [p.name, pssByMapping(p.pid)]));
    return m;
  };
  const idle = async (msToWait = IDLE_MS) => (await sleep(msToWait), memory());
  // From /proc/PID/stat alone (its name cut at 15 bytes): polled, so no smaps read.
  const webPid = () => descendants(tree.appPid(bins.app)).find((p) => p.name === "WebKitWebProces")?.pid;
  // The page left alone: its web process recycled (a new pid), or not.
  const recycled = async () => {
    const was = webPid();
    const t0 = Date.now();
    while (Date.now() - t0 < RECYCLE_WAIT_MS) {
      await sleep(250);
      const now = webPid();
      if (now && now !== was) return { seconds: (Date.now() - t0) / 1000, m: await idle() };
    }
    return null;
  };

  // Start it as a user would: the soak profile (provider, approvals, budgets), a goal, Start.
  const runOnce = async () => {
    model.reset();
    await openWorkspace(app, sandbox.workspace, { byTestId, WAIT });
    await app.$("#run-profile").selectByAttribute("value", "soak");
    await byTestId(app, "run-goal").setValue(`Read the modules ${STEPS} times over`);
    const t0 = Date.now();
    await byTestId(app, "start-run").click();
    await byTestId(app, "run-view").waitForExist(WAIT);
    const runId = decodeURIComponent((await app.execute(() => location.hash)).replace("#/run/", ""));
    if (view === "list") await byTestId(app, "back-to-runs").click();
    // Sampled from /proc only (a WebDriver call waits for the busy page);
    // the app's own list of runs in progress says when it is over.
    const samples = [];
    const every = STEPS / 5;
    for (let next = every; model.calls() <= STEPS; await sleep(250)) {
      if (Date.now() - t0 > MAX_RUN_MS) throw new Error(`the run stalled at model call ${model.calls()}`);
      if (model.calls() < next) continue;
      samples.push({ step: model.calls(), t: (Date.now() - t0) / 1000, m: memory() });
      next = (Math.floor(model.calls() / every) + 1) * every;
    }
    const running = () => app.execute(() => window.__TAURI_INTERNALS__.invoke("active_runs").then((ids) => ids.length > 0));
    while (await running()) await sleep(250);
    const seconds = (Date.now() - t0) / 1000;
    const { projection } = await app.execute((runId) => window.__TAURI_INTERNALS__.invoke("get_run", { runId }), runId);
    return { samples, seconds, status: projection.status.kind, events: projection.last_seq };
  };

  try {
    await openWorkspace(app, sandbox.workspace, { byTestId, WAIT });
    await byTestId(app, "run-goal").waitForDisplayed(WAIT);
    if (INJECT_CSS) await injectStyle(app, INJECT_CSS);
    const stages = { before: await idle() };
    const first = await runOnce();
    stages.after = await idle();
    const dom = await app.execute(() => document.getElementsByTagName("*").length);
    const recycle = await recycled();
    stages.recycled = recycle?.m ?? null;
    stages.recycledAfterS = recycle ? recycle.seconds + IDLE_MS / 1000 : null;
    // The new page pages the run's events in again: let its heap settle.
    stages.recycledSettled = recycle ? await idle(LONG_IDLE_MS) : null;
    if (recycle) return { view, stages, ...first, dom, second: null };
    if (view === "run") await byTestId(app, "back-to-runs").click();
    await byTestId(app, "run-goal").waitForDisplayed(WAIT);
    stages.leftRunView = await idle();
    // JavaScriptCore collects and returns memory lazily: give it longer.
    stages.settled = await idle(LONG_IDLE_MS);
    await app.execute(() => location.reload());
    await app.$('.shell[data-ready="true"]').waitForExist(WAIT);
    stages.reloaded = await idle();
    const second = await runOnce();
    stages.second = await idle();
    return { view, stages, ...first, dom, second };
  } finally {
    await close(app, tree, bins.app);
  }
}

const line = (label, m) => `  ${label.padEnd(36)} PSS ${mb(m.pss).padStart(9)}  RSS ${mb(m.rss).padStart(9)}   ${breakdown(m)}`;
const grown = (a, b) => (b.pss - a.pss) / 1024;

function report(r) {
  const { before, after, leftRunView, settled, reloaded } = r.stages;
  const open = r.view === "run" ? "run view" : "runs list";
  console.log(`\n== ${r.view === "run" ? "Run view open (the soak)" : "Runs list open instead (diagnostic)"}: ${r.status} in ${r.seconds.toFixed(0)} s (${(STEPS / r.seconds).toFixed(0)} steps/s), ${r.events} events`);
  for (const s of r.samples) console.log(line(`step ${s.step} (t=${s.t.toFixed(0)} s)`, s.m));
  console.log(line(`before (runs list, idle)`, before));
  console.log(line(`after (${open}, idle ${IDLE_MS / 1000} s)`, after));
  if (r.stages.recycled) {
    console.log(line(`  … web process recycled (${r.stages.recycledAfterS.toFixed(0)} s idle)`, r.stages.recycled));
    console.log(line(`  … and ${LONG_IDLE_MS / 1000} s later`, r.stages.recycledSettled));
  }
  else console.log(`  … web process not recycled within ${(IDLE_MS + RECYCLE_WAIT_MS) / 1000} s idle`);
  if (r.second) {
    console.log(line(`then on the runs list`, leftRunView));
    console.log(line(`  … and ${LONG_IDLE_MS / 1000} s later`, settled));
    console.log(line(`  … after a page reload`, reloaded));
    console.log(line(`after a second run (${r.second.status}, ${r.second.seconds.toFixed(0)} s)`, r.stages.second));
  }
  const growthBy = (label, held) => {
    console.log(`  growth by process, ${label}:`);
    for (const name of ["main", "WebKitWebProcess", "WebKitNetworkProcess"]) {
      const d = (m) => (m.procs.find((p) => p.name === name)?.pss ?? 0) / 1024;
      console.log(`    ${name.padEnd(20)} ${(d(held) - d(before)).toFixed(1).padStart(7)} MB; by mapping: ${mappingGrowth(before.maps[name] ?? {}, held.maps[name] ?? {})}`);
    }
  };
  growthBy(`after (${open})`, after);
  if (r.stages.recycledSettled) growthBy(`after the recycle and ${LONG_IDLE_MS / 1000} s`, r.stages.recycledSettled);
  console.log(`  DOM elements at the end: ${r.dom}`);
  // The peak is what the machine had to give; recycling lowers only what stays.
  const peak = Math.max(after.pss, ...r.samples.map((s) => s.m.pss));
  console.log(`  peak ${mb(peak)} PSS (+${((peak - before.pss) / 1024).toFixed(1)} MB over before)`);
  return grown(before, r.stages.recycled ?? after);
}

await withSandbox(async ({ sandbox, startTree, onCleanup }) => {
  writeModules(sandbox.workspace);
  const model = await startModel();
  onCleanup(() => new Promise((ok) => model.server.close(ok)));
  writeConfig(sandbox.data, model.port);
  const tree = await startTree();
  const runView = VIEWS.includes("run") ? await soak(tree, sandbox, model, "run") : null;
  const list = VIEWS.includes("list") ? await soak(tree, sandbox, model, "list") : null;

  console.log(`\nBearAgent soak — real app (${bins.app}), WebKitGTK under Xvfb, ${STEPS} steps against a loopback model; ${machine()}${INJECT_CSS ? `; WHAT-IF, style sheet added: ${INJECT_CSS}` : ""}`);
  if (runView) {
    const growth = report(runView);
    const held = runView.stages.recycled ?? runView.stages.after;
    const when = runView.stages.recycled ? "once the idle page's web process was recycled" : `idle ${IDLE_MS / 1000} s`;
    console.log(`\n→ ${verdict(growth < GOAL_GROWTH_MB)}: with the run view open the app's tree grew ${growth.toFixed(1)} MB PSS, ${when} (goal < ${GOAL_GROWTH_MB} MB; RSS ${((held.rss - runView.stages.before.rss) / 1024).toFixed(1)} MB; before any recycle ${grown(runView.stages.before, runView.stages.after).toFixed(1)} MB)`);
    if (runView.second) {
      console.log(`  still held after leaving the run view and ${LONG_IDLE_MS / 1000} s idle: ${grown(runView.stages.before, runView.stages.settled).toFixed(1)} MB; after a page reload: ${grown(runView.stages.before, runView.stages.reloaded).toFixed(1)} MB`);
      console.log(`  a second ${STEPS}-step run in the same process added ${grown(runView.stages.reloaded, runView.stages.second).toFixed(1)} MB more`);
    }
  }
  if (list) {
    const listGrowth = report(list);
    const more = list.second ? `; a second run added ${grown(list.stages.reloaded, list.stages.second).toFixed(1)} MB more` : "";
    console.log(`\n→ with the runs list open the app's tree grew ${listGrowth.toFixed(1)} MB PSS${more}`);
  }
  if ([runView, list].some((r) => r && (r.status !== "succeeded" || (r.second && r.second.status !== "succeeded")))) process.exitCode = 1;
});
