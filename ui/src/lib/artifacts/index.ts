export { tauriArtifactsApi, type ArtifactsApi } from "./api";
export { ArtifactsStore, type DiffState, type PendingAction } from "./store.svelte";
export { DIFF_LINE_CAP, capHunks, hunkHeader, lineCount, splitRows, type SplitRow } from "./diff";
