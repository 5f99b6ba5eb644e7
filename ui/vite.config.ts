/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";

// Tauri loads `devUrl` (http://localhost:1420) in development and embeds
// `ui/dist` (frontendDist) in release builds.
export default defineConfig(({ mode }) => ({
  base: "./",
  plugins: [svelte()],
  clearScreen: false,
  server: {
    port: 1420,
    strictPort: true,
    host: "localhost",
  },
  // Unit tests exercise rune-based stores: use Svelte's client runtime.
  resolve: mode === "test" ? { conditions: ["browser"] } : undefined,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
}));
