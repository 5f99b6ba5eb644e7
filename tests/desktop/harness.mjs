// Shared harness for desktop end-to-end tests: one tauri-driver per test
// file, a throwaway HOME/BEARAGENT_HOME, sessions that launch the real app
// binary, and screenshots under target/ as evidence.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import net from "node:net";
import { remote } from "webdriverio";

export const repoRoot = resolve(import.meta.dirname, "../..");
export const appBinary =
  process.env.BEARAGENT_APP_BIN ?? join(repoRoot, "target/debug/bearagent-desktop");
export const screenshotDir = join(repoRoot, "target/e2e-screenshots");

async function freePort() {
  return new Promise((ok, fail) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
    srv.on("error", fail);
  });
}

async function waitForPort(port, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const open = await new Promise((ok) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.end();
        ok(true);
      });
      s.on("error", () => ok(false));
    });
    if (open) return;
    await sleep(100);
  }
  throw new Error(`tauri-driver did not listen on ${port} within ${ms} ms`);
}

/** A throwaway environment: HOME, XDG dirs and BEARAGENT_HOME in a temp dir. */
export function makeSandbox() {
  if (!existsSync(appBinary)) {
    throw new Error(`app binary not found at ${appBinary}: build it first (cargo build)`);
  }
  const root = mkdtempSync(join(tmpdir(), "bearagent-e2e-"));
  const dirs = {
    root,
    home: join(root, "home"),
    runtime: join(root, "runtime"),
    data: join(root, "bearagent-home"),
    workspace: join(root, "my-project"),
  };
  for (const d of [dirs.home, dirs.data, dirs.workspace]) mkdirSync(d, { recursive: true });
  mkdirSync(dirs.runtime, { recursive: true, mode: 0o700 });
  mkdirSync(screenshotDir, { recursive: true });
  return dirs;
}

/**
 * An app whose window was closed while a run was still in progress stays
 * (it asks before quitting); it would hold the test runner's pipes open.
 * Kill what this sandbox started.
 */
function killLeftApps(dataDir) {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readlinkSync(`/proc/${pid}/exe`) !== appBinary) continue;
      if (!readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`BEARAGENT_HOME=${dataDir}`)) continue;
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
}

/** Starts tauri-driver with the sandbox's environment (the app inherits it). */
export async function startDriver(sandbox) {
  const port = await freePort();
  const nativePort = await freePort();
  const env = {
    ...process.env,
    HOME: sandbox.home,
    XDG_RUNTIME_DIR: sandbox.runtime,
    XDG_DATA_HOME: join(sandbox.home, ".local/share"),
    XDG_CONFIG_HOME: join(sandbox.home, ".config"),
    BEARAGENT_HOME: sandbox.data,
    // No accessibility bus: its launcher outlives the app and would hold
    // the test runner's pipes open.
    NO_AT_BRIDGE: "1",
  };
  const driver = spawn(
    "tauri-driver",
    ["--port", String(port), "--native-port", String(nativePort)],
    { env, stdio: ["ignore", "ignore", "inherit"] },
  );
  driver.on("error", (e) => console.error("tauri-driver failed to start:", e.message));
  await waitForPort(port, 15_000);
  return {
    port,
    async stop() {
      driver.kill("SIGTERM");
      await sleep(200);
      killLeftApps(sandbox.data);
    },
  };
}

/**
 * Launches the app in a new WebDriver session; `args` are its command-line
 * arguments (e.g. a `.bearagent-run` file to open), none by default.
 * tauri-driver listens before the WebKit driver behind it is ready, so on
 * a loaded machine the first session request can find its connection reset
 * (seen in a CI dry run): that request created nothing, so it is sent
 * again, a few times at most.
 */
export async function launchApp(driver, { args = [] } = {}) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const browser = await remote({
        hostname: "127.0.0.1",
        port: driver.port,
        logLevel: "warn",
        connectionRetryCount: 0,
        capabilities: {
          browserName: "wry",
          "tauri:options": { application: appBinary, args },
          "wdio:enforceWebDriverClassic": true,
        },
      });
      await browser.$('.shell[data-ready="true"]').waitForExist({ timeout: 20_000 });
      return browser;
    } catch (e) {
      const reset = /UND_ERR_SOCKET|ECONNRESET|ECONNREFUSED|socket hang up/.test(String(e?.message ?? e));
      if (!reset || attempt >= 3) throw e;
      await sleep(1_000 * attempt);
    }
  }
}

export const byTestId = (browser, id) => browser.$(`[data-testid="${id}"]`);

export async function screenshot(browser, name) {
  const file = join(screenshotDir, `${name}.png`);
  // Let WebKit paint the last DOM change before capturing.
  await browser.pause(300);
  // WebKitWebDriver's screenshot waits for the page's next presentation
  // update. Painting without compositing (the app's default where there is
  // no GPU render node, webkit_env.rs), a page that has stopped changing
  // never makes one, and the command hangs: while it waits, the page
  // repaints a near-invisible dot, removed once the screenshot is taken
  // (or after 3 s, should the command fail).
  await browser.execute(() => {
    const dot = Object.assign(document.createElement("div"), { ariaHidden: "true", id: "e2e-repaint" });
    dot.style.cssText = "position:fixed;left:0;top:0;width:1px;height:1px;pointer-events:none;background:rgba(0,0,0,0.01)";
    document.body.append(dot);
    let n = 0;
    const tick = () => {
      if (!dot.isConnected) return;
      dot.style.background = `rgba(0,0,0,${n % 2 ? 0.01 : 0.02})`;
      if (++n < 200) setTimeout(tick, 16);
      else dot.remove();
    };
    setTimeout(tick, 16);
  });
  try {
    await browser.saveScreenshot(file);
  } finally {
    await browser.execute(() => document.getElementById("e2e-repaint")?.remove()).catch(() => {});
  }
  return file;
}

