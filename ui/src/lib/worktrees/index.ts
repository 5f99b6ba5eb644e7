export { tauriWorktreesApi, type WorktreesApi } from "./api";
export { WorktreeListStore } from "./list.svelte";
export { WorktreeActions } from "./actions.svelte";
