// Shared setup of the Chromium UI tests: the real UI on the Vite dev server
// with the dev-only mock backend (`?mockIpc`), headless Chromium from the
// system (same flags as workspace.ui.test.mjs).
import { mkdir } from "node:fs/promises";
import { createServer as createNetServer } from "node:net";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { createServer } from "vite";

export const uiRoot = fileURLToPath(new URL("..", import.meta.url));
export const screenshotDir = fileURLToPath(new URL("../../target/ui-screenshots/", import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const TIMEOUT = 10_000;
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Starts Vite and Chromium; returns helpers and a `close`. */
export async function startUi() {
  const port = await freePort();
  const server = await createServer({
    root: uiRoot,
    logLevel: "warn",
    server: { host: "127.0.0.1", port, strictPort: true, hmr: false },
  });
  await server.listen();
  const baseUrl = `http://127.0.0.1:${port}/?mockIpc`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  await mkdir(screenshotDir, { recursive: true });

  /** A fresh page with an optional mock seed; collects page errors for the end of the test. */
  async function openApp(seed, { colorScheme = "light", hash = "" } = {}) {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      colorScheme,
      timezoneId: "UTC",
      locale: "en-US",
    });
    context.setDefaultTimeout(TIMEOUT);
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error" || msg.type() === "warning") problems.push(`${msg.type()}: ${msg.text()}`);
    });
    if (seed) {
      await page.addInitScript((value) => {
        window.__BEARAGENT_MOCK_SEED__ = value;
      }, seed);
    }
    // The first page of a fresh dev server transforms every module and fixture (≈ 12 MB): slow on a busy machine.
    await page.goto(baseUrl + hash, { timeout: 30_000 });
    await page.locator('.shell[data-ready="true"]').waitFor({ timeout: 30_000 });
    return { page, problems, close: () => context.close() };
  }

  return {
    openApp,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

export const byId = (page, id) => page.getByTestId(id);

export async function shot(page, name) {
  // Let the last DOM change paint before capturing.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.screenshot({ path: `${screenshotDir}${name}.png` });
}

/** The seqs of the timeline rows in the DOM, in document order. */
export async function renderedSeqs(page) {
  return page.locator('[data-testid="timeline-row"]').evaluateAll((rows) => rows.map((r) => Number(r.dataset.seq)));
}

/** A provider configured in the mock's settings. */
export const OPENAI = {
  name: "openai",
  protocol: "openai-chat",
  baseUrl: "https://api.openai.com/v1",
  model: "gpt-4.1",
  keySource: { kind: "keychain" },
  keyPresent: true,
  toolMode: "native",
  price: null,
};

/** The same provider with gpt-4.1's list price (USD per million tokens). */
export const OPENAI_PRICED = { ...OPENAI, price: { inputPerMtok: 2, outputPerMtok: 8, cachedInputPerMtok: 0.5 } };

/** The run's Events view (the event timeline); a run opens in its Conversation view. */
export async function showEvents(page) {
  await page.getByTestId("timeline-tab").click();
  await page.locator('.timeline[data-loaded="true"]').waitFor();
}
