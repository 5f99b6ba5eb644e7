export { tauriRunsApi, type RunsApi } from "./api";
export { RunViewStore, EVENT_PAGE_SIZE, type ContextPanel } from "./runView.svelte";
export { RUN_LIST_PAGE, RunListStore, type RunListState, type RunFilter } from "./runList.svelte";
export { ThreadStore, ReplyStore, type SendKind } from "./thread.svelte";
export { CompactStore, EventTexts, type EventTextState } from "./compaction.svelte";
export { RewindStore, type RewindConflict, type RewindHooks } from "./rewindStore.svelte";
