// Chromium flow tests of local model servers against the dev-only mock
// backend: the Welcome screen's "Use the local model found at …" (one
// click: added as a provider and chosen for new runs), nothing found says
// nothing, and Settings → Find local servers → Add per model.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { byId, OPENAI, shot, startUi } from "./support.mjs";

let ui;
before(async () => {
  ui = await startUi();
});
after(async () => {
  await ui?.close();
});

const PROJECT = "/home/dev/projects/bear-demo";
const LLAMA = "http://127.0.0.1:8080";
const OLLAMA = "http://127.0.0.1:11434";
const callsOf = (page, cmd) => page.evaluate((c) => window.__bearagentMock.calls.filter((x) => x.cmd === c).map((x) => x.args), cmd);

test("first launch: the local model found is one click from being the provider of new runs", async () => {
  // The mock's default: one llama.cpp server on 8080 serving one model.
  const { page, problems, close } = await ui.openApp({ current: PROJECT });
  try {
    const offer = byId(page, "use-local-model");
    await offer.waitFor();
    assert.equal(await offer.innerText(), `Use the local model found at ${LLAMA} (qwen2.5-coder-7b-instruct)`);
    await byId(page, "try-demo").waitFor();
    assert.equal((await callsOf(page, "detect_local_providers")).length, 1, "probed once on show");
    assert.equal(await byId(page, "run-provider").inputValue(), "demo");
    await shot(page, "local-welcome-offer");

    await offer.click();
    await byId(page, "welcome").waitFor({ state: "detached" });
    assert.deepEqual(await callsOf(page, "add_local_provider"), [{ name: "local", baseUrl: LLAMA, model: "qwen2.5-coder-7b-instruct" }]);
    // Chosen for the next run.
    await page.waitForFunction(() => document.querySelector('[data-testid="run-provider"]')?.value === "local");
    assert.match(await byId(page, "run-provider").locator("option:checked").innerText(), /local · qwen2\.5-coder-7b-instruct/);
    await shot(page, "local-welcome-added");

    // Settings lists it: no key needed, the learned window.
    await page.goto(page.url().replace(/#.*$/, "") + "#/settings");
    const card = page.locator('[data-testid="provider-item"][data-name="local"]');
    await card.waitFor();
    assert.equal(await card.getByTestId("key-status").innerText(), "no key needed");
    assert.match(await card.innerText(), /127\.0\.0\.1:8080/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("first launch with no local server: no offer and no error, the demo as before", async () => {
  const { page, problems, close } = await ui.openApp({ localServers: [] });
  try {
    await byId(page, "welcome").waitFor();
    await page.waitForFunction(() => window.__bearagentMock.calls.some((c) => c.cmd === "detect_local_providers"));
    await byId(page, "try-demo").waitFor();
    assert.equal(await byId(page, "use-local-model").count(), 0);
    assert.equal(await byId(page, "local-model-error").count(), 0);
    assert.equal(await byId(page, "error").count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Settings → Find local servers: each server's models with what was learned, Add per model", async () => {
  const localServers = [
    { kind: "llama.cpp", baseUrl: LLAMA, models: [{ id: "qwen2.5-coder-7b-instruct", contextWindow: 16_384, trainedWindow: 32_768, tools: true, notLearned: [] }] },
    {
      kind: "ollama",
      baseUrl: OLLAMA,
      models: [
        { id: "llama3.2:3b", contextWindow: 8_192, trainedWindow: 131_072, tools: true, notLearned: [] },
        { id: "gemma2:2b", contextWindow: null, trainedWindow: 8_192, tools: false, notLearned: ["the window: the model is not loaded and its Modelfile sets no num_ctx"] },
      ],
    },
  ];
  const { page, problems, close } = await ui.openApp({ settings: { providers: [OPENAI] }, localServers }, { hash: "#/settings" });
  try {
    await byId(page, "find-local-servers").click();
    const panel = page.locator('[data-testid="local-servers"][data-state="done"]');
    await panel.waitFor();
    assert.deepEqual(await panel.getByTestId("local-server").evaluateAll((els) => els.map((e) => e.dataset.baseUrl)), [LLAMA, OLLAMA]);
    const ollama = panel.locator(`[data-testid="local-server"][data-base-url="${OLLAMA}"]`);
    assert.match(await ollama.innerText(), /Ollama at/);
    const gemma = ollama.locator('[data-testid="local-model"][data-model="gemma2:2b"]');
    assert.equal(await gemma.getByTestId("local-model-facts").innerText(), "window unknown (trained 8,192 tokens) · tools: no (JSON-text mode)");
    assert.match(await gemma.innerText(), /Not learned: the window: the model is not loaded/);
    await shot(page, "local-settings-found");

    await gemma.getByTestId("add-local-model").click();
    await gemma.getByTestId("local-added").waitFor();
    assert.equal(await gemma.getByTestId("local-added").innerText(), "Added as local");
    const card = page.locator('[data-testid="provider-item"][data-name="local"]');
    await card.waitFor();
    assert.match(await card.innerText(), /gemma2:2b/);

    // The next one takes the next free name.
    const qwen = panel.locator('[data-testid="local-model"][data-model="qwen2.5-coder-7b-instruct"]');
    await qwen.getByTestId("add-local-model").click();
    await qwen.getByTestId("local-added").waitFor();
    assert.equal(await qwen.getByTestId("local-added").innerText(), "Added as local-2");
    await page.locator('[data-testid="provider-item"][data-name="local-2"]').waitFor();
    assert.deepEqual(
      (await callsOf(page, "add_local_provider")).map((a) => `${a.name} ${a.baseUrl} ${a.model}`),
      [`local ${OLLAMA} gemma2:2b`, `local-2 ${LLAMA} qwen2.5-coder-7b-instruct`],
    );
    await shot(page, "local-settings-added");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