export const WAIT = { timeout: 20_000 };
/** For what waits on the model (a run's outcome, a card's approval row). */
export const LONG = { timeout: 30_000 };

/** Runs `body`; on failure saves a screenshot named after the step first. */
export async function step(app, name, body) {
  try {
    return await body();
  } catch (error) {
    await screenshot(app, `fail-${name}`).catch(() => {});
    throw error;
  }
}

/** The run's Events view (its event timeline); a run opens in its Conversation view. */
export async function showEvents(app) {
  await byTestId(app, "timeline-tab").click();
  await app.$('.timeline[data-loaded="true"]').waitForExist(WAIT);
}

/** Starts the demo from the home screen; returns the demo workspace path. */
export async function startDemo(app) {
  // The app may reopen the previous demo's workspace at start: wait for a new one.
  const previous = await byTestId(app, "current-workspace")
    .getAttribute("data-path")
    .catch(() => null);
  await byTestId(app, "try-demo").waitForClickable(WAIT);
  await byTestId(app, "try-demo").click();
  await byTestId(app, "demo-badge").waitForDisplayed(WAIT);
  const current = byTestId(app, "current-workspace");
  let path = null;
  await app.waitUntil(async () => {
    path = await current.getAttribute("data-path");
    return typeof path === "string" && path.includes("bearagent-demo-") && path !== previous;
  }, { ...WAIT, timeoutMsg: "the demo workspace never became current" });
  return path;
}

/** Opens `folder` (made if missing) as the current workspace; returns it. */
export async function openWorkspace(app, folder) {
  mkdirSync(folder, { recursive: true });
  await byTestId(app, "path-input").waitForDisplayed(WAIT);
  await byTestId(app, "path-input").setValue(folder);
  await byTestId(app, "open-path").click();
  const current = byTestId(app, "current-workspace");
  await app.waitUntil(async () => (await current.isExisting()) && (await current.getAttribute("data-path")) === folder, {
    ...WAIT,
    timeoutMsg: `${folder} never became the current workspace`,
  });
  return folder;
}

/**
 * Fills the home screen's new-run form (the loopback provider, `approval`,
 * Plan first as `planFirst`) and starts the run; waits for its view (not
 * `previous`'s); returns its run id.
 */
export async function startRun(app, { goal, approval = "allow_all", planFirst = false, previous = null }) {
  await byTestId(app, "nav-home").click();
  await byTestId(app, "run-goal").waitForDisplayed(WAIT);
  await byTestId(app, "run-goal").setValue(goal);
  await byTestId(app, "run-provider").selectByAttribute("value", "local");
  await byTestId(app, "run-approval").selectByAttribute("value", approval);
  const planFirstBox = byTestId(app, "run-plan-first");
  if ((await planFirstBox.isSelected()) !== planFirst) await planFirstBox.click();
  assert.equal(await planFirstBox.isSelected(), planFirst, "Plan first is set as asked");
  await byTestId(app, "start-run").click();
  const view = previous ? app.$(`[data-testid="run-view"]:not([data-run-id="${previous}"])`) : byTestId(app, "run-view");
  await view.waitForDisplayed(WAIT);
  return view.getAttribute("data-run-id");
}

/** The run's outcome line once it has `status`. */
export const outcome = (app, status) => app.$(`[data-testid="run-outcome"][data-status="${status}"]`);
/** The tool card of call `callId`. */
export const card = (app, callId) => app.$(`[data-testid="tool-card"][data-call-id="${callId}"]`);

export const pendingApproval = (app) => app.$('[data-testid="approval-row"][data-state="pending"]');

/**
 * Scrolls the (virtualised) timeline top to bottom and returns the text of
 * every row seen, keyed by `data-type` and in seq order: [{type, seq, text}].
 */
export async function timelineRows(app) {
  // A run opens in its conversation: the rows are in the Events view.
  await byTestId(app, "timeline-tab").click();
  await app.$(".timeline").waitForExist(WAIT);
  return app.execute(async () => {
    const root = document.querySelector(".timeline");
    if (!root) return [];
    const scroller = [...root.querySelectorAll("*")].find((e) => e.scrollHeight > e.clientHeight + 10);
    const rows = new Map();
    const collect = () => {
      for (const row of root.querySelectorAll('[data-testid="timeline-row"]')) {
        const seq = Number(row.getAttribute("data-seq") ?? row.getAttribute("data-index") ?? rows.size);
        rows.set(seq, { type: row.getAttribute("data-type"), seq, text: row.innerText });
      }
    };
    if (scroller) {
      for (let top = 0; top <= scroller.scrollHeight; top += scroller.clientHeight / 3) {
        scroller.scrollTop = top;
        await new Promise((r) => setTimeout(r, 120));
        collect();
      }
    } else {
      collect();
    }
    return [...rows.values()].sort((a, b) => a.seq - b.seq);
  });
}
