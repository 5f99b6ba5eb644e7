// Chromium flow test of the workspace screen: the real UI served by the Vite
// dev server, with the Tauri IPC replaced by the dev-only mock backend
// (`?mockIpc`, see src/dev/mock/). Run: npm run test:ui
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { byId, screenshotDir, startUi } from "./support.mjs";

let ui;

before(async () => {
  ui = await startUi();
});

after(async () => {
  await ui?.close();
});

/** A fresh page with an optional mock seed; collects page errors for the end of the test. */
const openApp = (seed, options) => ui.openApp(seed, options);

test("workspace flow: prompt, open by path, recents, errors, empty runs", async () => {
  const { page, problems, close } = await openApp();
  try {
    // Nothing open yet: a clear prompt, no current workspace.
    await byId(page, "no-workspace").waitFor();
    assert.match(await byId(page, "no-workspace").innerText(), /choose a folder/i);
    await byId(page, "runs-no-workspace").waitFor();
    await page.screenshot({ path: `${screenshotDir}workspace-none.png` });
    assert.equal(await byId(page, "current-workspace").count(), 0);
    assert.equal(await byId(page, "recent-list").count(), 0);

    // Controls are labelled.
    await page.getByLabel("Open by path").waitFor();
    await page.getByRole("button", { name: "Choose workspace…" }).waitFor();

    // Open by path.
    await byId(page, "path-input").fill("/home/dev/projects/notes");
    await byId(page, "open-path").click();
    const current = byId(page, "current-workspace");
    await current.waitFor();
    assert.match(await current.innerText(), /notes/);
    assert.match(await current.innerText(), /\/home\/dev\/projects\/notes/);
    assert.equal(await byId(page, "no-workspace").count(), 0);
    assert.equal(await byId(page, "path-input").inputValue(), "");

    const recentItems = byId(page, "recent-list").getByTestId("recent-item");
    await recentItems.first().waitFor();
    assert.deepEqual(await recentItems.evaluateAll((els) => els.map((e) => e.dataset.path)), [
      "/home/dev/projects/notes",
    ]);

    // This workspace has no runs yet.
    await byId(page, "runs-empty").waitFor();
    assert.match(await byId(page, "runs-empty").innerText(), /No runs in this workspace yet/);
    assert.equal(await byId(page, "runs-list").count(), 0);

    // A file is not a workspace: the typed error is shown inline, by code.
    await byId(page, "path-input").fill("/home/dev/projects/README.md");
    await page.keyboard.press("Enter");
    const error = byId(page, "error");
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "not_a_directory");
    assert.match(await error.innerText(), /Not a directory: \/home\/dev\/projects\/README\.md/);
    assert.equal(await byId(page, "path-input").getAttribute("aria-invalid"), "true");
    // The previous workspace stays open.
    assert.match(await current.innerText(), /\/home\/dev\/projects\/notes/);

    await page.screenshot({ path: `${screenshotDir}workspace.png` });

    // "Choose workspace…" (the mock dialog picks bear-demo) clears the error.
    await byId(page, "choose-workspace").click();
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="current-workspace"]')?.textContent?.includes("bear-demo"),
    );
    assert.equal(await byId(page, "error").count(), 0);
    assert.deepEqual(await recentItems.evaluateAll((els) => els.map((e) => e.dataset.path)), [
      "/home/dev/projects/bear-demo",
      "/home/dev/projects/notes",
    ]);

    // Clicking a recent workspace opens it.
    await recentItems.filter({ hasText: "/home/dev/projects/notes" }).click();
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="current-workspace"]')?.textContent?.includes("/notes"),
    );
    assert.equal(
      await recentItems.first().getAttribute("data-path"),
      "/home/dev/projects/notes",
      "the reopened workspace moves to the top",
    );

    // Keyboard focus is visible.
    await byId(page, "path-input").focus();
    await page.keyboard.press("Tab");
    const outline = await byId(page, "open-path").evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.notEqual(outline, "none");

    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a workspace-opened event from the backend refreshes the screen", async () => {
  const { page, problems, close } = await openApp();
  try {
    await byId(page, "no-workspace").waitFor();
    await page.evaluate(() => window.__bearagentMock.openFromBackend("/home/dev/projects/bear-demo"));
    await byId(page, "current-workspace").waitFor();
    assert.match(await byId(page, "current-workspace").innerText(), /bear-demo/);
    await byId(page, "recent-item").waitFor();
    await byId(page, "runs-empty").waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("other error codes and a cancelled dialog", async () => {
  const { page, problems, close } = await openApp({ choose: null });
  try {
    await byId(page, "choose-workspace").click();
    await page.waitForFunction(
      () => !document.querySelector('[data-testid="choose-workspace"]')?.hasAttribute("disabled"),
    );
    assert.equal(await byId(page, "error").count(), 0, "cancelling is not an error");
    await byId(page, "no-workspace").waitFor();

    await byId(page, "path-input").fill("/nowhere");
    await byId(page, "open-path").click();
    await byId(page, "error").waitFor();
    assert.equal(await byId(page, "error").getAttribute("data-code"), "not_found");

    await byId(page, "path-input").fill("relative/path");
    await byId(page, "open-path").click();
    await page.locator('[data-testid="error"][data-code="invalid_input"]').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

const seededRuns = {
  recent: ["/home/dev/projects/notes", "/home/dev/projects/bear-demo"],
  current: "/home/dev/projects/bear-demo",
  runs: {
    "/home/dev/projects/bear-demo": [
      run("r-3", "awaiting_approval", "Compare the architecture notes in docs and write the conclusion to outputs/report.md", "2025-03-14T10:05:00Z", 18_420, 2_310),
      run("r-2", "running", "Add a CHANGELOG entry for the 0.2 release", "2025-03-14T09:58:00Z", 6_102, 412),
      // A priced run: the list shows its cost; the others have none (unknown, shown as "—").
      { ...run("r-1", "succeeded", "Summarise open TODOs across src/ into TODO.md", "2025-03-13T16:20:00Z", 1_240_560, 9_870), costMicroUsd: 2_560_080 },
      run("r-0", "failed", "Fix the flaky integration test in tests/sync.rs", "2025-03-12T11:02:00Z", 45_000, 3_200, "provider error: 503 overloaded"),
    ],
  },
};

function run(runId, status, goal, createdAt, inputTokens, outputTokens, statusDetail = null) {
  return {
    runId, status, goal, createdAt, updatedAt: createdAt, statusDetail,
    modelCalls: 3, toolCalls: 2, inputTokens, outputTokens,
  };
}

test("runs of the current workspace are listed (light and dark)", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { page, problems, close } = await openApp(seededRuns, { colorScheme });
    try {
      await byId(page, "runs-list").waitFor();
      const rows = byId(page, "run-row");
      assert.equal(await rows.count(), 4);
      assert.match(await rows.first().innerText(), /Awaiting approval/);
      assert.match(await rows.nth(2).innerText(), /Succeeded[\s\S]*1\.2M \/ 9,870[\s\S]*\$2\.56/);
      assert.equal(await rows.nth(3).getByTestId("run-cost").innerText(), "—");
      assert.equal(await byId(page, "runs-empty").count(), 0);
      assert.equal(await byId(page, "recent-item").count(), 2);
      await page.screenshot({ path: `${screenshotDir}workspace-runs-${colorScheme}.png` });
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  }
});
