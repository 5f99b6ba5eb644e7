// Regenerates the app icons: renders icons/app-icon.svg to a 1024x1024 RGBA
// PNG (icons/app-icon.png) with the system Chromium, runs `tauri icon` on it,
// and drops the mobile (android/ios) outputs. Run: npm run icons
import { execFileSync } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const iconsDir = fileURLToPath(new URL("../../icons/", import.meta.url));
const tauriCli = fileURLToPath(new URL("../node_modules/.bin/tauri", import.meta.url));
const svg = await readFile(`${iconsDir}app-icon.svg`, "utf8");

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1024, height: 1024 }, deviceScaleFactor: 1 });
  await page.setContent(
    `<!doctype html><html><body style="margin:0;background:transparent">${svg}</body></html>`,
  );
  const png = await page.locator("svg").screenshot({ omitBackground: true, type: "png" });
  await writeFile(`${iconsDir}app-icon.png`, png);
} finally {
  await browser.close();
}

execFileSync(tauriCli, ["icon", `${iconsDir}app-icon.png`, "-o", iconsDir], { stdio: "inherit" });
await Promise.all(["android", "ios"].map((dir) => rm(`${iconsDir}${dir}`, { recursive: true, force: true })));
console.log(`icons written to ${iconsDir}`);
