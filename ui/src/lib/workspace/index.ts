export { tauriWorkspaceApi, type WorkspaceApi } from "./api";
export { WorkspaceStore, type WorkspaceError } from "./store.svelte";
