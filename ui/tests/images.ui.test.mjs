// Chromium flows of images in the prompt against the dev-only mock: a PNG
// pasted into the goal box (a real paste event carrying a File) shows as a
// thumbnail with its name and can be removed; another is dropped on the
// box; a text file named .png is refused by its bytes and attaches nothing;
// the run starts with both images as base64 and its conversation and Events
// show them (read back with run_image). A provider whose model does not
// read images: the backend's refusal shows as the form's error. A reply
// carries its pasted image too; a tool's image shows in its card and row;
// Settings saves a provider's "Reads images" choice.
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
const GOAL = "Compare the architecture notes in docs and write the conclusion to outputs/report.md";
/** A 1×1 PNG and a 2×1 one: real images, different bytes. */
const SCREENSHOT = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const MOCKUP = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGM4oSEHRAAIvQIdt6jVHwAAAABJRU5ErkJggg==";
const seed = (providers = [OPENAI]) => ({ recent: [PROJECT], current: PROJECT, settings: { providers }, stepMs: 20, streamMs: 10, gateModelCalls: true });

const calls = (page, cmd) => page.evaluate((name) => window.__bearagentMock.calls.filter((c) => c.cmd === name).map((c) => c.args), cmd);
const attached = (page) => page.locator('[data-testid="image-attachment"]');

/** Dispatches a real `paste` (or `drop`) event on `selector` whose data holds one file of these bytes. */
async function sendFile(page, selector, kind, { name, base64, text, type = "image/png" }) {
  await page.locator(selector).evaluate(
    (el, { kind, name, base64, text, type }) => {
      const bytes = text !== undefined ? new TextEncoder().encode(text) : Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], name, { type }));
      if (kind === "paste") {
        el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      } else {
        el.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
        el.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
      }
    },
    { kind, name, base64, text, type },
  );
}

