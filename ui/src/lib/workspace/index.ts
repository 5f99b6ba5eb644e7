export { tauriWorkspaceApi, type WorkspaceApi } from "./api";
export { WorkspaceStore, type RunsState, type WorkspaceError } from "./store.svelte";
