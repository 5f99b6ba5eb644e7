import { mount } from "svelte";
import App from "./App.svelte";
import "./app.css";

async function start(): Promise<void> {
  // Development only: `?mockIpc` swaps the Tauri backend for an in-page fake
  // (used by the Chromium UI tests and for working on the UI in a browser).
  // `import.meta.env.DEV` is false in `vite build`, so the production bundle
  // contains neither this branch nor the mock module.
  if (import.meta.env.DEV && new URLSearchParams(window.location.search).has("mockIpc")) {
    const { installMockBackend } = await import("./dev/mock");
    installMockBackend();
  }
  const target = document.getElementById("app");
  if (!target) throw new Error("missing #app element");
  mount(App, { target });
}

void start();
