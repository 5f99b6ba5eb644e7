// Chromium flow tests of Settings against the dev-only mock backend:
// client-side validation with inline messages, the backend's invalid_input
// next to the form, keys stored but never shown, connection tests, profiles.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { byId, shot, startUi } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

/** The inline error of a field, by the control's id. */
const fieldError = (page, id) => page.locator(`#${id}-error`);

test("first launch: Add a provider leads to Settings", async () => {
  const { page, problems, close } = await ui.openApp();
  try {
    await byId(page, "add-provider").click();
    await byId(page, "settings").waitFor();
    await byId(page, "providers-empty").waitFor();
    assert.equal(await byId(page, "nav-settings").getAttribute("aria-current"), "page");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("providers: validation messages, backend invalid_input, key stored, test connection", async () => {
  const { page, problems, close } = await ui.openApp(null, { hash: "#/settings" });
  try {
    await byId(page, "add-provider-button").click();
    const form = byId(page, "provider-form");
    await form.waitFor();
    // Every control is labelled.
    for (const label of ["Name", "Protocol", "Base URL", "Model", "Key"]) await form.getByLabel(label, { exact: true }).waitFor();

    // Client-side: nothing is sent while fields are wrong.
    await form.getByLabel("Base URL").fill("ftp://models.example.com");
    await byId(page, "save-provider").click();
    await fieldError(page, "provider-name").waitFor();
    assert.match(await fieldError(page, "provider-name").innerText(), /Give the provider a name/);
    assert.match(await fieldError(page, "provider-url").innerText(), /http:\/\/ or https:\/\//);
    assert.match(await fieldError(page, "provider-model").innerText(), /model name/);
    assert.equal(await page.locator("#provider-url").getAttribute("aria-invalid"), "true");
    assert.equal(await page.locator("#provider-url").getAttribute("aria-describedby"), "provider-url-hint provider-url-error");
    assert.equal(await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "save_provider").length), 0);
    await shot(page, "settings-validation");

    // Environment key source needs a variable name.
    await form.getByLabel("Environment variable").check();
    await byId(page, "save-provider").click();
    await fieldError(page, "provider-env").waitFor();
    await form.getByLabel("OS keychain").check();

    // The backend's invalid_input (it names the field) is shown next to the form.
    await form.getByLabel("Name", { exact: true }).fill("local");
    await form.getByLabel("Protocol").selectOption("anthropic");
    await form.getByLabel("Base URL").fill("http://localhost:9/v1");
    await form.getByLabel("Model", { exact: true }).fill("qwen 2.5");
    await byId(page, "save-provider").click();
    const backend = byId(page, "form-error");
    await backend.waitFor();
    assert.equal(await backend.getByTestId("error").getAttribute("data-code"), "invalid_input");
    assert.match(await backend.innerText(), /model: "qwen 2\.5" must not contain spaces/);
    assert.equal(await fieldError(page, "provider-name").count(), 0, "client errors cleared once fixed");
    await shot(page, "settings-backend-error");

    // Fixed: saved, with the key stored in the keychain and never shown back.
    await form.getByLabel("Model", { exact: true }).fill("qwen2.5-coder");
    await form.getByLabel("Key", { exact: true }).fill("sk-local-secret");
    await byId(page, "save-provider").click();
    const card = page.locator('[data-testid="provider-item"][data-name="local"]');
    await card.waitFor();
    assert.equal(await byId(page, "provider-form").count(), 0);
    assert.equal(await card.getByTestId("key-status").innerText(), "key stored");
    assert.doesNotMatch(await page.locator("body").innerText(), /sk-local-secret/);
    const sent = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "set_provider_key").map((c) => c.args));
    assert.deepEqual(sent, [{ name: "local", key: "sk-local-secret" }]);

    // Test connection shows the classified result.
    await card.getByTestId("test-provider").click();
    const result = card.getByTestId("test-result");
    await result.waitFor();
    assert.equal(await result.getAttribute("data-ok"), "false");
    assert.equal(await result.getAttribute("data-error-class"), "provider");
    assert.match(await result.innerText(), /Failed \(provider\) — connection refused/);

    // A second provider with an env key that is set: test succeeds.
    await byId(page, "add-provider-button").click();
    await form.getByLabel("Name", { exact: true }).fill("openai");
    await form.getByLabel("Model", { exact: true }).fill("gpt-4.1");
    await form.getByLabel("Environment variable").check();
    await form.getByLabel("Variable name").fill("OPENAI_API_KEY");
    await byId(page, "save-provider").click();
    const openai = page.locator('[data-testid="provider-item"][data-name="openai"]');
    await openai.waitFor();
    assert.equal(await openai.getByTestId("key-status").innerText(), "key from $OPENAI_API_KEY");
    await openai.getByTestId("test-provider").click();
    await openai.locator('[data-testid="test-result"][data-ok="true"]').waitFor();
    assert.match(await openai.getByTestId("test-result").innerText(), /Connected in 142 ms/);
    await shot(page, "settings-providers");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("profiles: budgets must be positive whole numbers; saved profiles fill a new run", async () => {
  const seed = {
    recent: ["/home/dev/projects/bear-demo"],
    current: "/home/dev/projects/bear-demo",
    settings: {
      providers: [{ name: "openai", protocol: "openai-chat", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1", keySource: { kind: "keychain" }, keyPresent: true, toolMode: "native", price: null }],
    },
  };
  const { page, problems, close } = await ui.openApp(seed, { hash: "#/settings" });
  try {
    await byId(page, "add-profile-button").click();
    const form = byId(page, "profile-form");
    await form.waitFor();
    await form.getByLabel("Model calls").fill("0");
    await form.getByLabel("Time (min)").fill("half an hour");
    await form.getByLabel("Context size (bytes)").fill("-5");
    await byId(page, "save-profile").click();
    await fieldError(page, "profile-name").waitFor();
    assert.match(await fieldError(page, "profile-budget-modelCalls").innerText(), /Model calls must be a whole number greater than 0/);
    assert.match(await fieldError(page, "profile-budget-wallTimeMinutes").innerText(), /whole number/);
    assert.match(await fieldError(page, "profile-context").innerText(), /greater than 0/);
    assert.equal(await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "save_profile").length), 0);
    await shot(page, "settings-profile-validation");

    await form.getByLabel("Name").fill("careful");
    await form.getByLabel("Approvals").selectOption("ask_all");
    await form.getByLabel("Model calls").fill("20");
    await form.getByLabel("Time (min)").fill("10");
    await form.getByLabel("Context size (bytes)").fill("200000");
    await form.getByLabel("Max cost (USD)").fill("0");
    await byId(page, "save-profile").click();
    assert.match(await fieldError(page, "profile-budget-maxCostUsd").innerText(), /more than \$0/);
    await form.getByLabel("Max cost (USD)").fill("$2.50");
    await byId(page, "save-profile").click();
    const card = page.locator('[data-testid="profile-item"][data-name="careful"]');
    await card.waitFor();
    assert.match(await card.innerText(), /openai · Ask for everything/);
    assert.match(await card.innerText(), /20 model \/ 100 tool calls.*max \$2\.50/);
    const saved = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "save_profile").at(-1).args.profile);
    assert.deepEqual(saved.budgets, { max_model_calls: 20, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 600_000, max_cost_micro_usd: 2_500_000 });

    // The new-run form offers the profile and takes its settings.
    await byId(page, "nav-home").click();
    // By id: while the settings page leaves, its own "Profile" select may still be on screen.
    await page.locator("#run-profile").selectOption("careful");
    assert.equal(await byId(page, "run-approval").inputValue(), "ask_all");
    assert.equal(await page.locator("#run-budget-modelCalls").inputValue(), "20");
    assert.equal(await page.locator("#run-budget-maxCostUsd").inputValue(), "2.5");
    // A bad budget in the run form is reported inline too.
    await byId(page, "run-goal").fill("Tidy the docs");
    await page.locator("summary").filter({ hasText: "Budgets" }).click();
    await page.locator("#run-budget-toolCalls").fill("many");
    await byId(page, "start-run").click();
    await fieldError(page, "run-budget-toolCalls").waitFor();
    assert.equal(await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "start_run").length), 0);
    await shot(page, "new-run-validation");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("what a command sees: network, toolchain folders, configuration, credentials hidden, PATH left out, per profile", async () => {
  const commands = (over) => ({ sandbox: true, network: false, max_timeout_secs: 600, toolchain_dirs: [".cargo"], env: [], rules: [], ...over });
  const profile = (name, over) => ({
    name,
    provider: null,
    approvalMode: "ask_writes",
    budgets: { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 600_000, max_cost_micro_usd: null },
    contextCaps: { max_context_bytes: 400_000, max_tool_result_bytes: 64_000, compact_at_permille: null },
    commands: commands(over),
    mcpRules: {},
  });
  const seed = { settings: { profiles: [profile("online", { network: true }), profile("loose", { sandbox: false })] } };
  const { page, problems, close } = await ui.openApp(seed, { hash: "#/settings" });
  try {
    const section = byId(page, "command-sight");
    await section.getByRole("heading", { name: "What a command sees" }).waitFor();
    // The default profile: sandboxed, network off and how to turn it on.
    const network = section.getByTestId("sight-network");
    await network.waitFor();
    assert.equal(await network.getAttribute("data-network"), "off");
    assert.match(await network.innerText(), /Network off.*add a profile named “default” under Profiles and tick Network access/s);
    assert.match(await section.getByTestId("sight-readable").innerText(), /~\/\.cargo\s*~\/\.rustup\s*~\/\.npm\s*~\/\.pyenv/);
    assert.equal(await section.getByTestId("sight-config").innerText(), "~/.gitconfig");
    assert.match(await section.getByTestId("sight-withheld").innerText(), /~\/\.npmrc\s*looks like it holds a credential/);
    assert.match(await section.getByTestId("sight-tool-homes").innerText(), /RUSTUP_HOME=~\/\.rustup/);
    // The denylist, always hidden; the credential found inside a passed folder named.
    assert.match(await section.getByTestId("sight-credentials").innerText(), /~\/\.ssh.*~\/\.aws.*~\/\.local\/share\/keyrings/s);
    assert.match(await section.getByTestId("sight-hidden").innerText(), /^~\/\.cargo\/credentials\.toml\s*found here/);
    // PATH entries left out, each with why.
    const dropped = section.getByTestId("sight-path-dropped");
    assert.match(await dropped.locator('[data-reason="home_not_bound"]').innerText(), /~\/\.scripts.*Toolchain folders/s);
    assert.match(await dropped.locator('[data-reason="not_absolute"]').innerText(), /^\. not an absolute path/);
    await section.getByTestId("sight-path").locator("summary").click();
    assert.match(await section.getByTestId("sight-path").locator('[data-source="toolchain"]').innerText(), /~\/\.cargo\/bin/);
    assert.ok((await section.getByTestId("sight-offline").innerText()).includes("CARGO_NET_OFFLINE"));
    await shot(page, "settings-command-sight");

    // A profile with the network on: the caches are writable, no offline switches.
    await section.getByLabel("Profile").selectOption("online");
    await section.locator('[data-testid="sight-network"][data-network="on"]').waitFor();
    assert.match(await section.getByTestId("sight-writable").innerText(), /~\/\.cargo\/registry\s*~\/\.npm/);
    assert.equal(await section.getByTestId("sight-offline").count(), 0);

    // The sandbox off: said plainly, with how to turn it back on.
    await section.getByLabel("Profile").selectOption("loose");
    const off = section.getByTestId("command-sight-off");
    await off.waitFor();
    assert.match(await off.innerText(), /full user rights.*edit “loose” under Profiles and tick Run commands in the sandbox/s);
    assert.equal(await section.getByTestId("sandbox-sight").count(), 0);
    const asked = await page.evaluate(() => window.__bearagentMock.calls.filter((c) => c.cmd === "sandbox_view").map((c) => c.args.profile));
    assert.deepEqual(asked, ["default", "online", "loose"]);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
