export { tauriRunFilesApi, type RunFilesApi } from "./api";
export { exportErrorTitle, runFileErrorTitle } from "./errors";
export { RunExporter } from "./exporter.svelte";
export { ImportedRuns } from "./importedRuns.svelte";
export { RunFileOpener } from "./opener.svelte";
