// App start on a data folder that has lived a year, against an empty one
// (issue 27): the real app (release build, WebKitGTK under Xvfb, through
// tauri-driver) is started cold with its last workspace reopened, and the
// time from the binary's exec to its runs list painted is compared:
//   - empty: a fresh data folder whose workspace has no runs yet (the list
//     paints its empty state);
//   - year: a copy of `target/year-store` (2 000 runs, ~1 M events, made
//     through the application API by `cargo bench -p bearagent-runtime
//     --bench year_store`), reopening its workspace with the most runs (the
//     list paints its first page of rows).
// Goal: year ≤ 1.2× empty. Start: as memory.bench.mjs, a bash wrapper stamps
// $EPOCHREALTIME just before exec; painted: a frame after the list's rows
// (or empty state) are in the DOM, absolute through performance.timeOrigin.
//
//   npm run bench:startup        (BENCH_STARTS=… cold starts each)
import { execFile } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { machine, bins, repoRoot, requireBins, withSandbox, launch, close, openWorkspace, byTestId, WAIT, median, ms, ratio, verdict } from "./lib.mjs";

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const GOAL = 1.2;
const YEAR_STORE = process.env.BENCH_YEAR_STORE ?? join(repoRoot, "target/year-store");
const run = promisify(execFile);

requireBins("app", "cli");
if (!existsSync(join(YEAR_STORE, "bearagent.db"))) {
  throw new Error(`no year-old store at ${YEAR_STORE}: make it with \`cargo bench -p bearagent-runtime --bench year_store\``);
}

/** A wrapper that stamps the exec time of the app into `stamp`, then becomes it. */
function wrapper(dir, name) {
  const file = join(dir, `${name}-start.sh`);
  const stamp = join(dir, `${name}.stamp`);
  writeFileSync(file, `#!/bin/bash\necho "$EPOCHREALTIME" > '${stamp}'\nexec '${bins.app}' "$@"\n`);
  chmodSync(file, 0o755);
  return { file, stamp };
}

/** The workspace of the store with the most runs, from the CLI's own listing. */
async function busiestWorkspace(data, home) {
  const env = { ...process.env, HOME: home, BEARAGENT_HOME: data };
  const { stdout } = await run(bins.cli, ["runs", "--json", "--limit", "100000"], { env, maxBuffer: 1 << 28 });
  const byWorkspace = new Map();
  for (const line of stdout.trim().split("\n")) {
    const { workspace_id: id, run_id: runId } = JSON.parse(line);
    byWorkspace.set(id, { runId, runs: (byWorkspace.get(id)?.runs ?? 0) + 1 });
  }
  const [{ runId, runs }] = [...byWorkspace.values()].sort((a, b) => b.runs - a.runs);
  const { stdout: inspected } = await run(bins.cli, ["inspect", runId, "--json"], { env, maxBuffer: 1 << 28 });
  const total = [...byWorkspace.values()].reduce((a, w) => a + w.runs, 0);
  return { path: JSON.parse(inspected).workspace_path, runs, total };
}

/** Opens the workspace once, so that each later start reopens it (as a returning user's app does). */
async function remember(tree, workspace) {
  const app = await launch(tree, bins.app);
  try {
    await openWorkspace(app, workspace, { byTestId, WAIT });
  } finally {
    await close(app, tree, bins.app);
  }
}

/** One cold start: exec → the runs list (rows, or its empty state) painted. */
async function coldStart(tree, dir, name) {
  const w = wrapper(dir, name);
  const app = await launch(tree, w.file);
  try {
    const painted = await app.execute(async (timeoutMs) => {
      const list = () => document.querySelector('[data-testid="run-row"], [data-testid="runs-empty"]');
      const t0 = performance.now();
      while (!list()) {
        if (performance.now() - t0 > timeoutMs) throw new Error("the runs list never appeared");
        await new Promise((r) => setTimeout(r, 2));
      }
      // rAF runs before the frame is rendered; a task queued from it runs after it.
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return { at: performance.timeOrigin + performance.now(), rows: document.querySelectorAll('[data-testid="run-row"]').length };
    }, WAIT.timeout ?? 30_000);
    const execAt = Number(readFileSync(w.stamp, "utf8").trim().replace(",", ".")) * 1000;
    return { ms: painted.at - execAt, rows: painted.rows };
  } finally {
    await close(app, tree, bins.app);
  }
}

await withSandbox(async ({ sandbox, startTree }) => {
  // Two data folders side by side: the sandbox's (empty) and the year's copy.
  const empty = { name: "empty", data: sandbox.data, workspace: sandbox.workspace };
  const yearData = join(sandbox.root, "year-home");
  cpSync(YEAR_STORE, yearData, { recursive: true });
  const busiest = await busiestWorkspace(yearData, sandbox.home);
  // Its folder was a scratch folder of the run that made the store: make it again.
  mkdirSync(busiest.path, { recursive: true });
  const year = { name: "year", data: yearData, workspace: busiest.path };

  // Each its own HOME too: the app remembers its last workspace per user.
  const trees = {};
  for (const s of [empty, year]) {
    const home = join(sandbox.root, `${s.name}-user`);
    mkdirSync(home, { recursive: true });
    trees[s.name] = await startTree({ data: s.data, home });
    await remember(trees[s.name], s.workspace);
    await coldStart(trees[s.name], sandbox.root, s.name); // warm-up, discarded
  }
  const results = { empty: [], year: [] };
  for (let i = 0; i < STARTS; i++) {
    for (const s of [empty, year]) results[s.name].push(await coldStart(trees[s.name], sandbox.root, s.name));
  }

  const med = (name) => median(results[name].map((r) => r.ms));
  console.log(`\nBearAgent start on a year-old data folder — exec → runs list painted, real app (${bins.app})`);
  console.log(`  year: ${busiest.total.toLocaleString("en-US")} runs (copy of ${YEAR_STORE}), reopening ${busiest.path} (${busiest.runs} runs); ${STARTS} alternating cold starts each after a warm-up; ${machine()}`);
  console.log(`  empty data folder ${ms(med("empty"))} [${results.empty.map((r) => r.ms.toFixed(0)).join(", ")}]`);
  console.log(`  year-old store    ${ms(med("year"))} [${results.year.map((r) => r.ms.toFixed(0)).join(", ")}], ${results.year[0].rows} rows painted`);
  console.log(`  → ${verdict(med("year") / med("empty") <= GOAL)}: ${ratio(med("year"), med("empty"))} (goal ≤ ${GOAL}×)`);
});
