export { tauriSettingsApi, type SettingsApi } from "./api";
export { SettingsStore, type McpTestState, type SettingsState, type SubmitResult, type TestState } from "./store.svelte";
export * from "./types";
export * from "./validation";
export * from "./mcp";
export * from "./context";
export * from "./sandbox";
export * from "./vision";
