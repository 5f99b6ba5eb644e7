// Chromium flow tests of run files against the dev-only mock backend:
// "Open run file…" imports the picked `.bearagent-run` file and opens its
// run by id (made on another machine, in no workspace of this one), marked
// imported and read-only — no reply box, "Fork from here" kept: the fork
// works in the workspace open here, and with none open the backend's
// refusal is shown as it words it; a cancelled pick does nothing; a
// refused file's error is shown; a file the app was started with opens
// the same way. A run imported in an earlier session is read-only by the
// backend's word (`importedFrom`), not this window's: opened by its file
// again (the import adds nothing) or by its address. Imported runs are
// never in the workspace's runs list (theirs is another machine's): the
// "Opened run files" list (`searchRuns({ importedOnly })`) shows them,
// tagged imported, in any session, with or without a workspace open, and
// opens them read-only.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OPENAI, byId, shot, showEvents, startUi } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const FILE = "/home/dev/Downloads/calc-fix.bearagent-run";
const RUN = "0190a000-0000-7000-8000-00000b0a0001";
const runFile = { runId: RUN, scenario: "conversation", workspacePath: "/home/alex/src/calc" };
// A run file whose run has a recorded fork (from #3) for the mock to play.
const FORKABLE_FILE = "/home/dev/Downloads/notes-report.bearagent-run";
const FORKABLE = "0190a000-0000-7000-8000-00000b0a0002";
const forkableFile = { runId: FORKABLE, scenario: "provider", take: 3, workspacePath: "/home/alex/src/notes" };
const seed = (extra = {}) => ({
  recent: [PROJECT],
  current: PROJECT,
  settings: { providers: [OPENAI] },
  runFiles: { [FILE]: runFile },
  pickRunFile: FILE,
  ...extra,
});
// A run made here, in the workspace open: listed with its runs, never under "Opened run files".
const LOCAL = "0190a000-0000-7000-8000-00000b0a00f1";
const withLocalRun = { recorded: { [PROJECT]: [{ runId: LOCAL, scenario: "demo" }] } };
/** The imported-run notice, naming the bundle's file as the backend gives it. */
const importedNote = (path) =>
  `Imported from another BearAgent (${path.split("/").pop()}) — read-only: inspect it, or fork it into a workspace of yours.`;

const commandsSent = (page) => page.evaluate(() => window.__bearagentMock.calls.map((c) => c.cmd));
/** Waits until the window has asked for the imported runs `times` times, then lets the answer render. */
async function importedListAsked(page, times = 1) {
  await page.waitForFunction(
    (n) => window.__bearagentMock.calls.filter((c) => c.cmd === "search_runs" && c.args.filter?.importedOnly === true).length >= n,
    times,
  );
  await settle(page);
}
/** The run's row in the "Opened run files" list, tagged imported (naming its file); the runs list has none. */
async function importedRow(page, runId, path) {
  const row = byId(page, "imported-runs").locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
  await row.waitFor();
  assert.equal(await row.getByTestId("run-imported").getAttribute("title"), `Imported from ${path.split("/").pop()}: read-only here`);
  assert.equal(await byId(page, "runs-list").locator(`[data-testid="run-row"][data-run-id="${runId}"]`).count(), 0);
  return row;
}
const settle = (page) => page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));

/** The imported run's view: loaded, marked imported, no reply box or Compact. */
async function assertImportedRunView(page) {
  const view = page.locator(`[data-testid="run-view"][data-run-id="${RUN}"]`);
  await view.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
  assert.equal(new URL(page.url()).hash, `#/run/${RUN}`);
  assert.equal((await byId(page, "imported-run").innerText()).trim(), importedNote(FILE));
  assert.match(await view.locator("h2.goal").innerText(), /Fix the failing test in calc\.py/);
  assert.equal(await byId(page, "reply-box").count(), 0);
  assert.equal(await byId(page, "compact-run").count(), 0);
}