test("images pasted and dropped into the goal go with the run as base64 and show in its conversation and Events", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    await byId(page, "run-goal").fill(GOAL);

    // Pasted: a thumbnail with its name; × removes it.
    await sendFile(page, '[data-testid="run-goal"]', "paste", { name: "screenshot.png", base64: SCREENSHOT });
    const first = page.locator('[data-testid="image-attachment"][data-name="screenshot.png"]');
    await first.waitFor();
    assert.equal(await first.getByTestId("image-attachment-name").innerText(), "screenshot.png");
    assert.equal(await first.locator("img").evaluate((img) => img.complete && img.naturalWidth), 1, "the thumbnail is the image itself");
    assert.equal(await byId(page, "run-goal").inputValue(), GOAL, "a pasted file does not paste text");
    await first.getByRole("button", { name: "Remove screenshot.png" }).click();
    await page.locator('[data-testid="image-attachments"][data-count="0"]').waitFor();

    // Pasted again, and another dropped on the box.
    await sendFile(page, '[data-testid="run-goal"]', "paste", { name: "screenshot.png", base64: SCREENSHOT });
    await sendFile(page, '[data-testid="run-goal-box"]', "drop", { name: "mockup.png", base64: MOCKUP });
    await page.locator('[data-testid="image-attachments"][data-count="2"]').waitFor();
    assert.deepEqual(await attached(page).evaluateAll((items) => items.map((i) => i.dataset.name)), ["screenshot.png", "mockup.png"]);

    // A text file named .png: refused by its first bytes, nothing attached.
    await sendFile(page, '[data-testid="run-goal"]', "paste", { name: "notes.png", text: "just some notes\n" });
    await byId(page, "image-errors").waitFor();
    assert.equal(await byId(page, "image-errors").locator("p").innerText(), "notes.png is not a PNG, JPEG, WebP or GIF image (its first bytes say otherwise).");
    assert.equal(await attached(page).count(), 2);
    await shot(page, "images-goal-box");
    assert.equal((await calls(page, "start_run")).length, 0, "nothing is sent before Start");

    await byId(page, "start-run").click();
    await byId(page, "run-view").waitFor();
    const [{ request }] = await calls(page, "start_run");
    assert.deepEqual(request.images, [
      { name: "screenshot.png", dataBase64: SCREENSHOT },
      { name: "mockup.png", dataBase64: MOCKUP },
    ]);

    // The conversation's goal shows both, read back from the backend.
    const goalImages = page.locator('[data-testid="conv-user"] [data-testid="run-image"]');
    await page.locator('[data-testid="conv-user"] [data-testid="run-image"][data-state="ready"]').nth(1).waitFor();
    assert.deepEqual(await goalImages.evaluateAll((items) => items.map((i) => i.dataset.name)), ["screenshot.png", "mockup.png"]);
    assert.equal(await goalImages.first().locator("img").getAttribute("src"), `data:image/png;base64,${SCREENSHOT}`);
    assert.equal((await calls(page, "run_image")).length, 2);
    await goalImages.nth(1).click();
    const viewer = byId(page, "image-viewer");
    await viewer.locator("img").waitFor();
    assert.equal(await viewer.locator("img").getAttribute("src"), `data:image/png;base64,${MOCKUP}`);
    assert.match(await viewer.locator("figcaption").innerText(), /^mockup\.png · \d+ B$/);
    await shot(page, "images-viewer");
    await byId(page, "image-viewer-close").click();
    await viewer.locator("img").waitFor({ state: "detached" });

    // Events: the RunCreated row counts them and shows them.
    await showEvents(page);
    const created = page.locator('[data-testid="timeline-row"][data-type="run_created"]');
    assert.equal(await created.getByTestId("goal-images-count").innerText(), "2 images");
    await created.locator('[data-testid="run-image"][data-state="ready"]').nth(1).waitFor();
    assert.equal((await calls(page, "run_image")).length, 2, "an image once read is not read again");
    await shot(page, "images-events");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the backend's refusal (a model that does not read images) shows as the form's error; the images stay", async () => {
  const local = { ...OPENAI, name: "local", baseUrl: "http://localhost:8080/v1", model: "qwen2.5-coder-7b", keySource: { kind: "none" }, keyPresent: false };
  const { page, problems, close } = await ui.openApp(seed([local]));
  try {
    await byId(page, "run-goal").fill(GOAL);
    await byId(page, "attach-image").waitFor();
    await byId(page, "image-file-input").setInputFiles({ name: "picked.png", mimeType: "image/png", buffer: Buffer.from(SCREENSHOT, "base64") });
    await page.locator('[data-testid="image-attachment"][data-name="picked.png"]').waitFor();
    await byId(page, "start-run").click();
    const error = page.locator('[data-testid="new-run"] [data-testid="error"]');
    await error.waitFor();
    assert.equal(await error.getAttribute("data-code"), "invalid_input");
    assert.match(await error.innerText(), /provider local \(model qwen2\.5-coder-7b\) is not set to read images/);
    assert.equal(await attached(page).count(), 1, "the images stay for another try");
    assert.equal(await byId(page, "run-view").count(), 0);
    await shot(page, "images-refused");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a reply carries the image pasted into it; the follow-up shows it", async () => {
  // A run recorded with its follow-up.
  const RUN = "0190a000-0000-7000-8000-0000000c0001";
  const recorded = { recent: [PROJECT], current: PROJECT, settings: { providers: [OPENAI] }, stepMs: 20, streamMs: 10, recorded: { [PROJECT]: [{ runId: RUN, scenario: "provider", take: 3 }] } };
  const { page, problems, close } = await ui.openApp(recorded, { hash: `#/run/${RUN}` });
  try {
    await page.locator('[data-testid="run-view"][data-status="succeeded"]').waitFor();
    await byId(page, "reply-message").fill("It still looks like this:");
    await sendFile(page, '[data-testid="reply-message"]', "paste", { name: "still-broken.png", base64: SCREENSHOT });
    await page.locator('[data-testid="reply-box"] [data-testid="image-attachment"][data-name="still-broken.png"]').waitFor();
    await shot(page, "images-reply-box");
    await byId(page, "reply-send").click();
    await page.waitForFunction((id) => document.querySelector('[data-testid="run-view"]')?.getAttribute("data-run-id") !== id, RUN);
    const [reply] = await calls(page, "reply_to_run");
    assert.deepEqual(reply, { runId: RUN, message: "It still looks like this:", atSeq: null, images: [{ name: "still-broken.png", dataBase64: SCREENSHOT }] });
    await page.locator('[data-testid="conv-user"] [data-testid="run-image"][data-name="still-broken.png"][data-state="ready"]').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("an image a tool returned shows in its card's detail and its Events row", async () => {
  const { page, problems, close } = await ui.openApp(seed());
  try {
    const runId = await page.evaluate(
      async ([path, base64]) => {
        const mock = window.__bearagentMock;
        const image = await mock.storeImage("browser_screenshot.png", base64);
        const call = { call_id: "call_1", tool_name: "mcp__browser__screenshot", arguments: { url: "http://localhost:3000" } };
        return mock.seedRun(path, "Check the page", [
          { type: "run_started" },
          { type: "tool_call_requested", call },
          { type: "tool_call_started", call_id: "call_1" },
          { type: "tool_call_completed", result: { call_id: "call_1", content: "screenshot taken", is_error: false, images: [image] }, receipt: null, truncated: false, original_bytes: 16 },
          { type: "run_succeeded", answer: "The page renders." },
        ]);
      },
      [PROJECT, MOCKUP],
    );
    await page.evaluate((id) => (window.location.hash = `#/run/${id}`), runId);
    const card = page.locator('[data-testid="tool-card"][data-call-id="call_1"]');
    await card.getByTestId("card-toggle").click();
    const thumb = card.locator('[data-testid="card-detail"] [data-testid="run-image"][data-name="browser_screenshot.png"][data-state="ready"]');
    await thumb.waitFor();
    assert.equal(await thumb.locator("img").getAttribute("src"), `data:image/png;base64,${MOCKUP}`);

    await showEvents(page);
    const row = page.locator('[data-testid="timeline-row"][data-type="tool_call_completed"]');
    assert.equal(await row.getByTestId("result-images-count").innerText(), "1 image returned");
    await row.locator('[data-testid="run-image"][data-state="ready"]').waitFor();
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Settings: a provider's Reads images choice is saved as vision null / true / false", async () => {
  const { page, problems, close } = await ui.openApp({ settings: { providers: [OPENAI] } }, { hash: "#/settings" });
  try {
    const provider = page.locator('[data-testid="provider-item"][data-name="openai"]');
    assert.equal(await provider.getByTestId("provider-vision-text").innerText(), "images: as its model family");
    for (const [choice, vision, text] of [["no", false, "does not read images"], ["yes", true, "reads images"], ["auto", null, "images: as its model family"]]) {
      await provider.getByRole("button", { name: "Edit openai" }).click();
      await byId(page, "provider-vision").selectOption(choice);
      await byId(page, "save-provider").click();
      await byId(page, "provider-form").waitFor({ state: "detached" });
      assert.equal((await calls(page, "save_provider")).at(-1).provider.vision, vision);
      assert.equal(await provider.getByTestId("provider-vision-text").innerText(), text);
    }
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
