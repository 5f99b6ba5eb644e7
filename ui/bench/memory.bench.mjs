// Memory of the run view: the production build in headless Chromium, with
// the fake Tauri IPC (bench/fakeIpc.js) serving the soak bench's run
// (tests/desktop/bench/soak.bench.mjs): per step a model call with usage
// and a read_file call whose result is a 64-line text of ~1 KB; 14 000
// events by default, paged in 500 at a time like the real `list_events`.
//
//   npm run bench:ui-memory     (BENCH_EVENTS=…, BENCH_ROUNDS=…, BENCH_SNAPSHOT=0 to skip the snapshot)
//
// Each round is a fresh page: the runs list alone, then the run opened
// (its Conversation, the default), then its Events tab, then back to the
// runs list (what the closed run leaves behind). At each stage, after two
// forced GCs: the JS heap in use (CDP Runtime.getHeapUsage), DOM nodes
// (Performance.getMetrics) and elements in the document; each against the
// runs list of the same round.
//
// Then a heap snapshot of the Events stage, in a build that keeps its
// class names (identifiers not minified; the heap is otherwise the same):
// what grew by constructor against the runs list's snapshot, what each
// store of the run view retains (dominator tree), and the long strings
// (tool results) — how many and how many are copies of another.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { build, preview } from "vite";
import { byConstructor, byName, holders, longStrings, stringCopies, takeSnapshot, topRetainers } from "./heapSnapshot.mjs";

