// The real app under Xvfb, steering runs on a loopback model:
// - "Plan first": the plan-mode run's write_file is refused without an
//   approval prompt (nothing on disk), its Markdown answer shows as a Plan
//   card; "Approve plan" starts a follow-up whose write (approved in its
//   card) lands the file. A plan edited in its card before approval: the
//   follow-up is told the person's version and carries that out.
// - update_plan: the todo list beside the conversation updates live (the
//   model holds its next turn until the first list is seen), ends with the
//   right statuses and "n of m done", and the runs list shows n/m.
// - A command approval remembered for the workspace ("echo"): the config
//   file keeps it, Settings lists it, the next run's `echo two` runs without
//   asking; Remove in Settings forgets it (config and list) and the next
//   `echo three` asks again.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  makeSandbox, startDriver, launchApp, byTestId, screenshot, step, showEvents, timelineRows, WAIT, LONG,
  openWorkspace, startRun, outcome, card,
} from "./harness.mjs";
import { answerTurn, toolTurn, writeLoopbackConfig, messagesOf, startRoutedModel } from "./loopback-model.mjs";

let sandbox;
let driver;

before(async () => {
  sandbox = makeSandbox();
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
});

// ---------------------------------------------------------------- plan first

const PLAN_GOAL = "Add a greeting file to the project";
const PLAN_APPROVED = "The plan is approved. Carry it out now, step by step.";
const PLAN_TEXT = [
  "## Plan",
  "",
  "1. Write `greeting.txt` with one line: Hello from the plan.",
  "2. Check it by reading the file back.",
].join("\n");
const GREETING = "Hello from the plan.\n";

/**
 * Before the plan is approved: a write (which plan mode must refuse), then,
 * once its result is in, the plan as the answer. After "The plan is
 * approved": the write again, then a short answer.
 */
function planRoute(messages) {
  const approvedAt = messages.findIndex((m) => m.role === "user" && m.text.includes(PLAN_APPROVED));
  if (approvedAt < 0) {
    return messages.some((m) => m.role === "tool")
      ? answerTurn(PLAN_TEXT)
      : toolTurn("call_plan_write", "write_file", { path: "greeting.txt", content: "written while planning\n" });
  }
  return messages.slice(approvedAt).some((m) => m.role === "tool")
    ? answerTurn("Wrote greeting.txt as planned.")
    : toolTurn("call_do_write", "write_file", { path: "greeting.txt", content: GREETING });
}

