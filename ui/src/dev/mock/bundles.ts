// Development-only: run files (`.bearagent-run` bundles another BearAgent
// exported) in the mock backend — "Open run file…" (`open_run_file`),
// `import_run_file`, the file the app was started with
// (`opened_run_file`) — and the refusals of an imported run, worded like
// the runtime's (src-tauri/crates/runtime/src/bundle/). A file holds one
// recorded run (a scenario's take) made in a folder of another machine.
import type { ApiError, ExportedBundleView, ImportedRunView, RunStatusKind, WorkspaceView } from "../../bindings";
import { fail, MockError } from "./errors";
import type { ScenarioName } from "./scenario";

/** A run file on the mock's disk: the recorded run it holds, with this id. */
export interface MockRunFile {
  runId: string;
  scenario: ScenarioName;
  /** Which take of the scenario (default the first). */
  take?: number;
  /** Where the run worked, on the machine that exported it (no folder of this one). */
  workspacePath: string;
}

/** A seeded run file: a bundle, or the error its import gives (a damaged or newer bundle). */
export type MockRunFileSeed = MockRunFile | { error: ApiError };

export interface MockBundlesSeed {
  runFiles: Record<string, MockRunFileSeed>;
  /** What the file dialog picks; `null` = the user cancels. */
  pickRunFile: string | null;
  /** The file the app was started with, handed out once. */
  openedRunFile: string | null;
  /** Files whose run was imported in an earlier session: stored at start and marked imported, not imported by this window. */
  importedEarlier: Record<string, MockRunFile>;
  /** The folder the Export… dialog saves in (the file is named after the run); `null` = the user cancels. */
  exportFolder: string | null;
}

/** Where runs are stored: whether one is there, and storing a file's run. */
export interface RunStore {
  has(runId: string): boolean;
  add(file: MockRunFile): void;
  /** A run's thread, its oldest run first (the run last), with each one's status. */
  thread(runId: string): { runId: string; status: RunStatusKind }[];
}

const LIVE: readonly RunStatusKind[] = ["created", "running", "awaiting_approval"];

/** Commands that record events on a run after it ended (review): refused for an imported run. */
export const REVIEW_COMMANDS = new Set(["keep_artifact", "keep_hunks", "revert_artifact", "revert_hunks", "reapply_artifact", "rewind_run", "redo_rewind", "keep_edited"]);

/** Like the runtime's refusal of an act (`continued`, `compacted`, `changed`) on an imported run. */
export function readOnlyMessage(runId: string, source: string, act: string): string {
  return (
    `run ${runId} was imported from ${source} and is read-only here: it cannot be ${act}; ` +
    `fork it (\`run --fork ${runId} --at SEQ --workspace DIR\`) to go on from it in a workspace of yours`
  );
}

/** Like the runtime's refusal of a fork of an imported run that names no workspace (the desktop's never does) with none open. */
export function forkNeedsWorkspaceMessage(runId: string): string {
  return `run ${runId} was imported: open the workspace its fork is to work in, or name it`;
}

/** The workspace an imported run names: a folder of the machine it was made on. */
/** A run's view as the backend gives it: `importedFrom` (the bundle's file name) only on an imported run, like the DTOs' `skip_serializing_if`. */
export function withSource<T extends object>(view: T, source: string | null): T & { importedFrom?: string } {
  return source === null ? view : { ...view, importedFrom: source };
}

const fileName = (path: string) => path.split("/").pop() ?? path;

export function workspaceElsewhere(path: string): WorkspaceView {
  return { id: `ws-elsewhere:${path}`, path, name: path.split("/").filter(Boolean).pop() ?? path, lastOpenedAt: "2025-03-01T12:00:00Z" };
}

const sameRun = (a: MockRunFile, b: MockRunFile) => a.runId === b.runId && a.scenario === b.scenario && (a.take ?? 0) === (b.take ?? 0);

export class MockBundles {
  readonly #seed: MockBundlesSeed;
  readonly #store: RunStore;
  /** Imported runs: the file name each came from and what it held. */
  readonly #imported = new Map<string, { source: string; file: MockRunFile }>();
  #opened: string | null;

  constructor(seed: MockBundlesSeed, store: RunStore) {
    this.#seed = seed;
    this.#store = store;
    this.#opened = seed.openedRunFile;
    for (const [path, file] of Object.entries(seed.importedEarlier)) {
      store.add(file);
      this.#imported.set(file.runId, { source: fileName(path), file });
    }
  }

  /** The run-file commands, by name (the router hands them all here). */
  answer(cmd: string, input: Record<string, unknown>): unknown {
    const path = String(input.path ?? "");
    switch (cmd) {
      case "open_run_file":
        return this.open();
      case "import_run_file":
        return this.importFile(path);
      case "opened_run_file":
        return this.takeOpened();
      case "pick_bundle_file":
        return this.pickExport(String(input.runId));
      case "export_run_bundle":
        return this.exportTo(String(input.runId), path);
      default:
        return fail("internal", `mock backend: ${cmd} is no run-file command`);
    }
  }

  /** Like `open_run_file`: the picked file imported; `null` when the user cancels. */
  open(): ImportedRunView | null {
    return this.#seed.pickRunFile === null ? null : this.importFile(this.#seed.pickRunFile);
  }

  /** Like `opened_run_file`: the file the app was started with, once. */
  takeOpened(): string | null {
    const path = this.#opened;
    this.#opened = null;
    return path;
  }

  /** Like `import_run_file`: the same run again adds nothing; another run with its id is `conflict`. */
  importFile(path: string): ImportedRunView {
    const file = this.#seed.runFiles[path];
    if (!file) return fail("invalid_input", `${path} is not a readable BearAgent run bundle: No such file or directory (os error 2)`);
    if ("error" in file) throw new MockError(file.error);
    const earlier = this.#imported.get(file.runId);
    if (earlier && sameRun(earlier.file, file)) return { runId: file.runId, added: [] };
    if (this.#store.has(file.runId)) fail("conflict", `a different run with id ${file.runId} is already in this store; the bundle was not imported`);
    this.#store.add(file);
    this.#imported.set(file.runId, { source: fileName(path), file });
    return { runId: file.runId, added: [file.runId] };
  }

  /** Like `pick_bundle_file`: the file the save dialog picks, named after the run; `null` when the user cancels. */
  pickExport(runId: string): string | null {
    return this.#seed.exportFolder === null ? null : `${this.#seed.exportFolder}/${runId}.bearagent-run`;
  }

  /** Like `export_run_bundle`: a live run is refused (\`conflict\`); the bundle holds the run and the runs it continues. */
  exportTo(runId: string, path: string): ExportedBundleView {
    const thread = this.#store.thread(runId);
    const status = thread[thread.length - 1]?.status;
    if (status && LIVE.includes(status)) {
      fail("conflict", `run ${runId} is still ${status === "awaiting_approval" ? "awaiting approval" : status}: export it once it has ended`);
    }
    return { path, runs: thread.map((r) => r.runId), withheld: 0, redacted: 0 };
  }

  /** The file name an imported run came from; `null` for a run made here. */
  sourceOf(runId: string): string | null {
    return this.#imported.get(runId)?.source ?? null;
  }

  /** Refuses `act` on an imported run (`conflict`), like the runtime. */
  checkWritable(runId: string, act: string): void {
    const source = this.sourceOf(runId);
    if (source !== null) fail("conflict", readOnlyMessage(runId, source, act));
  }
}
