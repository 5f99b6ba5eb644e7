// Development-only: the fixture a test can set with `page.addInitScript`
// (`window.__BEARAGENT_MOCK_SEED__`) and the hooks it can call
// (`window.__bearagentMock`).
import type { EventPayload, ImageRef, LocalServerView, ProjectHookView, WorkspaceView } from "../../bindings";
import type { SettingsView } from "../../lib/settings/types";
import type { MockRunFile, MockRunFileSeed } from "./bundles";
import type { MockProjectHooksSeed } from "./hooks";
import type { ScenarioName } from "./scenario";
import type { SeededRun, SeedOptions } from "./runs";
import { DEFAULT_LOCAL_SERVERS } from "./settings";

export interface MockSeed {
  /** Absolute paths that exist and are folders. */
  directories?: string[];
  /** Absolute paths that exist but are files (a workspace's `AGENTS.md` listed here is loaded by its runs). */
  files?: string[];
  /** Paths opened earlier, oldest first. */
  recent?: string[];
  /** Path of the workspace open at start. */
  current?: string | null;
  /** What the folder dialog "picks"; `null` = the user cancels. */
  choose?: string | null;
  /** Finished (or stuck) runs by workspace path, as the run list shows them. */
  runs?: Record<string, SeededRun[]>;
  /** Providers, profiles and MCP servers; none by default (first launch). */
  settings?: Partial<SettingsView>;
  /** Local model servers `detect_local_providers` finds; by default one llama.cpp server on port 8080, `[]` for none. */
  localServers?: LocalServerView[];
  /** Milliseconds between a fake run's events. */
  stepMs?: number;
  /** Milliseconds between streamed text chunks. */
  streamMs?: number;
  /** Model calls wait for `__bearagentMock.releaseModelCall()` before completing. */
  gateModelCalls?: boolean;
  /** Commands wait for `__bearagentMock.releaseCommand()` after streaming their output, before finishing. */
  gateCommands?: boolean;
  /** The page offers its web process for recycling after this idle time, and the mock says "recycling" (there is none to end: the test reloads). */
  recycleIdleMs?: number;
  /** Finished runs the Rust app recorded (a scenario's take), by workspace path, stored with their own ids. */
  recorded?: Record<string, { runId: string; scenario: ScenarioName; take?: number }[]>;
  /** Top folders of git repositories: a run "In a new worktree" needs its workspace to be one. */
  repos?: string[];
  /** Each workspace's `.bearagent/hooks.toml`, by workspace path: its hooks, and whether it is trusted (default: not) or invalid. */
  projectHooks?: Record<string, MockProjectHooksSeed>;
  /** `.bearagent-run` files by path: the recorded run each holds (made in a folder of another machine), or the error importing it gives. */
  runFiles?: Record<string, MockRunFileSeed>;
  /** What the "Open run file…" dialog picks; `null` = the user cancels. */
  pickRunFile?: string | null;
  /** The run file the app was started with (a double-click on it), handed out once. */
  openedRunFile?: string | null;
  /** `.bearagent-run` files by path whose run was imported in an earlier session: stored (in its folder of the other machine) and marked imported with the file's name, but not imported by this window. */
  importedEarlier?: Record<string, MockRunFile>;
  /** The folder the Export… dialog saves in (the file is named after the run); `null` = the user cancels. */
  exportFolder?: string | null;
}

/** The run file the dialog picks by default: the conversation scenario's run, made on another machine. */
const DEFAULT_RUN_FILE = "/home/dev/Downloads/calc-fix.bearagent-run";

export const DEFAULT_SEED: Required<MockSeed> = {
  directories: ["/home/dev/projects/bear-demo", "/home/dev/projects/notes"],
  files: ["/home/dev/projects/README.md"],
  recent: [],
  current: null,
  choose: "/home/dev/projects/bear-demo",
  runs: {},
  settings: {},
  localServers: DEFAULT_LOCAL_SERVERS,
  stepMs: 120,
  streamMs: 40,
  gateModelCalls: false,
  gateCommands: false,
  recycleIdleMs: 0,
  recorded: {},
  repos: ["/home/dev/projects/bear-demo"],
  projectHooks: {},
  runFiles: { [DEFAULT_RUN_FILE]: { runId: "0190a000-0000-7000-8000-00000b0a0001", scenario: "conversation", workspacePath: "/home/alex/src/calc" } },
  pickRunFile: DEFAULT_RUN_FILE,
  openedRunFile: null,
  importedEarlier: {},
  exportFolder: "/home/dev/Downloads",
};

export interface MockHooks {
  /** Open a workspace "from the backend side" (emits workspace-opened). */
  openFromBackend(path: string): Promise<WorkspaceView>;
  /** Every command the UI sent, in order. */
  calls: { cmd: string; args: Record<string, unknown> }[];
  readonly quitCalled: boolean;
  releaseModelCall(): void;
  /** Keep an image's bytes as the backend would (for a seeded event to reference, e.g. a tool's result). */
  storeImage(name: string, dataBase64: string): Promise<ImageRef>;
  /** Let the next command waiting for its end finish (with `gateCommands`). */
  releaseCommand(): void;
  /**
   * Store a run with these events (after its run_created) without pushing them; `commands` and `delegatedBy`
   * (a helper) go in its run_created; with `answers`, a decision on its pending approval commits its answer.
   */
  seedRun(workspacePath: string, goal: string, payloads: EventPayload[], options?: SeedOptions): string;
  /** Commit one more event; pushed unless `silent`. Returns its seq. */
  appendEvent(runId: string, payload: EventPayload, options?: { silent?: boolean }): number;
  /** Push an already stored event again (duplicates, reordering). */
  emitStored(runId: string, seq: number): void;
  emitModelText(runId: string, modelCall: number, text: string): void;
  emitCommandOutput(runId: string, callId: string, text: string): void;
  /** How many events the backend has stored for a run. */
  eventCount(runId: string): number;
  /** Like an app crash while the run waits for approval. */
  interrupt(runId: string): boolean;
  /** Another live BearAgent process (the CLI, a second window) executes the run: approvals and cancel are its. */
  runElsewhere(runId: string, pid: number, program: string): void;
  /** Like the run's loop stopping because its events could not be stored: marked failed, then `run-aborted`. */
  abortRun(runId: string, message: string): void;
  /** Change a file a run wrote, as an editor would (makes it a conflict). */
  editFile(runId: string, path: string): void;
  /** The folder is gone (deleted or moved): runs in it cannot be continued. */
  removeFolder(path: string): void;
  /** Whether the mock's disk holds this file (a run wrote it, or a worktree was applied there). */
  hasFile(path: string): boolean;
  /** Edit a workspace's hooks file (its hooks replaced when given): its hash changes, so its trust no longer holds. Returns the new hash. */
  editProjectHooks(workspacePath: string, hooks?: ProjectHookView[]): string;
  /** Like closing the window: asks before quitting when runs are active. */
  requestQuit(): void;
}

declare global {
  interface Window {
    __BEARAGENT_MOCK_SEED__?: MockSeed;
    __bearagentMock?: MockHooks;
  }
}