const uiRoot = fileURLToPath(new URL("..", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const EVENTS = Number(process.env.BENCH_EVENTS ?? 14_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SNAPSHOT = process.env.BENCH_SNAPSHOT !== "0";
const STAGES = ["list", "conversation", "events", "closed"];
const STAGE_NAMES = { list: "runs list only", conversation: "run open: Conversation", events: "run open: Events", closed: "back to the runs list" };
const STORES = ["RunViewStore", "EventLog", "ConversationFold", "TimelineIndex", "CardState", "CommandOutputs", "ArtifactsStore", "ThreadStore", "ReplyStore", "RewindStore"];

const MB = 1024 * 1024;
const mb = (bytes) => `${(bytes / MB).toFixed(2)} MB`;
const signed = (bytes) => `${bytes >= 0 ? "+" : "−"}${(Math.abs(bytes) / MB).toFixed(2)} MB`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fakeIpc = await readFile(new URL("./fakeIpc.js", import.meta.url), "utf8");

/** Builds the UI into a temporary folder and serves it; `named` keeps class names for the snapshot. */
async function serve(named) {
  const outDir = await mkdtemp(join(tmpdir(), "bearagent-memory-"));
  await build({ root: uiRoot, logLevel: "warn", ...(named ? { esbuild: { minifyIdentifiers: false } } : {}), build: { outDir, emptyOutDir: true } });
  const server = await preview({ root: uiRoot, logLevel: "warn", build: { outDir }, preview: { host: "127.0.0.1", port: 0, strictPort: false } });
  return {
    base: server.resolvedUrls.local[0],
    close: async () => {
      await server.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

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
  await page.addInitScript(`window.__BENCH__ = { events: ${EVENTS}, shape: "soak" };\n${fakeIpc}`);
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  return { page, cdp, problems, close: () => context.close() };
}

/** Heap in use after two forced GCs, DOM nodes and elements. */
async function sample(page, cdp) {
  await page.waitForTimeout(500);
  for (let i = 0; i < 2; i++) await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  const { metrics } = await cdp.send("Performance.getMetrics");
  const metric = (name) => metrics.find((m) => m.name === name)?.value ?? NaN;
  const elements = await page.evaluate(() => document.getElementsByTagName("*").length);
  return { heap: usedSize, nodes: metric("Nodes"), listeners: metric("JSEventListeners"), elements };
}

/** Walks a fresh page through the stages; `atStage(name)` runs after each stage's sample. */
async function walk(base, atStage = async () => {}) {
  const { page, cdp, problems, close } = await newPage();
  const result = {};
  const stage = async (name) => {
    result[name] = await sample(page, cdp);
    await atStage(name, cdp);
  };
  try {
    await page.goto(`${base}#/`);
    await page.locator('[data-testid="run-row"]').first().waitFor({ timeout: 30_000 });
    await stage("list");
    await page.evaluate(() => (window.location.hash = `#/run/${window.__benchIpc.runId}`));
    await page.locator('.conversation[data-loaded="true"]').waitFor({ timeout: 120_000 });
    await stage("conversation");
    await page.getByTestId("timeline-tab").click();
    const count = await page.evaluate(() => window.__benchIpc.eventCount);
    await page.locator(`.timeline[data-loaded="true"][data-count="${count}"]`).waitFor({ timeout: 120_000 });
    await stage("events");
    await page.evaluate(() => (window.location.hash = "#/"));
    await page.locator('[data-testid="run-row"]').first().waitFor({ timeout: 30_000 });
    await stage("closed");
    result.eventCount = count;
    result.problems = problems;
    return result;
  } finally {
    await close();
  }
}

function reportRounds(rounds) {
  const count = rounds[0].eventCount;
  console.log(`\nBearAgent run-view memory — the soak's run of ${count.toLocaleString("en-US")} events (read_file results of ~1 KB), production build, headless Chromium`);
  console.log("  JS heap in use after forced GC (Runtime.getHeapUsage); DOM nodes (Performance.getMetrics); elements in the document\n");
  rounds.forEach((r, k) => {
    console.log(`round ${k + 1}`);
    for (const s of STAGES) {
      const m = r[s];
      const against = s === "list" ? "" : `  ${signed(m.heap - r.list.heap)} (${(m.heap / r.list.heap).toFixed(2)}×), nodes ${m.nodes - r.list.nodes >= 0 ? "+" : ""}${m.nodes - r.list.nodes}`;
      console.log(`  ${STAGE_NAMES[s].padEnd(24)} heap ${mb(m.heap).padStart(9)}  nodes ${String(m.nodes).padStart(6)}  elements ${String(m.elements).padStart(5)}${against}`);
    }
    if (r.problems.length) console.log(`  page errors: ${r.problems.join("; ")}`);
  });
  console.log(`\nmedians over ${rounds.length} rounds (against the runs list of the same round)`);
  for (const s of STAGES) {
    const heap = median(rounds.map((r) => r[s].heap));
    const delta = median(rounds.map((r) => r[s].heap - r.list.heap));
    const ratio = median(rounds.map((r) => r[s].heap / r.list.heap));
    const nodes = median(rounds.map((r) => r[s].nodes));
    console.log(`  ${STAGE_NAMES[s].padEnd(24)} heap ${mb(heap).padStart(9)}${s === "list" ? "" : `  ${signed(delta)} (${ratio.toFixed(2)}×)`}  nodes ${nodes}`);
  }
}

function reportSnapshot(list, events) {
  const before = byConstructor(list);
  const after = byConstructor(events);
  const grown = [...after]
    .map(([key, row]) => ({ key, ...row, dCount: row.count - (before.get(key)?.count ?? 0), dSelf: row.self - (before.get(key)?.self ?? 0) }))
    .sort((a, b) => b.dSelf - a.dSelf)
    .slice(0, 15);
  const total = (rows) => [...rows.values()].reduce((sum, r) => sum + r.self, 0);
  console.log(`\nHeap snapshot, Events stage against the runs list (class names kept): reachable ${mb(total(after))} vs ${mb(total(before))}`);
  console.log("  grown most, by constructor (self size):");
  for (const g of grown) console.log(`    ${g.key.slice(0, 40).padEnd(40)} ${signed(g.dSelf).padStart(10)}  ${g.dCount >= 0 ? "+" : ""}${g.dCount} objects`);
  console.log("  what the run view's stores retain (dominator tree), and their largest fields:");
  for (const h of holders(events, STORES)) {
    const fields = h.fields.slice(0, 4).filter((f) => f.retained >= 1024).map((f) => `${f.name} ${mb(f.retained)}`).join(", ");
    console.log(`    ${h.name.padEnd(18)} ${mb(h.retained).padStart(9)}${fields ? `  (${fields})` : ""}`);
  }
  console.log("  largest retainers:");
  for (const t of topRetainers(events)) console.log(`    ${t.name.slice(0, 40).padEnd(40)} retains ${mb(t.retained).padStart(9)} (self ${mb(t.self)})`);
  const s = longStrings(events);
  console.log(`  strings of ≥ 512 characters: ${s.count} (${mb(s.bytes)}), ${s.copies} of them copies of another`);
  const c = stringCopies(events);
  console.log(`  shorter strings: ${c.count} (${mb(c.bytes)}); ${c.copies} are copies of another (${mb(c.copyBytes)}), most:`);
  for (const t of c.top) console.log(`    ${JSON.stringify(t.text.slice(0, 50)).padEnd(54)} ×${t.count}  ${mb(t.wasted)}`);
  for (const type of ["code", "array"]) {
    console.log(`  ${type}, by name (self size):`);
    for (const t of byName(events, type, 5)) console.log(`    ${t.name.padEnd(60)} ${mb(t.self)} (${t.count})`);
  }
}

const prod = await serve(false);
try {
  const rounds = [];
  for (let k = 0; k < ROUNDS; k++) rounds.push(await walk(prod.base));
  reportRounds(rounds);
} finally {
  await prod.close();
}
if (SNAPSHOT) {
  const named = await serve(true);
  try {
    const snaps = {};
    await walk(named.base, async (name, cdp) => {
      if (name !== "conversation") snaps[name] = await takeSnapshot(cdp);
    });
    reportSnapshot(snaps.list, snaps.events);
    const left = holders(snaps.closed, STORES).map((h) => h.name);
    console.log(`  back on the runs list, the run view's stores left in the heap: ${left.length === 0 ? "none" : left.join(", ")}`);
  } finally {
    await named.close();
  }
}
await browser.close();
