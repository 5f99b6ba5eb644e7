// The real app under Xvfb: two runs "In a new worktree" of a real git
// repository, each editing calc.py its own way on a loopback model, run
// side by side without touching the main checkout; both list under their
// worktrees and finish; applying one from its run view lands its calc.py
// in the main checkout while the user's uncommitted change to another file
// stays, nothing is committed there, and `git worktree list` shows both.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, WAIT } from "./harness.mjs";
import { answerTurn, toolTurn, writeLoopbackConfig } from "./loopback-model.mjs";

let sandbox;
let driver;

before(async () => {
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

const CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n";
const NOTES = "# Notes\n\nCommitted.\n";
const NOTES_EDITED = "# Notes\n\nCommitted.\n\nMy uncommitted line.\n";
// Each run's goal names it; the loopback model answers by it.
const RUNS = {
  add: { goal: "Fix add in calc.py", name: "fix-add", edit: { path: "calc.py", old_string: "    return a - b", new_string: "    return a + b" } },
  mul: { goal: "Make mul in calc.py multiply", name: "fix-mul", edit: { path: "calc.py", old_string: "def mul(a, b):\n    return a + b", new_string: "def mul(a, b):\n    return a * b" } },
};
const CALC_ADD_FIXED = CALC.replace("return a - b", "return a + b");

const git = (cwd, ...args) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

/** A repository with calc.py and notes.md committed, and an uncommitted edit of notes.md. */
function makeRepo() {
  const repo = join(sandbox.root, "calc-repo");
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "calc.py"), CALC);
  writeFileSync(join(repo, "notes.md"), NOTES);
  git(repo, "add", "calc.py", "notes.md");
  git(repo, "commit", "-q", "-m", "start");
  writeFileSync(join(repo, "notes.md"), NOTES_EDITED);
  return repo;
}

/**
 * A loopback model for runs in parallel: each request is answered by the
 * run it comes from (its goal is in the request) — its edit first, then,
 * once the edit's result is in the conversation, its answer.
 */
function startRoutedModel() {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const which = body.includes(RUNS.add.goal) ? "add" : "mul";
      const edited = /"role"\s*:\s*"tool"/.test(body);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(edited ? answerTurn(`Edited calc.py (${which}).`) : toolTurn(`call_${which}`, "edit_file", RUNS[which].edit));
    });
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok({ server, port: server.address().port })));
}

/** Fills the new-run form for a run in a new worktree named `name` and starts it. */
async function startInWorktree(app, run) {
  await byTestId(app, "run-goal").waitForDisplayed(WAIT);
  await byTestId(app, "run-goal").setValue(run.goal);
  await byTestId(app, "run-provider").selectByAttribute("value", "local");
  await byTestId(app, "run-approval").selectByAttribute("value", "allow_all");
  await byTestId(app, "run-worktree").click();
  await byTestId(app, "run-worktree-name").waitForDisplayed(WAIT);
  await byTestId(app, "run-worktree-name").setValue(run.name);
  await byTestId(app, "start-run").click();
  await byTestId(app, "run-view").waitForDisplayed(WAIT);
}

const groupSelector = (name) => `[data-testid="worktree-group"][data-branch="bearagent/${name}"]`;

test("worktrees: two runs edit calc.py in their own worktrees; applying one lands its change and keeps the user's uncommitted edit", async () => {
  const repo = makeRepo();
  const head = git(repo, "rev-parse", "HEAD").trim();
  const model = await startRoutedModel();
  writeLoopbackConfig(sandbox.data, model.port);
  const app = await launchApp(driver);
  try {
    await step(app, "worktrees-open", async () => {
      await byTestId(app, "path-input").setValue(repo);
      await byTestId(app, "open-path").click();
      await byTestId(app, "current-workspace").waitForDisplayed(WAIT);
    });

    await step(app, "worktrees-start-add", () => startInWorktree(app, RUNS.add));
    await byTestId(app, "back-to-runs").click();
    await step(app, "worktrees-start-mul", () => startInWorktree(app, RUNS.mul));
    await byTestId(app, "back-to-runs").click();

    // Both list under their worktrees and finish there.
    await step(app, "worktrees-grouped", () =>
      app.waitUntil(
        async () => {
          for (const run of Object.values(RUNS)) {
            const group = app.$(groupSelector(run.name));
            if (!(await group.isExisting()) || (await group.getAttribute("data-state")) !== "ready_to_apply") return false;
            if ((await group.$$('[data-testid="run-row"][data-status="succeeded"]')).length !== 1) return false;
          }
          return true;
        },
        { timeout: 30_000, timeoutMsg: "both worktrees never listed as ready to apply with their finished run" },
      ),
    );
    assert.equal(readFileSync(join(repo, "calc.py"), "utf8"), CALC, "the main checkout is untouched until an apply");
    await screenshot(app, "worktrees-01-list");

    // Apply the "add" run from its run view.
    await app.$(`${groupSelector(RUNS.add.name)} [data-testid="run-link"]`).click();
    await step(app, "worktrees-run-view", () => app.$('[data-testid="worktree-panel"][data-state="ready_to_apply"]').waitForDisplayed(WAIT));
    const addFolder = await byTestId(app, "worktree-folder").getText();
    assert.equal(readFileSync(join(addFolder, "calc.py"), "utf8"), CALC_ADD_FIXED, "the run edited its worktree's calc.py");
    await byTestId(app, "worktree-apply").click();
    await step(app, "worktrees-applied", () => app.$('[data-testid="worktree-panel"][data-state="applied"]').waitForDisplayed(WAIT));
    assert.equal(await byTestId(app, "worktree-report-summary").getText(), "Applied 1 file to the main checkout");
    await screenshot(app, "worktrees-02-applied");

    // On disk: the run's calc.py, the user's notes.md edit intact, nothing committed.
    assert.equal(readFileSync(join(repo, "calc.py"), "utf8"), CALC_ADD_FIXED);
    assert.equal(readFileSync(join(repo, "notes.md"), "utf8"), NOTES_EDITED);
    assert.equal(git(repo, "rev-parse", "HEAD").trim(), head, "no commit on the user's branch");
    assert.deepEqual(git(repo, "status", "--porcelain").split("\n").filter(Boolean).sort(), [" M calc.py", " M notes.md"]);

    // git knows both worktrees, each on its branch, outside the repository.
    const listed = git(repo, "worktree", "list", "--porcelain");
    for (const run of Object.values(RUNS)) assert.match(listed, new RegExp(`branch refs/heads/bearagent/${run.name}\\n`));
    assert.match(listed, new RegExp(`worktree ${addFolder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`));
    assert.ok(!addFolder.startsWith(`${repo}/`), "worktrees are made outside the repository");
  } finally {
    await app.deleteSession();
    model.server.close();
  }
});
