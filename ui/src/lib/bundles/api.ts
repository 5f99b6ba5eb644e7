import { commands } from "../../bindings";
import type { ExportedBundleView, ImportedRunView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

/** What opening a run file (`.bearagent-run`, a run another BearAgent exported) needs from the backend. */
export interface RunFilesApi {
  /** The native file picker, then the import; `null` when the user cancels. */
  open(): Promise<Outcome<ImportedRunView | null>>;
  /** Imports the bundle at `path` as a read-only run. */
  importFile(path: string): Promise<Outcome<ImportedRunView>>;
  /** The bundle the app was started to open (a double-click on it), once; then `null`. */
  openedAtStart(): Promise<Outcome<string | null>>;
  /** "Export…": the native save dialog for the run's file; `null` when the user cancels. */
  pickExport(runId: string): Promise<Outcome<string | null>>;
  /** Writes the run, with the runs it continues, to `path` as one run file (what `bearagent export RUN --bundle FILE` writes). */
  exportTo(runId: string, path: string): Promise<Outcome<ExportedBundleView>>;
}

/** The real implementation: the generated tauri-specta commands. */
export const tauriRunFilesApi: RunFilesApi = {
  open: () => call(() => commands.openRunFile()),
  importFile: (path) => call(() => commands.importRunFile(path)),
  openedAtStart: () => call(() => commands.openedRunFile()),
  pickExport: (runId) => call(() => commands.pickBundleFile(runId)),
  exportTo: (runId, path) => call(() => commands.exportRunBundle(runId, path)),
};