test("Open run file… imports the picked file and opens its run read-only; Fork from here stays", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    await byId(page, "runs-empty").waitFor();
    await byId(page, "open-run-file").click();
    await assertImportedRunView(page);
    assert.equal((await commandsSent(page)).filter((cmd) => cmd === "open_run_file").length, 1);
    await shot(page, "bundles-imported-run");

    // Its events can be forked from; there is still no reply box.
    await showEvents(page);
    assert.equal(await byId(page, "reply-box").count(), 0);
    assert.ok((await page.locator('[data-testid="timeline-row"][data-seq="5"]').getByTestId("fork-from-here").count()) > 0);

    // It was made in a folder of another machine: not listed in this workspace.
    // Opened again: the same run, already here (the import adds nothing), still read-only.
    await byId(page, "back-to-runs").click();
    await byId(page, "runs-empty").waitFor();
    await byId(page, "open-run-file").click();
    await assertImportedRunView(page);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("an imported run is listed under Opened run files, tagged imported, and opens from there read-only", async () => {
  const { page, problems, close } = await ui.openApp(seed(withLocalRun));
  try {
    // None imported yet: no such list (the run made here is in the runs list only).
    await byId(page, "runs-list").locator(`[data-testid="run-row"][data-run-id="${LOCAL}"]`).waitFor();
    await importedListAsked(page);
    assert.equal(await byId(page, "imported-runs").count(), 0);

    await byId(page, "open-run-file").click();
    await assertImportedRunView(page);
    await byId(page, "back-to-runs").click();
    // Not in this workspace's runs: listed under Opened run files, alone.
    await byId(page, "runs-list").locator(`[data-testid="run-row"][data-run-id="${LOCAL}"]`).waitFor();
    const row = await importedRow(page, RUN, FILE);
    assert.equal(await byId(page, "imported-runs").locator('[data-testid="run-row"]').count(), 1);
    assert.match(await row.getByTestId("run-link").innerText(), /Fix the failing test in calc\.py/);
    await shot(page, "bundles-imported-list");

    await row.click();
    await assertImportedRunView(page);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** Imports the forkable run file and forks its run from #3 with `message`. */
async function forkImported(page, message) {
  await byId(page, "open-run-file").click();
  await page.locator(`[data-testid="run-view"][data-run-id="${FORKABLE}"] [data-testid="run-outcome"][data-status="succeeded"]`).waitFor();
  assert.equal((await byId(page, "imported-run").innerText()).trim(), importedNote(FORKABLE_FILE));
  await showEvents(page);
  await page.evaluate(() => (document.querySelector('[data-testid="timeline"]').scrollTop = 0));
  await page.locator('[data-testid="timeline-row"][data-seq="3"]').hover();
  await page.locator('[data-testid="fork-from-here"][data-seq="3"]').click();
  await byId(page, "fork-message").fill(message);
  await byId(page, "fork-send").click();
}

test("Fork from here on an imported run: the fork works in the workspace open here, and its view opens", async () => {
  const { page, problems, close } = await ui.openApp(seed({ runFiles: { [FORKABLE_FILE]: forkableFile }, pickRunFile: FORKABLE_FILE }));
  try {
    await byId(page, "runs-empty").waitFor();
    await forkImported(page, "Only list the sections");
    await page.waitForFunction((id) => document.querySelector('[data-testid="run-view"]')?.dataset.runId !== id, FORKABLE);
    const fork = await byId(page, "run-view").getAttribute("data-run-id");
    const current = byId(page, "thread-current");
    await current.waitFor();
    assert.equal(await current.getAttribute("data-run-id"), fork);
    assert.equal(await current.getAttribute("data-forked-at"), "3");
    assert.match(await current.getByTestId("thread-relation").innerText(), /forked at #3/);
    await page.locator(`[data-testid="thread-entry"][data-run-id="${FORKABLE}"]`).waitFor();
    await page.locator(`[data-testid="run-view"][data-run-id="${fork}"] [data-testid="run-outcome"][data-status="succeeded"]`).waitFor();
    // The desktop names no workspace: the backend takes the one open here. The fork is not imported.
    const call = await page.evaluate((id) => window.__bearagentMock.calls.find((c) => c.cmd === "reply_to_run" && c.args.runId === id).args, FORKABLE);
    assert.deepEqual(call, { runId: FORKABLE, message: "Only list the sections", atSeq: 3, images: [] });
    assert.equal(await byId(page, "imported-run").count(), 0);
    await byId(page, "reply-box").waitFor();
    await shot(page, "bundles-fork-here");

    // Listed in the workspace open here, not tagged imported; its imported parent is not listed there,
    // but under "Opened run files" (where the fork is not).
    await byId(page, "back-to-runs").click();
    const row = byId(page, "runs-list").locator(`[data-testid="run-row"][data-run-id="${fork}"]`);
    await row.waitFor();
    assert.equal(await row.getByTestId("run-imported").count(), 0);
    await importedRow(page, FORKABLE, FORKABLE_FILE);
    assert.equal(await byId(page, "imported-runs").locator(`[data-testid="run-row"][data-run-id="${fork}"]`).count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Fork from here on an imported run with no workspace open shows the backend's refusal", async () => {
  const { page, problems, close } = await ui.openApp(seed({ recent: [], current: null, runFiles: { [FORKABLE_FILE]: forkableFile }, pickRunFile: FORKABLE_FILE }));
  try {
    await byId(page, "runs-no-workspace").waitFor();
    await forkImported(page, "Only list the sections");
    const error = byId(page, "fork-error").getByTestId("error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "invalid_input");
    assert.match(await error.innerText(), new RegExp(`Cannot start this fork[\\s\\S]*run ${FORKABLE} was imported: open the workspace its fork is to work in, or name it`));
    assert.equal(await byId(page, "run-view").getAttribute("data-run-id"), FORKABLE);
    await shot(page, "bundles-fork-refused");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("with no workspace open, Open run file… is offered; a cancelled pick does nothing", async () => {
  const { page, problems, close } = await ui.openApp(seed({ recent: [], current: null, pickRunFile: null }));
  try {
    await byId(page, "runs-no-workspace").waitFor();
    await byId(page, "open-run-file").click();
    await page.waitForFunction(() => window.__bearagentMock.calls.some((c) => c.cmd === "open_run_file"));
    await settle(page);
    assert.equal(await page.locator(".shell").getAttribute("data-route"), "home");
    assert.equal(await byId(page, "open-run-file-error").count(), 0);
    assert.equal(await byId(page, "run-view").count(), 0);
    assert.equal(await byId(page, "open-run-file").isDisabled(), false);
    assert.ok(!(await commandsSent(page)).includes("import_run_file"));
    await shot(page, "bundles-no-workspace");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a refused file's error is shown and nothing opens: a newer bundle, then a different run with the same id", async () => {
  const newer = { code: "invalid_input", message: "the bundle is version 2, newer than this BearAgent reads (1); use a newer BearAgent" };
  const NEWER = "/home/dev/Downloads/newer.bearagent-run";
  const { page, problems, close } = await ui.openApp(seed({ runFiles: { [NEWER]: { error: newer } }, pickRunFile: NEWER }));
  try {
    await byId(page, "runs-empty").waitFor();
    await byId(page, "open-run-file").click();
    const error = byId(page, "open-run-file-error").getByTestId("error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "invalid_input");
    assert.match(await error.innerText(), /This run file cannot be opened[\s\S]*the bundle is version 2, newer than this BearAgent reads \(1\); use a newer BearAgent/);
    assert.equal(await page.locator(".shell").getAttribute("data-route"), "home");
    await shot(page, "bundles-open-error");
    await error.getByRole("button", { name: "Dismiss error" }).click();
    assert.equal(await byId(page, "open-run-file-error").count(), 0);
  } finally {
    await close();
  }

  // A run made here with the bundle's id: the import is refused with conflict.
  const here = await ui.openApp(seed({ recorded: { [PROJECT]: [{ runId: RUN, scenario: "demo" }] } }));
  try {
    await here.page.locator(`[data-testid="run-row"][data-run-id="${RUN}"]`).waitFor();
    await byId(here.page, "open-run-file").click();
    const error = byId(here.page, "open-run-file-error").getByTestId("error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "conflict");
    assert.match(await error.innerText(), new RegExp(`A different run with this id is already here[\\s\\S]*a different run with id ${RUN} is already in this store`));
    assert.equal(await here.page.locator(".shell").getAttribute("data-route"), "home");
    assert.deepEqual([...problems, ...here.problems], []);
  } finally {
    await here.close();
  }
});

test("started with a run file (no workspace open): its run opens; a file that cannot be read shows its error", async () => {
  const { page, problems, close } = await ui.openApp(seed({ recent: [], current: null, openedRunFile: FILE }));
  try {
    await assertImportedRunView(page);
    const calls = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd.includes("run_file")));
    assert.deepEqual(calls, [
      { cmd: "opened_run_file", args: {} },
      { cmd: "import_run_file", args: { path: FILE } },
    ]);
    await shot(page, "bundles-opened-at-start");
    // Back home with no workspace open: listed under Opened run files.
    await byId(page, "back-to-runs").click();
    await byId(page, "runs-no-workspace").waitFor();
    await importedRow(page, RUN, FILE);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }

  const gone = await ui.openApp(seed({ openedRunFile: "/tmp/gone.bearagent-run" }));
  try {
    const error = byId(gone.page, "open-run-file-error").getByTestId("error");
    await error.waitFor();
    assert.match(await error.innerText(), /This run file cannot be opened[\s\S]*\/tmp\/gone\.bearagent-run is not a readable BearAgent run bundle/);
    assert.equal(await byId(gone.page, "run-view").count(), 0);
    assert.deepEqual(gone.problems, []);
  } finally {
    await gone.close();
  }
});

test("a run imported in an earlier session is read-only by the backend's word: its file opened again, or its address", async () => {
  const earlier = seed({ importedEarlier: { [FILE]: runFile } });
  const { page, problems, close } = await ui.openApp(earlier);
  try {
    // Stored, in no workspace here: not in the runs list.
    await byId(page, "runs-empty").waitFor();
    const summary = await page.evaluate(
      (id) => window.__TAURI_INTERNALS__.invoke("search_runs", { filter: { workspaceId: null, status: null, text: null, limit: null } }).then((runs) => runs.find((r) => r.runId === id)),
      RUN,
    );
    assert.equal(summary?.importedFrom, "calc-fix.bearagent-run");
    // The file again: the import adds nothing, so this window knows nothing of it; the run view asks the backend.
    await byId(page, "open-run-file").click();
    await assertImportedRunView(page);
    const imported = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "open_run_file").length);
    assert.equal(imported, 1);
    await shot(page, "bundles-imported-earlier");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }

  // Its address (as a reloaded window keeps it): no import at all in this window.
  const reloaded = await ui.openApp(earlier, { hash: `#/run/${RUN}` });
  try {
    await assertImportedRunView(reloaded.page);
    assert.ok(!(await commandsSent(reloaded.page)).some((cmd) => cmd.includes("run_file") && cmd !== "opened_run_file"));
    assert.deepEqual(reloaded.problems, []);
  } finally {
    await reloaded.close();
  }
});

test("a run imported in an earlier session is listed under Opened run files at start and opens read-only", async () => {
  const { page, problems, close } = await ui.openApp(seed({ ...withLocalRun, importedEarlier: { [FILE]: runFile } }));
  try {
    await byId(page, "runs-list").locator(`[data-testid="run-row"][data-run-id="${LOCAL}"]`).waitFor();
    const row = await importedRow(page, RUN, FILE);
    await importedListAsked(page);
    assert.equal(await byId(page, "imported-runs").locator('[data-testid="run-row"]').count(), 1);
    // Nothing imported by this window: the list is the backend's.
    assert.ok(!(await commandsSent(page)).some((cmd) => cmd === "open_run_file" || cmd === "import_run_file"));
    await shot(page, "bundles-imported-earlier-list");
    await row.getByTestId("run-link").click();
    await assertImportedRunView(page);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("run menu → Export… saves the run where the dialog picked and says where; a cancelled dialog writes nothing", async () => {
  const { page, problems, close } = await ui.openApp(seed(withLocalRun));
  try {
    const row = byId(page, "runs-list").locator(`[data-testid="run-row"][data-run-id="${LOCAL}"]`);
    await row.getByTestId("run-link").click();
    await page.locator(`[data-testid="run-view"][data-run-id="${LOCAL}"] [data-testid="run-outcome"][data-status="succeeded"]`).waitFor();
    await byId(page, "run-menu").click();
    await byId(page, "run-menu-export").click();
    const written = byId(page, "export-result");
    await written.waitFor();
    const path = `/home/dev/Downloads/${LOCAL}.bearagent-run`;
    assert.equal(await byId(page, "export-path").innerText(), path);
    assert.match(await written.innerText(), /^Exported to \S+\.bearagent-run\.\s+Open it in BearAgent \(Open run file…\) or with bearagent import\./);
    const sent = (await page.evaluate(() => window.__bearagentMock.calls)).filter((c) => /bundle/.test(c.cmd));
    assert.deepEqual(sent, [
      { cmd: "pick_bundle_file", args: { runId: LOCAL } },
      { cmd: "export_run_bundle", args: { runId: LOCAL, path } },
    ]);
    await shot(page, "bundles-exported");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
  // The dialog cancelled: nothing is exported, nothing shown.
  const cancelled = await ui.openApp(seed({ ...withLocalRun, exportFolder: null }));
  try {
    const { page } = cancelled;
    await byId(page, "runs-list").locator(`[data-testid="run-row"][data-run-id="${LOCAL}"]`).getByTestId("run-link").click();
    await page.locator(`[data-testid="run-view"][data-run-id="${LOCAL}"] [data-testid="run-outcome"][data-status="succeeded"]`).waitFor();
    await byId(page, "run-menu").click();
    await byId(page, "run-menu-export").click();
    await page.waitForFunction(() => window.__bearagentMock.calls.some((c) => c.cmd === "pick_bundle_file"));
    await settle(page);
    assert.equal(await byId(page, "export-result").count(), 0);
    assert.equal((await commandsSent(page)).includes("export_run_bundle"), false);
    assert.deepEqual(cancelled.problems, []);
  } finally {
    await cancelled.close();
  }
});
