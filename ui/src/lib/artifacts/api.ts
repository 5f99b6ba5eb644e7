import { commands } from "../../bindings";
import type { ArtifactItem, ExportedView, FileDiffView, ProposedChangeView, UntrackedItem } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

/** What the Changes panel needs from the backend: a run's changed files and their review. */
export interface ArtifactsApi {
  list(runId: string): Promise<Outcome<ArtifactItem[]>>;
  /** What the run's commands changed without BearAgent keeping it (build output, dependencies…): not restorable. */
  untracked(runId: string): Promise<Outcome<UntrackedItem[]>>;
  /** Files over 1 MB come back as stats only unless `full`. */
  diff(runId: string, path: string, full: boolean): Promise<Outcome<FileDiffView>>;
  keep(runId: string, path: string): Promise<Outcome<null>>;
  /** Fails with code `conflict` when the file changed since the run wrote it, unless `force`. */
  revert(runId: string, path: string, force: boolean): Promise<Outcome<null>>;
  /** Reverts only these hunks (numbered from 1 in the diff shown); the others stay. */
  revertHunks(runId: string, path: string, hunks: number[], force: boolean): Promise<Outcome<null>>;
  /** Keeps these hunks (numbered as for a revert): recorded, the file untouched. */
  keepHunks(runId: string, path: string, hunks: number[]): Promise<Outcome<null>>;
  /** Undoes a revert (of the file or some hunks): the run's version is back. */
  reapply(runId: string, path: string, force: boolean): Promise<Outcome<null>>;
  exportRun(runId: string): Promise<Outcome<ExportedView>>;
  /** What the write the run waits to have approved would change in its file now (null: nothing such waits). */
  pending(runId: string): Promise<Outcome<ProposedChangeView | null>>;
}

/** The real implementation: the generated tauri-specta commands. */
export const tauriArtifactsApi: ArtifactsApi = {
  list: (runId) => call(() => commands.listArtifacts(runId)),
  untracked: (runId) => call(() => commands.listUntracked(runId)),
  diff: (runId, path, full) => call(() => commands.artifactDiff(runId, path, full)),
  keep: (runId, path) => call(() => commands.keepArtifact(runId, path)),
  revert: (runId, path, force) => call(() => commands.revertArtifact(runId, path, force)),
  revertHunks: (runId, path, hunks, force) => call(() => commands.revertHunks(runId, path, hunks, force)),
  keepHunks: (runId, path, hunks) => call(() => commands.keepHunks(runId, path, hunks)),
  reapply: (runId, path, force) => call(() => commands.reapplyArtifact(runId, path, force)),
  exportRun: (runId) => call(() => commands.exportRun(runId)),
  pending: (runId) => call(() => commands.pendingChange(runId)),
};
