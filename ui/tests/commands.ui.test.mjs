// Chromium flow tests of shell commands (run_command) against the dev-only
// mock backend: the approval card (command, folder, sandbox, rule, "always
// allow commands starting with …"), output streaming into a terminal with
// its colours, the exit badge, "Show all" loading the stored output, a
// command's changed files, a reopened run reading stored output, the
// "Sandbox off" badge, and the command settings of a profile.
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
const seed = (extra = {}) => ({ recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] }, stepMs: 20, streamMs: 10, ...extra });
const calls = (page, cmd) => page.evaluate((name) => window.__bearagentMock.calls.filter((c) => c.cmd === name).map((c) => c.args), cmd);
const releaseModel = (page) => page.evaluate(() => window.__bearagentMock.releaseModelCall());
const releaseCommand = (page) => page.evaluate(() => window.__bearagentMock.releaseCommand());
const command = (page, callId) => page.locator(`[data-testid="command"][data-call-id="${callId}"]`);
/** Back to following the end of the timeline (scrolling to a row stops it, as it would for a user). */
async function followLatest(page) {
  const jump = byId(page, "jump-latest");
  if (await jump.isVisible()) await jump.click();
}
const testLines = (locator) => locator.getByTestId("terminal").evaluate((el) => el.textContent.split("\n").filter((l) => l.startsWith("test tests::")).length);

