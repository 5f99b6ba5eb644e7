export { tauriArtifactsApi, type ArtifactsApi } from "./api";
export { ArtifactsStore, type DiffState, type PendingAction } from "./store.svelte";
export { DIFF_LINE_CAP, capHunks, hunkHeader, lineCount, splitRows, type SplitRow } from "./diff";
export { HIGHLIGHT_MAX_LINES, languageFor, lineHtml } from "./highlight";
export { wordChange, wordChanges, type ChangeRange, type WordChange } from "./wordDiff";
export { tauriReviewApi, type ReviewApi } from "./review";
export { EditStore } from "./edit.svelte";
export { fileActions, STATE_LABEL, type FileActions } from "./actions";
export { moveBetweenHunks } from "./hunkKeys";
