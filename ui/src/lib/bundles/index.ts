export { tauriRunFilesApi, type RunFilesApi } from "./api";
export { runFileErrorTitle } from "./errors";
export { ImportedRuns } from "./importedRuns.svelte";
export { RunFileOpener } from "./opener.svelte";
