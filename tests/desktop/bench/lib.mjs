// Shared pieces of the desktop benches: binaries, a throwaway sandbox,
// tauri-driver (from ../harness.mjs) with the process tree it starts,
// memory of that tree from /proc, and a scripted ~20 000-event run recorded
// through the CLI into the sandbox's BEARAGENT_HOME.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { setTimeout as sleep } from "node:timers/promises";
import { remote } from "webdriverio";
import { repoRoot, startDriver, WAIT } from "../harness.mjs";
import { plainList } from "./plainList.mjs";

export { repoRoot };
export { byTestId, WAIT } from "../harness.mjs";

// Release builds by default: these are benches, not tests.
const release = (name) => join(repoRoot, "target/release", name);
export const bins = {
  app: process.env.BEARAGENT_APP_BIN ?? release("bearagent-desktop"),
  blank: process.env.BEARAGENT_BLANK_BIN ?? release("bearagent-blank-window"),
  cli: process.env.BEARAGENT_CLI_BIN ?? release("bearagent"),
};

/**
 * The environment the app's desktop entry starts it with (`Exec=env K=V …`
 * in src-tauri/packaging/linux/bearagent.desktop): a bench starts the app
 * as a double-click does.
 */
export function desktopEntryEnv() {
  const template = readFileSync(join(repoRoot, "src-tauri/packaging/linux/bearagent.desktop"), "utf8");
  const exec = template.split("\n").find((l) => l.startsWith("Exec=")) ?? "";
  const words = exec.slice("Exec=".length).split(" ");
  if (words[0] !== "env") return {};
  return Object.fromEntries(words.slice(1).filter((w) => /^[A-Z_]+=/.test(w)).map((w) => w.split("=")));
}

export function requireBins(...names) {
  for (const n of names) {
    if (!existsSync(bins[n])) throw new Error(`${n} binary not found at ${bins[n]} (build it, or set its BEARAGENT_*_BIN)`);
  }
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
export const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];
export const ms = (v) => `${v.toFixed(1)} ms`;
export const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;
export const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
export const verdict = (ok) => (ok ? "MET" : "MISSED");
/** Printed with the figures: other work on the machine moves them. */
export const machine = () => `${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min)`;

/** HOME, XDG dirs and BEARAGENT_HOME in one temp dir (the shape harness.startDriver wants). */
export function makeSandbox() {
  const root = mkdtempSync(join(tmpdir(), "bearagent-bench-"));
  const dirs = { root, home: join(root, "home"), runtime: join(root, "runtime"), data: join(root, "bearagent-home"), workspace: join(root, "big-repo") };
  for (const d of [dirs.home, dirs.data, dirs.workspace]) mkdirSync(d, { recursive: true });
  mkdirSync(dirs.runtime, { recursive: true, mode: 0o700 });
  return dirs;
}

// ---- processes ---------------------------------------------------------------

function stat(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name is in parentheses and may contain spaces.
  const close = s.lastIndexOf(")");
  const rest = s.slice(close + 2).split(" ");
  return { pid: Number(pid), name: s.slice(s.indexOf("(") + 1, close), ppid: Number(rest[1]), startTicks: Number(rest[19]) };
}

/** Epoch ms at which `pid` was forked: its starttime (10 ms ticks, USER_HZ = 100) against /proc/uptime. */
export function forkedAt(pid) {
  const uptimeS = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
  return Date.now() - uptimeS * 1000 + stat(pid).startTicks * 10;
}

function allProcesses() {
  const out = [];
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      out.push(stat(e));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** `root` and every process below it. */
export function descendants(root) {
  const procs = allProcesses();
  const tree = [];
  const want = new Set([root]);
  // Parents appear before children in /proc order except on pid wrap: loop until stable.
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (!want.has(p.pid) && want.has(p.ppid)) {
        want.add(p.pid);
        grew = true;
      }
    }
  }
  for (const p of procs) if (want.has(p.pid)) tree.push(p);
  return tree;
}

const exeOf = (pid) => {
  try {
    return readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, "");
  } catch {
    return null;
  }
};

/** Kb of Pss, Rss (and the anonymous part of Pss) from smaps_rollup. */
export function memoryOf(pid) {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const field = (name) => Number(text.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))?.[1] ?? 0);
  return { pss: field("Pss"), rss: field("Rss"), pssAnon: field("Pss_Anon"), pssFile: field("Pss_File") };
}

/** argv[0]'s file name: /proc/PID/stat cuts names at 15 characters. */
function programOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0].split("/").pop() || null;
  } catch {
    return null;
  }
}

/** Memory of the app process and all its descendants, per process and summed. */
export function treeMemory(appPid) {
  // No app process (e.g. a wrapper script as the binary) would read as
  // zero growth: a goal met.
  if (appPid == null) throw new Error("the app's process was not found: is its BEARAGENT_APP_BIN the binary itself, not a wrapper?");
  const procs = [];
  for (const p of descendants(appPid)) {
    try {
      procs.push({ pid: p.pid, name: p.pid === appPid ? "main" : programOf(p.pid) ?? p.name, ...memoryOf(p.pid) });
    } catch {
      // exited meanwhile
    }
  }
  const sum = (k) => procs.reduce((a, p) => a + p[k], 0);
  return { procs, pss: sum("pss"), rss: sum("rss") };
}

