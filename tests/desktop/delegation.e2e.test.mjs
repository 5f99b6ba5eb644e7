// The real app under Xvfb, helpers (delegation) on a loopback model: a
// run started with the form's Helpers switch and "Ask for everything"
// calls `task`; its helper calls `task` again; that helper (depth 2)
// reads A.md. The parent's own call is asked on its card; the helper's
// and the depth-2 helper's calls are asked on the parent's `task` card,
// each labelled with the helper's description, and approved there. The
// answer reaches the depth-2 run (the CLI reads its events from the same
// store: the grant and the file's text); the cards end succeeded; the run
// list puts the helpers under the parent.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, WAIT, LONG, openWorkspace, outcome, card, repoRoot } from "./harness.mjs";
import { answerTurn, toolTurn, writeLoopbackConfig, startRoutedModel } from "./loopback-model.mjs";

const cliBinary = process.env.BEARAGENT_CLI_BIN ?? join(repoRoot, "target/debug/bearagent");

let sandbox;
let driver;

before(async () => {
  if (!existsSync(cliBinary)) throw new Error(`CLI not found at ${cliBinary}: cargo build -p bearagent-cli`);
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

const GOAL = "PARENT-GOAL: survey the notes with a helper";
const ALPHA = "alpha is the first letter";

/** Each run by its prompt (a helper's context is its prompt alone): call first, answer once a result is in. */
function treeRoute(messages) {
  const asked = (marker) => messages.some((m) => m.role === "user" && m.text.includes(marker));
  const first = !messages.some((m) => m.role === "tool");
  if (asked("PARENT-GOAL")) return first ? toolTurn("call_top", "task", { description: "look around", prompt: "CHILD-TASK: look at the notes" }) : answerTurn("the tree answered");
  if (asked("GRANDCHILD-TASK")) return first ? toolTurn("call_read", "read_file", { path: "A.md" }) : answerTurn("grandchild read A");
  if (asked("CHILD-TASK")) return first ? toolTurn("call_deep", "task", { description: "read A", prompt: "GRANDCHILD-TASK: read A.md" }) : answerTurn("child done");
  throw new Error(`no route for ${JSON.stringify(messages).slice(0, 300)}`);
}

/** The CLI on the app's data folder: the run's events as JSON, one a line. */
function eventsOf(runId) {
  const out = spawnSync(cliBinary, ["events", "--json", runId], {
    env: { ...process.env, HOME: sandbox.home, XDG_RUNTIME_DIR: sandbox.runtime, BEARAGENT_HOME: sandbox.data },
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(out.status, 0, `bearagent events failed:\n${out.stdout}\n${out.stderr}`);
  return out.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).event);
}

const typeOf = (e) => e.payload.type;

/** The pending question of helper run `runId`, on the parent's `task` card. */
const helperAsk = (app, runId) => card(app, "call_top").$(`[data-testid="helper-approval"][data-run-id="${runId}"][data-state="pending"]`);

/** Waits until the parent's `task` card shows a helper at `depth` asking; returns its run id. */
async function askingHelper(app, depth) {
  let runId = null;
  await app.waitUntil(
    async () => {
      for (const ask of await card(app, "call_top").$$('[data-testid="helper-approval"][data-state="pending"]')) {
        const helper = await ask.parentElement();
        if ((await helper.getAttribute("data-depth")) === String(depth)) runId = await ask.getAttribute("data-run-id");
      }
      return runId !== null;
    },
    { ...LONG, timeoutMsg: `no depth-${depth} helper asked on the parent's task card` },
  );
  return runId;
}

test("helpers: a depth-2 helper's approval is asked on the top run's task card, labelled, approved there, and reaches the helper", async () => {
  const model = await startRoutedModel(treeRoute);
  writeLoopbackConfig(sandbox.data, model.port);
  const app = await launchApp(driver);
  try {
    const workspace = await step(app, "open", () => openWorkspace(app, join(sandbox.root, "tree-project")));
    writeFileSync(join(workspace, "A.md"), `${ALPHA}\n`);

    await step(app, "start", async () => {
      await byTestId(app, "run-goal").waitForDisplayed(WAIT);
      await byTestId(app, "run-goal").setValue(GOAL);
      await byTestId(app, "run-provider").selectByAttribute("value", "local");
      await byTestId(app, "run-approval").selectByAttribute("value", "ask_all");
      const helpers = byTestId(app, "run-helpers");
      assert.equal(await helpers.isSelected(), false, "Helpers is off by default");
      await helpers.click();
      assert.equal(await helpers.isSelected(), true);
      await byTestId(app, "start-run").click();
      await byTestId(app, "run-view").waitForDisplayed(WAIT);
    });
    const parent = await byTestId(app, "run-view").getAttribute("data-run-id");

    // The parent's own task call is asked on its card, like any call.
    const own = card(app, "call_top").$('[data-testid="approval-row"][data-state="pending"]');
    await step(app, "parent-asks", () => own.waitForDisplayed(LONG));
    await own.$('[data-testid="approve"]').click();

    // The helper's task call: on the parent's card, labelled with its description.
    const child = await step(app, "child-asks", () => askingHelper(app, 1));
    const childAsk = helperAsk(app, child);
    assert.equal(await childAsk.$('[data-testid="helper-asks"]').getText(), 'helper "look around" asks:');
    assert.equal(await childAsk.$('[data-testid="helper-ask-tool"]').getText(), "task");
    await childAsk.$('[data-testid="helper-approve"]').click();

    // The depth-2 helper's read: on the top run's card too, nested under the helper.
    const grand = await step(app, "grandchild-asks", () => askingHelper(app, 2));
    const grandAsk = helperAsk(app, grand);
    assert.equal(await grandAsk.$('[data-testid="helper-asks"]').getText(), 'helper "read A" asks:');
    assert.equal(await grandAsk.$('[data-testid="helper-ask-tool"]').getText(), "read_file");
    assert.match(await grandAsk.$('[data-testid="helper-ask-summary"]').getText(), /A\.md/);
    const nested = card(app, "call_top").$(`[data-testid="helper-card"][data-run-id="${child}"] [data-testid="helper-card"][data-run-id="${grand}"]`);
    assert.equal(await nested.isExisting(), true, "the depth-2 helper is nested under its parent helper");
    await screenshot(app, "delegation-01-depth-2-asks");
    await grandAsk.$('[data-testid="helper-approve"]').click();

    // The tree finishes: the parent's answer, its helpers' cards succeeded.
    await step(app, "parent-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    for (const id of [child, grand]) {
      await step(app, `helper-${id}-succeeded`, () =>
        card(app, "call_top").$(`[data-testid="helper-card"][data-run-id="${id}"][data-status="succeeded"]`).waitForExist(WAIT),
      );
    }
    assert.match(await card(app, "call_top").$(`[data-testid="helper-card"][data-run-id="${grand}"] [data-testid="helper-spend"]`).getText(), /1 tool call/);
    await screenshot(app, "delegation-02-tree-done");

    // The answer reached the depth-2 run: its grant by the user, then the file's text.
    const events = eventsOf(grand);
    const types = events.map(typeOf);
    const created = events[0].payload;
    assert.equal(created.delegated_by?.depth, 2, "the depth-2 run");
    assert.equal(created.delegated_by?.run_id, child);
    const granted = events.find((e) => typeOf(e) === "approval_granted");
    assert.ok(granted, `the grant is recorded: ${types}`);
    assert.equal(granted.payload.by, "user");
    const read = events.find((e) => typeOf(e) === "tool_call_completed");
    assert.match(JSON.stringify(read), /alpha is the first letter/);
    assert.ok(types.indexOf("approval_granted") < types.indexOf("tool_call_completed"), `granted before it read: ${types}`);
    assert.equal(types.at(-1), "run_succeeded");

    // The run list: the helpers under the parent, indented.
    await step(app, "list", async () => {
      await byTestId(app, "nav-home").click();
      await app.$(`[data-testid="run-row"][data-run-id="${grand}"]`).waitForExist(WAIT);
    });
    const rows = await app.execute(() => [...document.querySelectorAll('[data-testid="runs-list"] [data-testid="run-row"]')].map((r) => [r.dataset.runId, r.dataset.level]));
    assert.deepEqual(rows, [
      [parent, "0"],
      [child, "1"],
      [grand, "2"],
    ]);
    await screenshot(app, "delegation-03-run-list");
  } finally {
    await app.deleteSession().catch(() => {});
    model.close();
  }
});