test("plan first: the plan run's write is refused without asking, its plan shows as a Plan card; Approve plan starts the follow-up that writes the file", async () => {
  const model = await startRoutedModel(planRoute);
  writeLoopbackConfig(sandbox.data, model.port);
  const app = await launchApp(driver);
  try {
    const workspace = await step(app, "plan-open", () => openWorkspace(app, join(sandbox.root, "plan-project")));
    const greeting = join(workspace, "greeting.txt");
    // Ask for every write: outside plan mode this write would wait for approval.
    const planRun = await step(app, "plan-start", () => startRun(app, { goal: PLAN_GOAL, approval: "ask_writes", planFirst: true }));
    await step(app, "plan-badge", () => byTestId(app, "plan-mode-badge").waitForDisplayed(WAIT));

    const planCard = byTestId(app, "plan-card");
    await step(app, "plan-card", () => planCard.waitForDisplayed(LONG));
    await step(app, "plan-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    const shown = await planCard.$('[data-testid="model-text"]').getText();
    assert.match(shown, /Plan/);
    assert.match(shown, /Write `?greeting\.txt`? with one line/);
    assert.match(shown, /reading the file back/);

    // The write was refused by plan mode, never asked.
    const refused = card(app, "call_plan_write");
    await step(app, "plan-refused-card", () => refused.waitForExist(WAIT));
    assert.equal(await refused.getAttribute("data-status"), "refused");
    assert.match(await refused.$('[data-testid="card-reason"]').getText(), /plan mode/);
    assert.equal((await app.$$('[data-testid="approval-row"]')).length, 0, "plan mode asked for no approval");
    assert.ok(!existsSync(greeting), "nothing was written while planning");
    // The model was told why: the refusal came back as the tool result.
    const told = messagesOf(model.bodies[1] ?? "{}").find((m) => m.role === "tool");
    assert.match(told?.text ?? "", /plan mode: this run only reads and plans/);
    assert.match(model.bodies[0], /Plan mode: first make a plan/);
    await screenshot(app, "steering-01-plan-card");
    // Its events: a plan-mode run, the call refused, no approval asked.
    const planEvents = await step(app, "plan-events", () => timelineRows(app));
    const planTypes = planEvents.map((r) => r.type);
    assert.ok(planTypes.includes("tool_call_requested") && planTypes.includes("run_succeeded"), `events: ${planTypes}`);
    assert.ok(!planTypes.includes("approval_requested"), `plan mode asked for no approval: ${planTypes}`);
    assert.match(planEvents.find((r) => r.type === "run_created")?.text ?? "", /plan mode/);
    await byTestId(app, "conversation-tab").click();
    const approve = byTestId(app, "approve-plan");
    await approve.waitForClickable(WAIT);
    // The conversation's rows are still being measured after the tab
    // switch: on a loaded machine the button moved under the click, which
    // then landed elsewhere and nothing started. Click once it has stopped
    // moving, then wait for what the click does (the button says it is
    // starting, or the follow-up is already shown).
    await step(app, "plan-approve-stable", () => approve.waitForStable(WAIT));
    await approve.click();
    await step(app, "plan-approve-taken", () =>
      app.waitUntil(async () => {
        const shown = await app.$(`[data-testid="run-view"]:not([data-run-id="${planRun}"])`).isExisting();
        return shown || !(await approve.isExisting()) || (await approve.getText()).includes("Starting");
      }, { ...WAIT, timeoutMsg: "Approve plan was clicked but nothing started" }),
    );

    // Approve plan: a new run view, the follow-up carrying it out.
    const followUp = app.$(`[data-testid="run-view"]:not([data-run-id="${planRun}"])`);
    await step(app, "plan-follow-up", () => followUp.waitForDisplayed(LONG));
    const followUpId = await followUp.getAttribute("data-run-id");
    assert.notEqual(followUpId, planRun);
    await step(app, "plan-follow-up-message", () =>
      app.waitUntil(async () => {
        for (const user of await app.$$('[data-testid="conv-user"]')) {
          if ((await user.getText()).includes("Carry it out now")) return true;
        }
        return false;
      }, { ...WAIT, timeoutMsg: "the follow-up never showed the plan's approval as its message" }),
    );
    assert.equal(await byTestId(app, "plan-mode-badge").isExisting(), false, "the follow-up is not in plan mode");

    // Its write asks (the run keeps "ask for every write"): approve it in its card.
    const asking = card(app, "call_do_write");
    await step(app, "plan-write-asks", () => asking.$('[data-testid="approval-row"][data-state="pending"]').waitForDisplayed(LONG));
    assert.ok(!existsSync(greeting), "nothing is written before the approval");
    await screenshot(app, "steering-02-follow-up-asks");
    await asking.$('[data-testid="approve"]').click();

    await step(app, "plan-follow-up-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    assert.match(await byTestId(app, "final-answer").getText(), /Wrote greeting\.txt as planned/);
    assert.equal(await card(app, "call_do_write").getAttribute("data-status"), "ok");
    assert.equal(readFileSync(greeting, "utf8"), GREETING);
    // The follow-up's model saw the plan and the approval.
    const last = model.bodies.at(-1);
    assert.ok(last.includes("reading the file back") && last.includes(PLAN_APPROVED), "the follow-up's model saw the plan and its approval");
    await screenshot(app, "steering-03-plan-carried-out");
  } finally {
    await app.deleteSession();
    model.close();
  }
});

// ---------------------------------------------------------- plan edited

const EDITED_GREETING = "Hello from my edit.\n";

/**
 * The plan as before; once approved, the follow-up writes what the plan it
 * was given says: the person's edited line when their version came with
 * the approval, the model's own otherwise.
 */
function editedPlanRoute(messages) {
  const approvedAt = messages.findIndex((m) => m.role === "user" && m.text.includes(PLAN_APPROVED));
  if (approvedAt < 0) return answerTurn(PLAN_TEXT);
  if (messages.slice(approvedAt).some((m) => m.role === "tool")) return answerTurn("Wrote greeting.txt as the plan says.");
  const edited = messages[approvedAt].text.includes("Hello from my edit.");
  return toolTurn("call_edited_write", "write_file", { path: "greeting.txt", content: edited ? EDITED_GREETING : GREETING });
}

test("plan edited before approval: the follow-up is told the person's version and carries it out", async () => {
  const model = await startRoutedModel(editedPlanRoute);
  writeLoopbackConfig(sandbox.data, model.port);
  const app = await launchApp(driver);
  try {
    const workspace = await step(app, "edit-open", () => openWorkspace(app, join(sandbox.root, "edited-plan-project")));
    const planRun = await step(app, "edit-start", () => startRun(app, { goal: PLAN_GOAL, planFirst: true }));
    await step(app, "edit-plan-card", () => byTestId(app, "plan-card").waitForDisplayed(LONG));
    await step(app, "edit-plan-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    const edit = byTestId(app, "edit-plan");
    await step(app, "edit-plan-stable", () => edit.waitForStable(WAIT));
    await edit.click();
    const editor = byTestId(app, "plan-editor");
    await step(app, "edit-plan-editor", () => editor.waitForDisplayed(WAIT));
    assert.match(await editor.getValue(), /Hello from the plan\./);
    await editor.setValue(PLAN_TEXT.replace("Hello from the plan.", "Hello from my edit."));
    await step(app, "edit-plan-marked", () => byTestId(app, "plan-edited").waitForDisplayed(WAIT));
    const approve = byTestId(app, "approve-plan");
    assert.equal(await approve.getText(), "Approve edited plan");
    await screenshot(app, "steering-04-plan-edited");
    await step(app, "edit-approve-stable", () => approve.waitForStable(WAIT));
    await approve.click();

    const followUp = app.$(`[data-testid="run-view"]:not([data-run-id="${planRun}"])`);
    await step(app, "edit-follow-up", () => followUp.waitForDisplayed(LONG));
    await step(app, "edit-follow-up-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    assert.equal(readFileSync(join(workspace, "greeting.txt"), "utf8"), EDITED_GREETING, "the follow-up carried out the edited plan");
    // The follow-up's message (the user's, in the record) names the edit.
    let said = "";
    for (const user of await app.$$('[data-testid="conv-user"]')) said += await user.getText();
    assert.match(said, /Carry out my version below/);
    assert.match(said, /Hello from my edit\./);
    const first = model.bodies.find((b) => b.includes("Carry out my version below")) ?? "";
    assert.ok(first.includes("Hello from my edit.") && first.includes("Hello from the plan."), "the model saw its plan and the person's version");
    await screenshot(app, "steering-05-edited-plan-carried-out");
  } finally {
    await app.deleteSession();
    model.close();
  }
});

// ---------------------------------------------------------------- todo list

const TODO_GOAL = "Tidy up the project in four steps";
const STEPS = ["Read the notes", "Rename the helpers", "Update the docs", "Run the checks"];
const FIRST_LIST = STEPS.map((step, i) => ({ step, status: i === 0 ? "in_progress" : "pending" }));
const FINAL_STATUSES = ["completed", "completed", "in_progress", "pending"];
const FINAL_LIST = STEPS.map((step, i) => ({ step, status: FINAL_STATUSES[i] }));

test("todo list: update_plan shows the list live with its statuses and 'n of m done'; the runs list shows n/m", async () => {
  // The turn after the first list waits until the test has seen that list.
  let release;
  const gate = new Promise((ok) => (release = ok));
  const model = await startRoutedModel(async (messages) => {
    const results = messages.filter((m) => m.role === "tool").length;
    if (results === 0) return toolTurn("call_plan_1", "update_plan", { plan: FIRST_LIST });
    if (results === 1) {
      await gate;
      return toolTurn("call_plan_2", "update_plan", { plan: FINAL_LIST, explanation: "Two steps done." });
    }
    return answerTurn("Two of the four steps are done; the docs are next.");
  });
  writeLoopbackConfig(sandbox.data, model.port);
  const app = await launchApp(driver);
  try {
    await step(app, "todo-open", () => openWorkspace(app, join(sandbox.root, "todo-project")));
    const runId = await step(app, "todo-start", () => startRun(app, { goal: TODO_GOAL, approval: "allow_all" }));

    // The first list, while the run still runs.
    const summary = byTestId(app, "todo-summary");
    const statuses = () => app.$$('[data-testid="todo-item"]').map((i) => i.getAttribute("data-status"));
    const texts = () => app.$$('[data-testid="todo-item"]').map((i) => i.getText());
    await step(app, "todo-first", () =>
      app.waitUntil(async () => (await summary.isExisting()) && (await summary.getText()) === "0 of 4 done", {
        ...LONG,
        timeoutMsg: "the first todo list never showed 0 of 4 done",
      }),
    );
    assert.deepEqual(await statuses(), ["in_progress", "pending", "pending", "pending"]);
    const firstTexts = await texts();
    STEPS.forEach((s, i) => assert.match(firstTexts[i], new RegExp(s)));
    assert.equal(await outcome(app, "succeeded").isExisting(), false, "the list showed while the run was running");
    await screenshot(app, "steering-04-todo-live");

    release();
    await step(app, "todo-final", () =>
      app.waitUntil(async () => (await summary.getText()) === "2 of 4 done", { ...LONG, timeoutMsg: "the todo list never showed 2 of 4 done" }),
    );
    assert.deepEqual(await statuses(), FINAL_STATUSES);
    await step(app, "todo-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    assert.deepEqual(await statuses(), FINAL_STATUSES, "the list stays after the run ends");
    assert.equal(await summary.getText(), "2 of 4 done");
    // The conversation notes each update.
    const notes = await app.$$('[data-testid="conv-note"]').map((n) => n.getText());
    assert.ok(notes.includes("Plan updated: 0 of 4 done"), `notes: ${JSON.stringify(notes)}`);
    assert.ok(notes.includes("Plan updated: 2 of 4 done"), `notes: ${JSON.stringify(notes)}`);
    await screenshot(app, "steering-05-todo-final");

    // The runs list: n/m on the run's row.
    await byTestId(app, "nav-home").click();
    const tag = app.$(`[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-todo"]`);
    await step(app, "todo-runs-list", () => tag.waitForDisplayed(WAIT));
    assert.equal(await tag.getText(), "2/4");
    assert.match(await tag.getAttribute("title"), /2 of 4 steps done/);
    await screenshot(app, "steering-06-runs-list-todo");
  } finally {
    release();
    await app.deleteSession();
    model.close();
  }
});

// ---------------------------------------------------------------- remembered approval

const ECHOES = { one: "Say one", two: "Say two", three: "Say three" };

/** Each run by its goal: `echo <word>`, then, once its output is in, an answer. */
function echoRoute(messages) {
  const goal = messages.find((m) => m.role === "user" && Object.values(ECHOES).some((g) => m.text.includes(g)));
  const word = Object.keys(ECHOES).find((w) => goal?.text.includes(ECHOES[w]));
  if (!word) throw new Error("a request from no known run");
  return messages.some((m) => m.role === "tool")
    ? answerTurn(`Echoed ${word}.`)
    : toolTurn(`call_echo_${word}`, "run_command", { command: `echo ${word}` });
}

const configText = () => readFileSync(join(sandbox.data, "config.toml"), "utf8");

test("remembered approval: 'echo' allowed for this workspace is kept in the config and Settings, the next echo runs without asking; Remove forgets it", async () => {
  const model = await startRoutedModel(echoRoute);
  writeLoopbackConfig(sandbox.data, model.port);
  const app = await launchApp(driver);
  try {
    const workspace = await step(app, "remember-open", () => openWorkspace(app, join(sandbox.root, "remember-project")));

    // 1. `echo one` asks; approve it and always allow "echo" in this workspace.
    const first = await step(app, "remember-start-one", () => startRun(app, { goal: ECHOES.one, approval: "ask_writes" }));
    const ask = card(app, "call_echo_one").$('[data-testid="approval-row"][data-state="pending"]');
    await step(app, "remember-asks", () => ask.waitForDisplayed(LONG));
    const prefix = ask.$('[data-testid="allow-prefix"]');
    await prefix.setValue("echo");
    assert.equal(await prefix.getValue(), "echo");
    await ask.$('[data-testid="allow-prefix-remember"]').selectByAttribute("value", "workspace");
    await step(app, "remember-hint", () =>
      app.waitUntil(async () => /Also for later runs/.test(await ask.getText()), { ...WAIT, timeoutMsg: "the remember choice never took" }),
    );
    await screenshot(app, "steering-07-remember-workspace");
    await ask.$('[data-testid="approve-prefix"]').click();
    await step(app, "remember-one-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    assert.equal(await card(app, "call_echo_one").getAttribute("data-status"), "ok");
    // The Events view records the approval with its prefix.
    await showEvents(app);
    const allowed = byTestId(app, "approval-allowed-prefix");
    await step(app, "remember-events", () => allowed.waitForExist(WAIT));
    assert.equal(await allowed.getText(), "echo");
    const oneTypes = (await timelineRows(app)).map((r) => r.type);
    assert.ok(oneTypes.includes("approval_requested"), `echo one asked: ${oneTypes}`);
    await byTestId(app, "conversation-tab").click();
    assert.match(messagesOf(model.bodies.at(-1)).find((m) => m.role === "tool")?.text ?? "", /\bone\b/);

    // The user's config keeps it, for this workspace.
    const kept = configText();
    assert.match(kept, /\[\[remembered_commands\]\]/);
    assert.match(kept, /prefix = "echo"/);
    assert.ok(kept.includes(`workspace = "${workspace}"`), `the rule holds for ${workspace}:\n${kept}`);
    assert.ok(kept.includes(`from_run = "${first}"`), `the rule names its run ${first}:\n${kept}`);

    // Settings lists it.
    await byTestId(app, "nav-settings").click();
    const rule = app.$('[data-testid="remembered-rule"][data-prefix="echo"]');
    await step(app, "remember-settings", () => rule.waitForDisplayed(WAIT));
    assert.match(await rule.getText(), new RegExp(`allow echo in ${workspace.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    assert.equal((await app.$$('[data-testid="remembered-rule"]')).length, 1);
    await rule.scrollIntoView({ block: "center" });
    await screenshot(app, "steering-08-settings-remembered");

    // 2. A new run's `echo two` runs without asking.
    const second = await step(app, "remember-start-two", () => startRun(app, { goal: ECHOES.two, approval: "ask_writes", previous: first }));
    await step(app, "remember-two-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    assert.equal(await card(app, "call_echo_two").getAttribute("data-status"), "ok");
    assert.equal((await app.$$('[data-testid="approval-row"]')).length, 0, "the remembered rule ran echo two without a prompt");
    assert.match(await byTestId(app, "final-answer").getText(), /Echoed two/);
    assert.match(messagesOf(model.bodies.at(-1)).find((m) => m.role === "tool")?.text ?? "", /\btwo\b/);
    const twoTypes = (await step(app, "remember-two-events", () => timelineRows(app))).map((r) => r.type);
    assert.ok(twoTypes.includes("tool_call_requested") && twoTypes.includes("run_succeeded"), `events: ${twoTypes}`);
    assert.ok(!twoTypes.includes("approval_requested"), `echo two asked for no approval: ${twoTypes}`);
    await byTestId(app, "conversation-tab").click();
    await screenshot(app, "steering-09-echo-two-unasked");

    // 3. Remove in Settings forgets it: the list and the config.
    await byTestId(app, "nav-settings").click();
    await step(app, "remember-remove", async () => {
      await rule.waitForDisplayed(WAIT);
      await rule.scrollIntoView({ block: "center" });
      await rule.$('[data-testid="remembered-remove"]').click();
      await byTestId(app, "remembered-empty").waitForDisplayed(WAIT);
    });
    assert.equal(await rule.isExisting(), false);
    assert.doesNotMatch(configText(), /remembered_commands|prefix = "echo"/);
    await byTestId(app, "remembered-empty").scrollIntoView({ block: "center" });
    await screenshot(app, "steering-10-settings-removed");

    // 4. The next `echo three` asks again.
    await step(app, "remember-start-three", () => startRun(app, { goal: ECHOES.three, approval: "ask_writes", previous: second }));
    const again = card(app, "call_echo_three").$('[data-testid="approval-row"][data-state="pending"]');
    await step(app, "remember-asks-again", () => again.waitForDisplayed(LONG));
    await again.$('[data-testid="approve"]').click();
    await step(app, "remember-three-succeeded", () => outcome(app, "succeeded").waitForDisplayed(LONG));
    assert.doesNotMatch(configText(), /remembered_commands/, "a plain approval remembers nothing");
  } finally {
    await app.deleteSession();
    model.close();
  }
});
