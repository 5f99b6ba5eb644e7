// The real app under Xvfb, run files (`.bearagent-run` bundles):
// - Started with a copy of a replay-corpus bundle as its argument (a
//   double-click on the file), the app imports it and opens its run: the
//   notice says it is imported, naming the file, and read-only; no reply
//   box or Compact; the goal and the conversation (its tool cards, its
//   final answer) are shown.
// - A later session on the same data folder, without the file: the run is
//   under "Opened run files" on the home screen (`searchRuns({
//   importedOnly })`), tagged imported, with no workspace open and with one
//   open (whose runs list never shows it: its workspace is the other
//   machine's); opened from there it is read-only. Reaching it by its
//   address is no path a user has, so it is not tried.
// - A later session started with the same file again: the import adds
//   nothing, so the window itself knows nothing of it; the run opens
//   read-only because the backend marks it imported (`importedFrom`, in
//   its detail and in its summary).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, openWorkspace, repoRoot, WAIT } from "./harness.mjs";

const CORPUS = join(repoRoot, "tests/replay-corpus/file-tools-read-write.bearagent-run");
// The bundle's run, read from its manifest (the corpus is remade when
// requests change, and its runs get new ids), and what it recorded.
const RUN = JSON.parse(execFileSync("tar", ["-xzOf", CORPUS, "manifest.json"], { encoding: "utf8" })).run_id;
const GOAL = "compare the architecture notes in docs and write the conclusion to outputs/report.md";
const ANSWER = "Wrote outputs/report.md comparing A and B.";
// The copy is named unlike the corpus file: the notice names the file imported.
const NAME = "shared-arch-report.bearagent-run";

let sandbox;
let driver;
let file;

before(async () => {
  sandbox = makeSandbox();
  const downloads = join(sandbox.home, "Downloads");
  mkdirSync(downloads, { recursive: true });
  file = join(downloads, NAME);
  copyFileSync(CORPUS, file);
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

/**
 * The bundle's run is open, imported and read-only: the notice names the
 * file; no reply box, no Compact; its goal, its three tool cards and its
 * final answer are shown.
 */
async function assertImportedRunView(app) {
  const view = app.$(`[data-testid="run-view"][data-run-id="${RUN}"]`);
  await view.waitForDisplayed(WAIT);
  await view.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed(WAIT);
  const notice = byTestId(app, "imported-run");
  await notice.waitForDisplayed(WAIT);
  // The exact wording (the space before the file's name) is the Chromium test's (ui/tests/bundles.ui.test.mjs).
  assert.match(
    await notice.getText(),
    /^Imported from another BearAgent ?\(shared-arch-report\.bearagent-run\) — read-only: inspect it, or fork it into a workspace of yours\.$/,
  );
  // Its line clamp (a -webkit-box) hides the heading from WebDriver's visible text: read its text content.
  assert.equal(await view.$("h2.goal").getProperty("textContent"), GOAL);
  assert.equal(await byTestId(app, "final-answer").getText(), ANSWER);
  // The conversation: the goal as the user's message, then the model's calls.
  await byTestId(app, "conversation").waitForDisplayed(WAIT);
  assert.match(await byTestId(app, "conv-user").getText(), new RegExp(GOAL.replace(/[.]/g, "\\.")));
  await app.waitUntil(async () => (await app.$$('[data-testid="tool-card"]').length) === 3, {
    ...WAIT,
    timeoutMsg: "the run's three tool cards were not shown",
  });
  // Nothing to continue it with, even once everything has loaded.
  await sleep(500);
  assert.equal(await byTestId(app, "reply-box").isExisting(), false, "no reply box");
  assert.equal(await byTestId(app, "compact-run").isExisting(), false, "no Compact");
}

/** What the backend says of the run, asked from the window (as its views ask), and what importing its file once more adds. */
function backendViews(app) {
  return app.execute(async (runId, path) => {
    const invoke = window.__TAURI_INTERNALS__.invoke;
    const detail = await invoke("get_run", { runId });
    const all = await invoke("search_runs", { filter: { workspaceId: null, status: null, text: null, limit: null } });
    const again = await invoke("import_run_file", { path });
    return { detail: detail.importedFrom ?? null, summary: all.find((r) => r.runId === runId)?.importedFrom ?? null, added: again.added };
  }, RUN, file);
}

test("started with a run file: the app imports it and opens its run, imported and read-only", async () => {
  const app = await launchApp(driver, { args: [file] });
  try {
    await step(app, "bundles-open-at-start", () => assertImportedRunView(app));
    assert.equal(await app.execute(() => location.hash), `#/run/${RUN}`);
    await screenshot(app, "bundles-01-opened-with-file");
  } finally {
    await app.deleteSession();
  }
});

/** The run's row under "Opened run files", tagged imported (naming the file). */
async function importedRow(app) {
  const row = app.$(`[data-testid="imported-runs"] [data-testid="run-row"][data-run-id="${RUN}"]`);
  await row.waitForDisplayed(WAIT);
  const tag = row.$('[data-testid="run-imported"]');
  assert.equal(await tag.isExisting(), true, "the row is tagged imported");
  assert.equal(await tag.getAttribute("title"), `Imported from ${NAME}: read-only here`);
  return row;
}

test("a later session without the file: the run is under Opened run files, tagged imported, and opens read-only", async () => {
  const app = await launchApp(driver);
  try {
    // No workspace open (the first session opened none): the list is there all the same.
    await step(app, "bundles-later-list", async () => {
      await byTestId(app, "runs-no-workspace").waitForDisplayed(WAIT);
      await importedRow(app);
    });
    assert.equal(await app.$$('[data-testid="imported-runs"] [data-testid="run-row"]').length, 1);
    await screenshot(app, "bundles-02-later-session-list");

    // A workspace open: its runs list never shows the run, "Opened run files" still does.
    await openWorkspace(app, sandbox.workspace);
    await step(app, "bundles-later-list-workspace", async () => {
      await byTestId(app, "runs-empty").waitForDisplayed(WAIT);
      await importedRow(app);
    });
    assert.equal(await app.$(`[data-testid="runs-list"] [data-testid="run-row"][data-run-id="${RUN}"]`).isExisting(), false);

    await step(app, "bundles-later-open", async () => {
      const link = (await importedRow(app)).$('[data-testid="run-link"]');
      await link.scrollIntoView({ block: "center" });
      await link.click();
      await assertImportedRunView(app);
    });
    assert.equal(await app.execute(() => location.hash), `#/run/${RUN}`);
    await screenshot(app, "bundles-03-later-session-opened");
  } finally {
    await app.deleteSession();
  }
});

test("a later session started with the same file again: the import adds nothing, the run is read-only by the backend's word", async () => {
  const app = await launchApp(driver, { args: [file] });
  try {
    await step(app, "bundles-reopen", () => assertImportedRunView(app));
    // The window was told nothing was added; the mark is the backend's, in the run's detail and its summary.
    assert.deepEqual(await backendViews(app), { detail: NAME, summary: NAME, added: [] });
    await screenshot(app, "bundles-04-file-again");
  } finally {
    await app.deleteSession();
  }
});
