// Chromium flow tests of the Changes panel against the dev-only mock
// backend: the changed files of a finished run, their diffs (unified, side
// by side, binary, large), revert / re-apply / keep, a conflict that is
// reverted anyway, export, and the demo run's own write.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { OPENAI, byId, shot, startUi, showEvents } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const RUN = "run-changes";

// The run is one the Rust app recorded (src-tauri/src/scenarios/changes.rs):
// files the file tools changed and created, one a command deleted, a
// binary file and a large log a command wrote, and a file edited since.
const seed = {
  recent: [PROJECT],
  current: PROJECT,
  settings: { providers: [OPENAI] },
  stepMs: 20,
  streamMs: 10,
  recorded: { [PROJECT]: [{ runId: RUN, scenario: "changes" }] },
};

const row = (page, path) => page.locator(`[data-testid="artifact-row"][data-path="${path}"]`);
const rowInState = (page, path, state) => page.locator(`[data-testid="artifact-row"][data-path="${path}"][data-state="${state}"]`);

async function openChanges(page) {
  await byId(page, "run-view").waitFor();
  await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
  await byId(page, "changes-tab").click();
  await page.locator('[data-testid="changes-panel"][data-loaded="true"]').waitFor();
}

test("changes: badges → diff → revert → re-apply → conflict reverted anyway → export", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}` });
  try {
    await openChanges(page);
    const elapsed = await byId(page, "elapsed").innerText();
    assert.equal(await byId(page, "changes-tab").getAttribute("aria-selected"), "true");
    const rows = await page.locator('[data-testid="artifact-row"]').evaluateAll((els) => els.map((e) => [e.dataset.path, e.dataset.change, e.dataset.state]));
    assert.deepEqual(rows, [
      ["assets/flags.png", "added", "pending"],
      ["config/settings.toml", "modified", "conflict"],
      ["docs/guide.md", "modified", "pending"],
      ["docs/old-notes.md", "deleted", "pending"],
      ["docs/plan.md", "added", "pending"],
      ["logs/requests.log", "modified", "pending"],
      ["src/greeter.py", "modified", "pending"],
      ["src/lib.rs", "modified", "pending"],
    ]);
    assert.match(await row(page, "config/settings.toml").getByTestId("artifact-state").innerText(), /conflict/i);
    assert.match(await row(page, "docs/old-notes.md").getByTestId("artifact-change").innerText(), /deleted/i);
    // The dependency a command installed into the ignored node_modules/ is named as not restorable, with its size.
    const untracked = await page.locator('[data-testid="untracked-row"]').allInnerTexts();
    assert.equal(untracked.length, 1, untracked.join("\n"));
    assert.match(untracked[0], /^node_modules\/ made \(dependencies or caches, 1 file, 21 B\) by mkdir -p assets && .* \(#\d+\)$/);

    // The first file is selected: a binary file says so, with its size.
    await page.locator('[data-testid="diff-view"][data-state="loaded"]').waitFor();
    assert.match(await byId(page, "diff-binary").innerText(), /Binary file.*after: 18\.0 KB/);

    // The modified file: its changed lines, numbered, with +N −M in the list.
    await row(page, "src/greeter.py").getByTestId("artifact-select").click();
    await page.locator('[data-testid="artifact-row"][data-path="src/greeter.py"][data-selected="true"]').waitFor();
    const added = page.locator('[data-testid="diff-line"][data-kind="added"]');
    await added.first().waitFor();
    const addedText = await added.allInnerTexts();
    const removedText = await page.locator('[data-testid="diff-line"][data-kind="removed"]').allInnerTexts();
    assert.ok(addedText.some((t) => t.includes('def greet(name, lang="en"):')), addedText.join("\n"));
    assert.ok(removedText.some((t) => t.includes("def greet(name):")), removedText.join("\n"));
    assert.match(await byId(page, "diff-hunk").first().innerText(), /^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    assert.equal(await row(page, "src/greeter.py").getByTestId("artifact-stats").innerText(), "+6 −3");
    await shot(page, "changes-diff-light");

    // Side by side: before on the left, after on the right.
    await byId(page, "diff-mode-split").click();
    await page.locator('[data-testid="diff-view"][data-mode="split"]').waitFor();
    assert.ok((await page.locator('[data-testid="diff-line"][data-kind="removed"]').count()) >= 3);
    await shot(page, "changes-split-light");
    await byId(page, "diff-mode-unified").click();

    // Syntax colours and the changed words of a modified line, in both layouts.
    await row(page, "src/lib.rs").getByTestId("artifact-select").click();
    await page.locator('[data-testid="diff-view"][aria-label="Changes to src/lib.rs"] .hljs-keyword').first().waitFor();
    const marks = page.locator('[data-testid="diff-line"] [data-testid="word-change"]');
    assert.deepEqual(await marks.allInnerTexts(), [", formal: bool", "Bonjour", "Hello", "Salut", "Hi"]);
    assert.deepEqual(await marks.evaluateAll((els) => els.map((e) => e.closest('[data-testid="diff-line"]').dataset.kind)), ["added", "removed", "removed", "added", "added"]);
    await shot(page, "changes-highlight-light");
    await byId(page, "diff-mode-split").click();
    await page.locator('[data-testid="diff-view"][data-mode="split"]').waitFor();
    assert.equal(await marks.count(), 5);
    assert.ok((await page.locator('[data-testid="diff-view"] .hljs-keyword').count()) > 0);
    await shot(page, "changes-highlight-split-light");
    await byId(page, "diff-mode-unified").click();

    // One hunk of two: reverted by keyboard (n moves to a hunk, Enter reverts it); the other stays.
    await row(page, "docs/guide.md").getByTestId("artifact-select").click();
    await page.locator('[data-testid="artifact-row"][data-path="docs/guide.md"][data-selected="true"]').waitFor();
    await page.locator('[data-testid="hunk-revert"][data-hunk="2"]').waitFor();
    assert.equal(await row(page, "docs/guide.md").getByTestId("artifact-stats").innerText(), "+2 −2");
    await byId(page, "diff-view").focus();
    await page.keyboard.press("n");
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.hunk), "1");
    await shot(page, "changes-hunks-light");
    await page.keyboard.press("Enter");
    await rowInState(page, "docs/guide.md", "partial").waitFor();
    assert.match(await row(page, "docs/guide.md").getByTestId("artifact-state").innerText(), /partly reverted/i);
    assert.equal(await row(page, "docs/guide.md").getByTestId("artifact-stats").innerText(), "+1 −1");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="diff-hunk"]').length === 1);
    assert.match(await byId(page, "diff-view").innerText(), /Languages: English, French, Spanish\./);
    assert.doesNotMatch(await byId(page, "diff-view").innerText(), /Greeter guide \(en, fr, es\)/);
    const [hunkCall] = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "revert_hunks").map((c) => c.args));
    assert.deepEqual(hunkCall.hunks, [1]);
    await shot(page, "changes-hunk-reverted-light");

    // Revert → reverted badge → re-apply → back to the run's version.
    await row(page, "src/greeter.py").getByTestId("artifact-revert").click();
    await rowInState(page, "src/greeter.py", "reverted").waitFor();
    assert.match(await row(page, "src/greeter.py").getByTestId("artifact-state").innerText(), /reverted/i);
    assert.equal(await row(page, "src/greeter.py").getByTestId("artifact-revert").count(), 0);
    await shot(page, "changes-reverted-light");
    await row(page, "src/greeter.py").getByTestId("artifact-reapply").click();
    await rowInState(page, "src/greeter.py", "pending").waitFor();
    assert.equal(await row(page, "src/greeter.py").getByTestId("artifact-state").count(), 0);

    // Keep.
    await row(page, "docs/plan.md").getByTestId("artifact-keep").click();
    await rowInState(page, "docs/plan.md", "kept").waitFor();

    // A file edited since the run: revert is refused and explained; "Revert anyway" saves and reverts.
    assert.equal(await byId(page, "artifact-revert-anyway").count(), 0);
    await row(page, "config/settings.toml").getByTestId("artifact-revert").click();
    const conflict = row(page, "config/settings.toml").getByTestId("artifact-conflict");
    await conflict.waitFor();
    assert.match(await conflict.innerText(), /changed since the run wrote it/);
    assert.match(await conflict.innerText(), /current content is saved first/);
    await shot(page, "changes-conflict-light");
    await conflict.getByTestId("artifact-revert-anyway").click();
    await rowInState(page, "config/settings.toml", "reverted").waitFor();
    assert.equal(await byId(page, "artifact-conflict").count(), 0);
    // Reviewing files later is not run time.
    assert.equal(await byId(page, "elapsed").innerText(), elapsed);

    // A large file: stats first, the diff on request, capped at 5 000 lines.
    await row(page, "logs/requests.log").getByTestId("artifact-select").click();
    const statsOnly = byId(page, "diff-stats-only");
    await statsOnly.waitFor();
    assert.match(await statsOnly.innerText(), /\+675 −675, large file/);
    await byId(page, "render-diff").click();
    await byId(page, "diff-show-all").waitFor();
    assert.equal(await page.locator('[data-testid="diff-line"]').count(), 5000);
    await shot(page, "changes-large-light");

    // The timeline recorded the review.
    await byId(page, "timeline-tab").click();
    // The review follows the run's many events: at the end of the (windowed) timeline.
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="timeline"]');
      if (el) el.scrollTop = el.scrollHeight;
      return Boolean(document.querySelector('[data-type="artifact_reverted"]'));
    });
    await page.locator('[data-type="artifact_reapplied"]').first().waitFor();
    await page.locator('[data-type="artifact_kept"]').first().waitFor();

    // Export shows both paths.
    await byId(page, "changes-tab").click();
    await page.locator('[data-testid="changes-panel"][data-loaded="true"]').waitFor();
    await byId(page, "export-run").click();
    await byId(page, "export-paths").waitFor();
    assert.match(await byId(page, "export-json").innerText(), /exports\/run-changes\.json$/);
    assert.match(await byId(page, "export-markdown").innerText(), /exports\/run-changes\.md$/);

    // Revert all: everything not reverted yet goes back.
    await byId(page, "revert-all").click();
    await page.locator('[data-testid="changes-panel"][data-busy="false"]').waitFor();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid="artifact-row"]')].every((r) => r.getAttribute("data-state") === "reverted"),
    );
    assert.equal(await byId(page, "revert-all").isDisabled(), true);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("changes: dark mode, keyboard tabs and a focused row are visible", async () => {
  const { page, problems, close } = await ui.openApp(seed, { hash: `#/run/${RUN}`, colorScheme: "dark" });
  try {
    await byId(page, "run-view").waitFor();
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    await showEvents(page);
    await byId(page, "timeline-tab").focus();
    await page.keyboard.press("ArrowRight");
    await page.locator('[data-testid="changes-panel"][data-loaded="true"]').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "changes-tab");
    await row(page, "src/greeter.py").getByTestId("artifact-select").click();
    await page.locator('[data-testid="diff-line"][data-kind="added"]').first().waitFor();
    await row(page, "config/settings.toml").getByTestId("artifact-revert").click();
    await row(page, "config/settings.toml").getByTestId("artifact-conflict").waitFor();
    await row(page, "src/greeter.py").getByTestId("artifact-revert").focus();
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    const outline = await row(page, "src/greeter.py").getByTestId("artifact-revert").evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.notEqual(outline, "none", "the focused button shows its focus");
    await shot(page, "changes-diff-dark");
    await row(page, "src/lib.rs").getByTestId("artifact-select").click();
    await page.locator('[data-testid="diff-view"] .hljs-keyword').first().waitFor();
    await byId(page, "word-change").first().waitFor();
    await shot(page, "changes-highlight-dark");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("changes: the demo run's write shows up as an added file and can be reverted", async () => {
  const { page, problems, close } = await ui.openApp({ stepMs: 20, streamMs: 10 });
  try {
    await byId(page, "try-demo").click();
    await page.locator('[data-testid="approval-row"][data-state="pending"]').waitFor();
    await byId(page, "approve").click();
    await page.locator('[data-testid="run-outcome"][data-status="succeeded"]').waitFor();
    await byId(page, "changes-tab").click();
    await rowInState(page, "docs/plan.md", "pending").waitFor();
    assert.equal(await row(page, "docs/plan.md").getAttribute("data-change"), "added");
    const lines = page.locator('[data-testid="diff-line"]');
    await lines.first().waitFor();
    assert.deepEqual(new Set(await lines.evaluateAll((els) => els.map((e) => e.dataset.kind))), new Set(["added"]));
    assert.match((await lines.allInnerTexts()).join("\n"), /# Plan/);
    await row(page, "docs/plan.md").getByTestId("artifact-revert").click();
    await rowInState(page, "docs/plan.md", "reverted").waitFor();
    await shot(page, "changes-demo-light");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
