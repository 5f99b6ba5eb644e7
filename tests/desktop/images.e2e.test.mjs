// The real app under Xvfb with a model served over loopback HTTP (OpenAI
// Chat Completions, its provider set to read images in the config): a PNG
// pasted into the goal box shows as a thumbnail; the run starts and the
// model's first request carries it as an image_url part with the exact
// bytes as a data: URL; the conversation shows it, read back from the
// store.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModel, answerTurn, writeLoopbackConfig } from "./loopback-model.mjs";
import { makeSandbox, startDriver, launchApp, byTestId, screenshot, step, WAIT } from "./harness.mjs";

let sandbox;
let driver;
let model;

/** A real 2×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGM4oSEHRAAIvQIdt6jVHwAAAABJRU5ErkJggg==";
const NAME = "screenshot.png";
const GOAL = "What colour is the image?";

before(async () => {
  sandbox = makeSandbox();
  model = await startModel([answerTurn("It is red.")]);
  writeLoopbackConfig(sandbox.data, model.port, [], ["vision = true"]);
  driver = await startDriver(sandbox);
});

after(async () => {
  await driver?.stop();
  model?.server.close();
});

const thumbnail = (app) => app.$(`[data-testid="image-attachment"][data-name="${NAME}"]`);

/**
 * Hands the PNG to the goal box: a synthetic paste first (as the Chromium
 * test does); if WebKit will not carry a file in a constructed event, a
 * drop; as a last resort the "Attach image…" file input, given a real file
 * through WebDriver. Returns which way worked.
 */
async function attachImage(app) {
  for (const kind of ["paste", "drop"]) {
    const sent = await app.execute(
      (kind, base64, name) => {
        try {
          const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
          const data = new DataTransfer();
          data.items.add(new File([bytes], name, { type: "image/png" }));
          const event =
            kind === "paste"
              ? new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true })
              : new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
          const carried = kind === "paste" ? event.clipboardData : event.dataTransfer;
          if (!carried || carried.files.length !== 1) return `${kind}: the event carries no file`;
          const target = document.querySelector(kind === "paste" ? '[data-testid="run-goal"]' : '[data-testid="run-goal-box"]');
          target.dispatchEvent(event);
          return "sent";
        } catch (e) {
          return `${kind}: ${e.message}`;
        }
      },
      kind,
      PNG,
      NAME,
    );
    if (sent === "sent" && (await thumbnail(app).waitForExist({ timeout: 5_000 }).catch(() => false))) return kind;
    console.log(`images e2e: ${kind} did not attach (${sent})`);
  }
  const file = join(sandbox.root, NAME);
  writeFileSync(file, Buffer.from(PNG, "base64"));
  await app.execute(() => {
    document.querySelector('[data-testid="image-file-input"]').hidden = false;
  });
  await byTestId(app, "image-file-input").addValue(file);
  await thumbnail(app).waitForExist(WAIT);
  return "file input";
}

test("images: a PNG pasted into the goal reaches the model as an image_url data: URL and shows in the conversation", async () => {
  const app = await launchApp(driver);
  try {
    await step(app, "img-open", async () => {
      await byTestId(app, "path-input").setValue(sandbox.workspace);
      await byTestId(app, "open-path").click();
      await byTestId(app, "current-workspace").waitForDisplayed(WAIT);
    });
    await step(app, "img-goal", async () => {
      await byTestId(app, "run-goal").waitForDisplayed(WAIT);
      await byTestId(app, "run-goal").setValue(GOAL);
      await byTestId(app, "run-provider").selectByAttribute("value", "local");
    });
    const how = await step(app, "img-attach", () => attachImage(app));
    console.log(`images e2e: attached by ${how}`);
    await step(app, "img-thumbnail", () => thumbnail(app).waitForDisplayed(WAIT));
    assert.equal(await thumbnail(app).$('[data-testid="image-attachment-name"]').getProperty("textContent"), NAME);
    assert.equal(model.calls(), 0, "nothing is sent before Start");
    await screenshot(app, "images-01-goal-box");

    await byTestId(app, "start-run").click();
    await step(app, "img-succeeded", () =>
      app.$('[data-testid="run-outcome"][data-status="succeeded"]').waitForDisplayed({ timeout: 30_000 }),
    );

    // The model's first request: the first user message is the goal with the image, byte for byte.
    const body = JSON.parse(model.bodies[0]);
    const user = body.messages.find((m) => m.role === "user");
    assert.ok(Array.isArray(user?.content), `the first user message has parts: ${JSON.stringify(user)}`);
    assert.ok(
      user.content.some((p) => p.type === "text" && p.text.includes(GOAL)),
      `the goal is a text part: ${JSON.stringify(user.content)}`,
    );
    const images = user.content.filter((p) => p.type === "image_url");
    assert.deepEqual(images, [{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }]);

    // The conversation's goal shows it, read back with run_image.
    const shown = app.$(`[data-testid="conv-user"] [data-testid="run-image"][data-name="${NAME}"][data-state="ready"]`);
    await step(app, "img-conversation", () => shown.waitForDisplayed(WAIT));
    assert.equal(await shown.$("img").getAttribute("src"), `data:image/png;base64,${PNG}`);
    await screenshot(app, "images-02-conversation");
  } finally {
    await app.deleteSession();
  }
});
