export { tauriHooksApi, type HooksApi } from "./api";
export { ProjectHooksStore } from "./trustStore.svelte";