/**
 * A process's PSS (kB) grouped by what its mappings are: a file (shared
 * libraries, caches), [heap] (malloc's brk heap), [anon] (mmap'd anonymous
 * memory: malloc arenas, the JavaScriptCore heap, JIT), memfd:… (buffers
 * shared with another process), [stack], … — to say what holds memory.
 */
export function pssByMapping(pid) {
  const kinds = {};
  let kind = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = line.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/);
    if (header) {
      const name = header[1].trim();
      kind = name === "" ? "[anon]" : name.startsWith("/") ? "files" : name.replace(/ \(deleted\)$/, "");
      continue;
    }
    const pss = line.match(/^Pss:\s+(\d+) kB/);
    if (pss && kind) kinds[kind] = (kinds[kind] ?? 0) + Number(pss[1]);
  }
  return kinds;
}

/** The `top` mapping kinds that grew most from `a` to `b` (pssByMapping results): "[anon] +80.1 MB, …". */
export function mappingGrowth(a, b, top = 4) {
  return Object.keys({ ...a, ...b })
    .map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)])
    .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]))
    .slice(0, top)
    .map(([k, d]) => `${k} ${d >= 0 ? "+" : ""}${mb(d)}`)
    .join(", ");
}

/** "main 80.1 MB, WebKitWebProcess 120.3 MB, …" (PSS). */
export const breakdown = (m, key = "pss") => m.procs.map((p) => `${p.name} ${mb(p[key])}`).join(", ");

// ---- tauri-driver and sessions -----------------------------------------------

/**
 * tauri-driver for this sandbox, plus its pid (found by the sandbox's
 * BEARAGENT_HOME in its environment) so the whole tree it starts —
 * WebKitWebDriver → app → WebKit processes — can be found and killed.
 */