test("a command: approval card, always-allow prefix, live coloured output, exit badge, Show all, changed files", async () => {
  const { page, problems, close } = await ui.openApp(seed({ gateModelCalls: true, gateCommands: true }));
  try {
    await byId(page, "run-goal").fill("Fix the failing tests in the greeter");
    await byId(page, "start-run").click();
    await byId(page, "run-view").waitFor();
    await showEvents(page);
    await releaseModel(page);

    // The approval names the command, where it runs, the sandbox and the rule.
    const approval = page.locator('[data-testid="approval-row"][data-call-id="call_1"][data-state="pending"]');
    await approval.waitFor();
    assert.equal(await approval.getByTestId("approval-command-line").innerText(), "make test");
    assert.equal(await approval.getByTestId("approval-cwd").innerText(), ".");
    assert.equal(await approval.getByTestId("approval-sandbox").getAttribute("data-sandboxed"), "true");
    assert.equal(await approval.getByTestId("approval-sandbox").innerText(), "sandboxed");
    assert.equal(await approval.getByTestId("approval-network").innerText(), "no network");
    assert.equal(await approval.getByTestId("approval-rule").innerText(), "no rule matches `make test` → ask");
    const prefix = approval.getByTestId("allow-prefix");
    assert.equal(await prefix.inputValue(), "make test");
    await approval.getByTestId("approve").waitFor();
    await approval.getByTestId("deny").waitFor();
    await shot(page, "commands-approval");

    // Shell syntax is refused before anything is sent.
    await prefix.fill("make test; rm -rf ~");
    await approval.getByTestId("approve-prefix").click();
    assert.match(await approval.getByTestId("allow-prefix-error").innerText(), /“;” is shell syntax/);
    assert.equal((await calls(page, "decide_approval")).length, 0);
    await prefix.fill("make test");
    await approval.getByTestId("approve-prefix").click();
    await page.locator('[data-testid="approval-row"][data-call-id="call_1"][data-state="approved"]').waitFor();
    const [{ decision }] = await calls(page, "decide_approval");
    assert.deepEqual(decision, { approve: true, scope: "once", reason: null, allowPrefix: "make test" });
    assert.match(await page.locator('[data-call-id="call_1"] [data-testid="approval-decided"]').innerText(), /Commands starting with make test are allowed for the rest of this run/);

    // Output streams in, coloured, before the command has finished.
    const first = command(page, "call_1");
    await first.locator(".ansi-red-fg", { hasText: "FAILED" }).first().waitFor();
    assert.equal(await first.getAttribute("data-state"), "running");
    await first.getByTestId("command-running").waitFor();
    assert.equal(await page.locator('[data-type="command_finished"]').count(), 0);
    assert.equal(await first.getByTestId("command-line").innerText(), "$ make test");
    assert.equal(await first.getByTestId("command-cwd").innerText(), ".");
    assert.equal(await first.getByTestId("command-rule").innerText(), "rule `make test` → allow");
    assert.equal(await first.getByTestId("sandbox-badge").innerText(), "sandboxed");
    assert.equal(await first.getByTestId("network-badge").count(), 0);
    assert.match(await first.getByTestId("terminal").innerText(), /test tests::fr::greets \.\.\. FAILED/);
    // Live output re-renders its last segment, which can detach the span
    // between finding and reading it: read until a connected one answers.
    let red = "";
    for (let i = 0; i < 40 && red === ""; i += 1) {
      red = await first
        .locator(".ansi-red-fg")
        .first()
        .evaluate((el) => (el.isConnected ? getComputedStyle(el).color : ""))
        .catch(() => "");
      if (red === "") await page.waitForTimeout(50);
    }
    assert.equal(red, "rgb(255, 107, 107)");
    await shot(page, "commands-streaming");

    // Finished: a red exit badge, the row's facts, long output cut to its first and last lines.
    await releaseCommand(page);
    await first.locator('[data-testid="exit-badge"][data-exit="2"][data-tone="danger"]').waitFor();
    assert.equal(await first.getByTestId("exit-badge").innerText(), "exit 2");
    const finishedRow = page.locator('[data-testid="timeline-row"][data-type="command_finished"]').first();
    assert.match(await finishedRow.innerText(), /Command failed \(exit 2\)[\s\S]*exit 2[\s\S]*1 s[\s\S]*KB output/);
    await first.locator('[data-testid="terminal"][data-view="split"]').waitFor();
    assert.match(await first.getByTestId("hidden-lines").innerText(), /⋯ \d+ lines hidden ⋯/);
    const shown = await testLines(first);
    assert.ok(shown < 48, `collapsed: ${shown} of 48 test lines shown`);
    assert.match(await first.getByTestId("terminal").innerText(), /error: test failed, to rerun pass `--lib`/);
    await first.getByTestId("terminal").scrollIntoViewIfNeeded();
    await shot(page, "commands-terminal");

    // Show all loads the stored output from the backend.
    const showAll = first.getByTestId("show-all-output");
    assert.match(await showAll.innerText(), /^Show all \(\d+\.\d KB\)$/);
    await showAll.click();
    await first.locator('[data-testid="terminal"][data-expanded="true"][data-view="text"]').waitFor();
    assert.deepEqual(await calls(page, "command_output"), [{ runId: await byId(page, "run-view").getAttribute("data-run-id"), callId: "call_1" }]);
    assert.equal(await testLines(first), 48);
    assert.ok((await first.locator(".ansi-green-fg", { hasText: "ok" }).count()) >= 47);
    assert.equal(await showAll.innerText(), "Collapse");
    // The tool result row gives only what the model was told, on request.
    assert.match(await page.locator('[data-type="tool_call_failed"]').first().innerText(), /Command failed[\s\S]*The model was told: exit code 2, after 1\.8 s/i);

    // The fix needs its own approval; then the same command runs without asking (its prefix is allowed).
    await followLatest(page);
    await releaseModel(page);
    const write = page.locator('[data-testid="approval-row"][data-call-id="call_2"][data-state="pending"]');
    await write.waitFor();
    assert.equal(await write.getByTestId("allow-prefix").count(), 0, "no prefix option for a file write");
    await write.getByTestId("approve").click();
    await releaseModel(page);
    const second = command(page, "call_3");
    await second.waitFor();
    assert.equal(await second.getByTestId("command-rule").innerText(), "rule `make test` → allow");
    await releaseCommand(page);
    await second.locator('[data-testid="exit-badge"][data-exit="0"][data-tone="success"]').waitFor();
    assert.equal(await page.locator('[data-testid="approval-row"][data-call-id="call_3"]').count(), 0);
    assert.equal(await second.locator('[data-testid="terminal"]').getAttribute("data-view"), "text", "short output shown whole");
    // The row is below the virtualised window until the timeline follows
    // the newest events; jump to them while waiting.
    await page.waitForFunction(() => {
      document.querySelector('[data-testid="jump-latest"]')?.click();
      return [...document.querySelectorAll('[data-type="artifact_recorded"]')].some((r) => r.textContent.includes("Cargo.lock"));
    });
    await shot(page, "commands-passing");

    // "1 file changed" opens the Changes tab, where the file the command wrote is listed.
    const changed = page.locator('[data-type="command_finished"] [data-testid="command-changes"]');
    assert.equal(await changed.innerText(), "1 file changed");
    await changed.click();
    assert.equal(await byId(page, "changes-tab").getAttribute("aria-selected"), "true");
    await page.locator('[data-testid="artifact-row"][data-path="Cargo.lock"]').waitFor();
    await page.locator('[data-testid="artifact-row"][data-path="src/lib.rs"]').waitFor();

    await releaseModel(page);
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

const ESC = "\u001b";
const storedOutput = Array.from({ length: 120 }, (_, i) => `line ${i + 1}: ${i === 60 ? `${ESC}[31mboom${ESC}[0m` : "fine"}`).join("\n") + "\n";

/** A finished run with one command (its output stored, nothing streamed to this window). */
async function seedCommandRun(page, { commands, output = storedOutput } = {}) {
  return page.evaluate(
    ([path, settings, text]) => {
      const call = { call_id: "call_1", tool_name: "run_command", arguments: { command: "make check", cwd: "web" } };
      const bytes = new TextEncoder().encode(text).length;
      return window.__bearagentMock.seedRun(
        path,
        "Run the checks",
        [
          { type: "run_started" },
          { type: "tool_call_requested", call },
          { type: "tool_call_started", call_id: "call_1" },
          { type: "command_started", call_id: "call_1", command: "make check", cwd: "web", sandboxed: settings ? settings.sandbox : true, network: settings ? settings.network : false, rule: "rule `make check` → allow" },
          {
            type: "command_finished", call_id: "call_1", exit_code: null, signal: null, duration_ms: 600_000, output: "f00d", output_bytes: bytes,
            output_truncated: false, timed_out: true, cancelled: false, changed_files: 0, unrevertable_files: 0,
          },
          { type: "tool_call_failed", result: { call_id: "call_1", content: "timed out after 600 s (everything it started was stopped), after 600.0 s\n", is_error: true } },
          { type: "run_failed", reason: "gave up" },
        ],
        { commands: settings ?? undefined, outputs: { call_1: text } },
      );
    },
    [PROJECT, commands ?? null, output],
  );
}

test("a command approved with the network: the decision carries it, the command runs with the network on", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    await byId(page, "run-goal").fill("Fix the failing tests in the greeter");
    await byId(page, "start-run").click();
    await showEvents(page);
    const approval = page.locator('[data-testid="approval-row"][data-call-id="call_1"][data-state="pending"]');
    await approval.waitFor();
    assert.equal(await approval.getByTestId("approval-network").innerText(), "no network");
    await approval.getByTestId("approve-network").click();
    await page.locator('[data-testid="approval-row"][data-call-id="call_1"][data-state="approved"]').waitFor();
    const [{ decision }] = await calls(page, "decide_approval");
    assert.deepEqual(decision, { approve: true, scope: "once", reason: null, network: true });
    assert.match(await page.locator('[data-call-id="call_1"] [data-testid="approval-decided"]').innerText(), /Approved with the network by user/);
    // This command has the network; the grant does not carry to the next one.
    await command(page, "call_1").getByTestId("network-badge").waitFor();
    assert.equal(await command(page, "call_1").getByTestId("network-badge").innerText(), "network on");
    await page.locator('[data-testid="approval-row"][data-call-id="call_2"][data-state="pending"]').getByTestId("approve").click();
    const third = page.locator('[data-testid="approval-row"][data-call-id="call_3"][data-state="pending"]');
    await third.waitFor();
    await third.getByTestId("approve").click();
    await command(page, "call_3").getByTestId("network-off-badge").waitFor();
    await byId(page, "answer-row").waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a reopened run reads its command's stored output, cut to its first and last lines (dark)", async () => {
  const { page, problems, close } = await ui.openApp(seed(), { colorScheme: "dark" });
  try {
    const runId = await seedCommandRun(page);
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), runId);
    await showEvents(page);
    const card = command(page, "call_1");
    await card.locator('[data-testid="terminal"][data-view="split"]').waitFor();
    assert.equal((await calls(page, "command_output")).length, 1);
    const text = await card.getByTestId("terminal").innerText();
    assert.match(text, /line 1: fine/);
    assert.match(text, /line 120: fine/);
    assert.doesNotMatch(text, /line 61/);
    assert.match(await card.getByTestId("hidden-lines").innerText(), /60 lines hidden/);
    // Stopped by its timeout: amber.
    assert.equal(await card.getByTestId("exit-badge").getAttribute("data-tone"), "attention");
    assert.equal(await card.getByTestId("exit-badge").innerText(), "timed out");
    assert.match(await page.locator('[data-type="command_finished"]').innerText(), /Command timed out[\s\S]*10 min 00 s/);
    await card.scrollIntoViewIfNeeded();
    await shot(page, "commands-stored-output-dark");

    // Show all uses what was fetched: no second request.
    await card.getByTestId("show-all-output").click();
    await card.locator('[data-testid="terminal"][data-expanded="true"]').waitFor();
    assert.match(await card.getByTestId("terminal").innerText(), /line 61: boom/);
    await card.locator(".ansi-red-fg", { hasText: "boom" }).waitFor();
    assert.equal((await calls(page, "command_output")).length, 1);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a flood of output keeps only the newest 256 KB live, then the stored head and tail", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    const chunk = Array.from({ length: 100 }, (_, i) => `${"x".repeat(70)} ${i}`).join("\n") + "\n"; // ~7.3 KB
    const stored = `first line\n[… 2500000 bytes omitted …]\nlast line\n`;
    const runId = await page.evaluate(
      ([path, text]) => {
        const call = { call_id: "call_1", tool_name: "run_command", arguments: { command: "yes", cwd: "." } };
        return window.__bearagentMock.seedRun(path, "Flood", [{ type: "run_started" }, { type: "tool_call_requested", call }, { type: "tool_call_started", call_id: "call_1" }], { outputs: { call_1: text } });
      },
      [PROJECT, stored],
    );
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), runId);
    await showEvents(page);
    await page.locator('[data-testid="timeline-row"][data-seq="4"]').waitFor();
    // Announced live, so its output is followed from the start; then ~3 MB arrives.
    await page.evaluate((id) => window.__bearagentMock.appendEvent(id, { type: "command_started", call_id: "call_1", command: "yes", cwd: ".", sandboxed: true, network: false, rule: "rule `yes` → allow" }), runId);
    const card = command(page, "call_1");
    await card.waitFor();
    await page.evaluate(
      ([id, text]) => {
        for (let i = 0; i < 400; i++) window.__bearagentMock.emitCommandOutput(id, "call_1", i === 399 ? `${text}THE END\n` : text);
      },
      [runId, chunk],
    );
    await card.getByTestId("terminal").filter({ hasText: "THE END" }).waitFor();
    const kept = await card.getByTestId("terminal").evaluate((el) => el.textContent.length);
    assert.ok(kept <= 256 * 1024 + 200, `kept ${kept} characters`);
    assert.match(await card.getByTestId("terminal").innerText(), /\[… \d+\.\d MB of earlier output not shown while it runs …\]/);

    // Finished past what is streamed live: the stored head and tail are shown instead.
    await page.evaluate((id) => window.__bearagentMock.appendEvent(id, {
      type: "command_finished", call_id: "call_1", exit_code: 0, signal: null, duration_ms: 2_000, output: "f00d", output_bytes: 2_920_000,
      output_truncated: true, timed_out: false, cancelled: false, changed_files: 0, unrevertable_files: 0,
    }), runId);
    await card.getByTestId("terminal").filter({ hasText: "bytes omitted" }).waitFor();
    assert.match(await card.getByTestId("terminal").innerText(), /first line\n\[… 2500000 bytes omitted …\]\nlast line/);
    assert.match(await card.innerText(), /2\.8 MB written; the stored output keeps its beginning and end/);
    assert.equal((await calls(page, "command_output")).length, 1);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a run whose profile turned the sandbox off says so in its header, command and approval", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    const off = { sandbox: false, network: true, max_timeout_secs: 600, toolchain_dirs: [], env: [], rules: [] };
    const runId = await seedCommandRun(page, { commands: off, output: "done\n" });
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), runId);
    await showEvents(page);
    const badge = byId(page, "sandbox-off-badge");
    await badge.waitFor();
    assert.match(await badge.innerText(), /Sandbox off/);
    assert.equal(await byId(page, "network-on-badge").innerText(), "Network on");
    const card = command(page, "call_1");
    assert.equal(await card.getByTestId("sandbox-badge").innerText(), "NOT sandboxed");
    assert.equal(await card.getByTestId("sandbox-badge").getAttribute("data-sandboxed"), "false");
    await shot(page, "commands-sandbox-off");

    // A sandboxed run has neither badge.
    const safe = await seedCommandRun(page, { output: "done\n" });
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), safe);
    await showEvents(page);
    await page.locator(`[data-testid="run-view"][data-run-id="${safe}"]`).waitFor();
    await command(page, "call_1").waitFor();
    assert.equal(await byId(page, "sandbox-off-badge").count(), 0);
    assert.equal(await byId(page, "network-on-badge").count(), 0);

    // An open approval of a command in an unsandboxed run says so.
    const asked = await page.evaluate((path) => {
      const call = { call_id: "call_1", tool_name: "run_command", arguments: { command: "npm install", cwd: "." } };
      return window.__bearagentMock.seedRun(path, "Install", [
        { type: "run_started" },
        { type: "tool_call_requested", call },
        { type: "approval_requested", call_id: "call_1", tool_name: "run_command", summary: "run `npm install` in . · NOT sandboxed (the sandbox is off in this profile) · rule `npm install` → allow" },
      ], { commands: { sandbox: false, network: false, max_timeout_secs: 600, toolchain_dirs: [], env: [], rules: [{ prefix: "npm install", decision: "allow" }] } });
    }, PROJECT);
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), asked);
    await showEvents(page);
    const approval = page.locator('[data-testid="approval-row"][data-call-id="call_1"]');
    await approval.waitFor();
    assert.equal(await approval.getByTestId("approval-sandbox").innerText(), "NOT sandboxed");
    assert.match(await approval.innerText(), /runs with your full user rights/);
    assert.equal(await approval.getByTestId("allow-prefix").inputValue(), "npm install");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("settings: a profile's command settings are validated and saved back", async () => {
  const profile = {
    name: "careful",
    provider: "openai",
    approvalMode: "ask_writes",
    budgets: { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null },
    contextCaps: { max_context_bytes: 400_000, max_tool_result_bytes: 16_384 },
    commands: { sandbox: true, network: false, max_timeout_secs: 600, toolchain_dirs: [".cargo", ".rustup"], env: [], rules: [{ prefix: "cargo test", decision: "allow" }] },
  };
  const { page, problems, close } = await ui.openApp({ settings: { providers: [OPENAI], profiles: [profile] } }, { hash: "#/settings" });
  try {
    const item = page.locator('[data-testid="profile-item"][data-name="careful"]');
    assert.match(await item.getByTestId("profile-commands").innerText(), /Commands: sandboxed · up to 10 min 00 s · 1 rule/);
    await item.getByRole("button", { name: "Edit careful" }).click();
    const form = byId(page, "profile-form");
    await form.waitFor();
    const rules = form.getByTestId("command-rule");
    assert.equal(await rules.count(), 1);
    assert.equal(await rules.first().getByTestId("rule-prefix").inputValue(), "cargo test");

    // Bad values are field errors and nothing is sent.
    await form.getByTestId("add-rule").click();
    await rules.nth(1).getByTestId("rule-prefix").fill("git push | sh");
    await rules.nth(1).getByTestId("rule-decision").selectOption("deny");
    await form.getByTestId("add-rule").click();
    await form.getByLabel("Max command time (seconds)").fill("0");
    await form.getByLabel("Toolchain folders").fill(".cargo\n/usr/local/lib");
    await form.getByLabel("Environment variables passed in").fill("RUST_LOG\n2FAST");
    await byId(page, "save-profile").click();
    await page.locator("#rule-prefix-1-error").waitFor();
    assert.match(await page.locator("#rule-prefix-1-error").innerText(), /“\|” is shell syntax/);
    assert.match(await page.locator("#rule-prefix-2-error").innerText(), /Enter the words a command starts with/);
    assert.equal(await rules.nth(1).getByTestId("rule-prefix").getAttribute("aria-invalid"), "true");
    assert.match(await page.locator("#profile-command-timeout-error").innerText(), /greater than 0/);
    assert.match(await page.locator("#profile-toolchain-dirs-error").innerText(), /absolute path/);
    assert.match(await page.locator("#profile-command-env-error").innerText(), /“2FAST” is not a variable name/);
    assert.equal((await calls(page, "save_profile")).length, 0);

    // Turning the sandbox off warns what that means.
    await form.getByTestId("command-sandbox").uncheck();
    assert.match(await byId(page, "sandbox-off-warning").innerText(), /full user rights[\s\S]*Every command will ask/);
    await shot(page, "commands-settings");

    // Fixed: saved, and the rules come back as they were entered.
    await rules.nth(1).getByTestId("rule-prefix").fill("git push");
    await rules.nth(2).getByTestId("remove-rule").click();
    // A command rule may also open the network for what it allows.
    await rules.first().getByTestId("rule-decision").selectOption("allow-network");
    await form.getByLabel("Max command time (seconds)").fill("900");
    await form.getByLabel("Toolchain folders").fill(".cargo\n.rustup\n.local/lib");
    await form.getByLabel("Environment variables passed in").fill("RUST_LOG");
    await byId(page, "save-profile").click();
    await byId(page, "profile-form").waitFor({ state: "detached" });
    const [{ profile: saved }] = await calls(page, "save_profile");
    assert.deepEqual(saved.commands, {
      sandbox: false,
      network: false,
      max_timeout_secs: 900,
      toolchain_dirs: [".cargo", ".rustup", ".local/lib"],
      env: ["RUST_LOG"],
      rules: [
        { prefix: "cargo test", decision: "allow-network" },
        { prefix: "git push", decision: "deny" },
      ],
    });
    assert.match(await item.getByTestId("profile-commands").innerText(), /sandbox off · up to 15 min 00 s · 2 rules/);
    await item.getByRole("button", { name: "Edit careful" }).click();
    assert.deepEqual(
      await byId(page, "profile-form").getByTestId("rule-prefix").evaluateAll((els) => els.map((e) => e.value)),
      ["cargo test", "git push"],
    );
    assert.equal(await byId(page, "profile-form").getByTestId("command-sandbox").isChecked(), false);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