export async function startTree(sandbox) {
  const driver = await startDriver(sandbox);
  const pid = allProcesses().find((p) => {
    if (p.name !== "tauri-driver") return false;
    try {
      return readFileSync(`/proc/${p.pid}/environ`, "utf8").split("\0").includes(`BEARAGENT_HOME=${sandbox.data}`);
    } catch {
      return false;
    }
  })?.pid;
  if (!pid) throw new Error("could not find the tauri-driver just started");
  return {
    port: driver.port,
    pid,
    /** The launched binary's process (child of WebKitWebDriver). */
    appPid(binary) {
      return descendants(pid).find((p) => p.pid !== pid && exeOf(p.pid) === binary)?.pid ?? null;
    },
    /** Kills everything below tauri-driver, then tauri-driver: by pid (once: a pid is reused after). */
    async stop() {
      if (this.stopped) return;
      this.stopped = true;
      for (const p of descendants(pid).reverse()) {
        try {
          process.kill(p.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      await driver.stop();
    },
  };
}

/** A WebDriver session that launches `application` (the binary, or a wrapper that execs it). */
export async function launch(tree, application) {
  const browser = await remote({
    hostname: "127.0.0.1",
    port: tree.port,
    logLevel: "error",
    connectionRetryCount: 0,
    // A scroll pass or a long wait is one long WebDriver request.
    connectionRetryTimeout: 600_000,
    capabilities: { browserName: "wry", "tauri:options": { application }, "wdio:enforceWebDriverClassic": true },
  });
  await browser.setTimeout({ script: 300_000 });
  return browser;
}

/** Ends a session and waits until the app process is gone (so the next start is cold). */
export async function close(browser, tree, binary) {
  await Promise.race([browser.deleteSession().catch(() => {}), sleep(5_000)]);
  for (let i = 0; i < 50 && tree.appPid(binary); i++) await sleep(100);
  const left = tree.appPid(binary);
  if (left) {
    process.kill(left, "SIGKILL");
    await sleep(300);
  }
}

/**
 * Runs `body({ sandbox, startTree, onCleanup })`; at its end, on an error or
 * on Ctrl-C, stops every tree it started and removes the sandbox.
 */
export async function withSandbox(body) {
  const sandbox = makeSandbox();
  const trees = [];
  const extra = [];
  const cleanup = async () => {
    for (const t of trees) await t.stop().catch(() => {});
    for (const f of extra) await f();
    rmSync(sandbox.root, { recursive: true, force: true });
  };
  const onSignal = () => cleanup().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await body({
      sandbox,
      /** `over`: other folders for this tree (`data`, `home`), e.g. a second data folder. */
      startTree: async (over = {}) => {
        const t = await startTree({ ...sandbox, ...over });
        trees.push(t);
        return t;
      },
      onCleanup: (f) => extra.push(f),
    });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await cleanup();
  }
}

// ---- a big scripted run, recorded through the CLI ------------------------------

// Every scripted step is one model call and one tool call: requested,
// started, completed, tool requested, started, completed = 6 events; a run
// adds created + started, and its answer requested, started, completed,
// succeeded: 2 + 6·steps + 4 events.
export const EVENTS_PER_STEP = 6;
export const stepsFor = (events) => Math.floor((events - 6) / EVENTS_PER_STEP);
export const MODULES = 63;

/**
 * Source files of varied length (every 7th has 120 lines, like the mocked
 * UI bench), so the timeline has rows of different heights. The run reads
 * them in turn: consecutive calls always differ, so loop detection never
 * triggers.
 */
export function writeModules(workspace) {
  mkdirSync(join(workspace, "src"), { recursive: true });
  for (let k = 0; k < MODULES; k++) {
    const lines = k % 7 === 0 ? 120 : 3 + (k % 9);
    const body = Array.from({ length: lines }, (_, i) => `fn item_${k}_${i}(input: &str) -> Result<(), Error> { todo!() }\n`).join("");
    writeFileSync(join(workspace, "src", `module_${k}.rs`), body);
  }
}
export const modulePath = (i) => `src/module_${i % MODULES}.rs`;

const run = promisify(execFile);

/** Records a finished run of about `events` events; returns { runId, lastSeq, seconds }. */
export async function recordRun(sandbox, events) {
  writeModules(sandbox.workspace);
  const steps = stepsFor(events);
  const script = Array.from({ length: steps }, (_, i) => ({
    tool_call: { tool_name: "read_file", arguments: { path: modulePath(i) } },
    usage: { input: 100, output: 10 },
  }));
  script.push({ final_answer: `Read ${steps} files.`, usage: { input: 100, output: 10 } });
  const file = join(sandbox.root, "script.json");
  writeFileSync(file, JSON.stringify(script));
  const env = { ...process.env, HOME: sandbox.home, BEARAGENT_HOME: sandbox.data };
  const t0 = Date.now();
  const big = String(10 * steps);
  await run(
    bins.cli,
    ["run", "--workspace", sandbox.workspace, "--script", file, "--approve", "all",
      "--max-model-calls", big, "--max-tool-calls", big, "--max-input-tokens", "1000000000",
      "--max-output-tokens", "100000000", "--max-wall-time", "3600", "--json", "Read every module"],
    { env, maxBuffer: 1 << 30 },
  );
  const seconds = (Date.now() - t0) / 1000;
  const { stdout } = await run(bins.cli, ["runs", "--json"], { env });
  const runId = JSON.parse(stdout.trim().split("\n")[0]).run_id;
  const { stdout: inspected } = await run(bins.cli, ["inspect", runId, "--json"], { env });
  const { last_seq: lastSeq, status } = JSON.parse(inspected);
  if (status.kind !== "succeeded") throw new Error(`the recorded run ended ${status.kind}`);
  return { runId, lastSeq, seconds, steps };
}

// ---- in the blank window ------------------------------------------------------

/**
 * The baseline the app's timeline is measured against: a plain scrolling
 * list (#list) of `rows` text rows, `height` px tall, added to the blank
 * window's page.
 */
export async function appendPlainList(blank, rows, height) {
  await blank.execute(plainList, { rows, height });
}

// ---- in the app ----------------------------------------------------------------

/** Adds `css` to the page as a style sheet (a bench's what-if: the app itself unchanged). */
export async function injectStyle(browser, css) {
  await browser.execute((text) => document.head.append(Object.assign(document.createElement("style"), { textContent: text })), css);
}

/**
 * Shows a tab of the run view and waits until it is selected. A WebDriver
 * click lands where the tab was when it was sent; while a big run's
 * header and conversation still lay out it can land beside it (the Events
 * tab of a 20 000-event run stayed unselected in `bench:memory`), so the
 * click is the element's own, retried until the tab says it is selected.
 */
export async function showTab(app, testId) {
  const tab = app.$(`[data-testid="${testId}"]`);
  await tab.waitForExist(WAIT);
  for (let attempt = 0; attempt < 10; attempt++) {
    await app.execute((id) => document.querySelector(`[data-testid="${id}"]`)?.click(), testId);
    const shown = await app
      .waitUntil(async () => (await tab.getAttribute("aria-selected")) === "true", { timeout: 3_000 })
      .catch(() => false);
    if (shown) return;
  }
  throw new Error(`the run view's ${testId} could not be selected`);
}

/** Home screen → the recorded workspace (as a user would: the recent list, else the path field). */
export async function openWorkspace(app, path, { byTestId, WAIT }) {
  await app.$('.shell[data-ready="true"]').waitForExist(WAIT);
  const current = app.$(`[data-testid="current-workspace"][data-path="${path}"]`);
  if (await current.isExisting()) return; // reopened at start
  const recent = app.$(`[data-testid="recent-item"][data-path="${path}"]`);
  if (await recent.isExisting()) {
    await recent.click();
  } else {
    await byTestId(app, "path-input").setValue(path);
    await byTestId(app, "open-path").click();
  }
  await current.waitForExist(WAIT);
}
