// Development-only: runs in git worktrees, answered only from what the
// Rust app recorded in a real repository (scenario `worktrees`). A run
// "In a new worktree" plays the take recorded for its base and carried
// changes, in a worktree named as the user asked; a start the runtime
// refused (a name whose folder exists, a folder that is no repository)
// is refused with the recorded error. Apply, undo, discard and prune play
// the command recorded from the same state (the worktree's take, state
// and runs, the main checkout's report): its answer, its events, the main
// checkout after. The list is the runtime's `worktrees/list.rs` over the
// runs' events, checked against the recorded lists (worktreeSteps.test.ts).
import type { EventPayload, RunStatus, Worktree, WorktreeInput, WorktreeStateView, WorktreeView, WorkspaceView } from "../../bindings";
import { MockError } from "./errors";
import { answerRecorded, findRecorded } from "./playback";
import type { MockRun, MockRunEngine } from "./runEngine";
import { createdOf, localise, SCENARIOS, type LocalIds, type RecordedCommand, type Take } from "./scenario";

/** A worktree as the state a command was recorded from names it. */
interface TreeState {
  take: number;
  state: WorktreeStateView;
  runs: number;
}

/** The main checkout's files a command concerns: path → content (null: absent). */
type MainFiles = Record<string, string | null>;

export type WorktreeRequest = { cmd: "apply_worktree"; paths: string[] } | { cmd: "undo_apply"; force: boolean } | { cmd: "discard_worktree" } | { cmd: "prune_worktrees" };

type WorktreeCommand = RecordedCommand<Record<string, unknown>, { worktrees: TreeState[]; main: MainFiles }, { main: MainFiles; list: WorktreeView[] }>;

interface WorktreeFixture {
  steps: WorktreeCommand[];
  refusals: { request: { cmd: "start_run"; why: "name_taken" | "not_a_repository" }; outcome: WorktreeCommand["outcome"] }[];
  main_start: MainFiles;
}

const SCENARIO = SCENARIOS.worktrees;
const FIXTURE = SCENARIO as unknown as WorktreeFixture;
const RECORD_IT = "record it in src-tauri/src/scenarios/worktrees.rs";

/** What the worktrees need of the rest of the mock. */
export interface WorktreeHost {
  engine: MockRunEngine;
  /** Commits an event on a run, pushed live. */
  commit(runId: string, payload: EventPayload): void;
  /** Top folders of git repositories (`MockSeed.repos`). */
  repos: ReadonlySet<string>;
  folders: Set<string>;
  files: Set<string>;
}

/** A worktree the mock's runs made, with its runs (oldest first). */
interface Tree {
  worktree: Worktree;
  runs: MockRun[];
}

export function worktreeOf(run: MockRun): Worktree | null {
  const first = run.events[0]?.payload;
  return first?.type === "run_created" ? (first.worktree ?? null) : null;
}

/** Which take of the scenario a worktree run plays (-1: none). */
function takeOf(run: MockRun): number {
  return run.scenario === "worktrees" && run.takes[0] ? SCENARIO.takes.indexOf(run.takes[0]) : -1;
}

/** The folder of `repo`'s worktrees: `<data>/worktrees/<its folder's name>-<a hash of its path>`. */
export function worktreesFolder(repo: string): string {
  const label = repo.split("/").filter(Boolean).pop() ?? "repo";
  let h = 0x811c9dc5;
  for (let i = 0; i < repo.length; i++) h = Math.imul(h ^ repo.charCodeAt(i), 0x01000193) >>> 0;
  return `${SCENARIO.placeholders.data_folder}/worktrees/${label}-${h.toString(16).padStart(8, "0")}`;
}

/** The recording's worktree folder and take `k`'s name, as this worktree has them. */
function placeholdersOf(k: number, path: string): [string, string][] {
  const cut = path.lastIndexOf("/");
  return [
    [SCENARIO.placeholders.worktrees ?? "", path.slice(0, cut)],
    [SCENARIO.placeholders.worktree_names?.[k] ?? "", path.slice(cut + 1)],
  ];
}

/** The ids to localise `run`'s recordings with: a worktree run's workspace is the main checkout. */
export function localIds(run: MockRun, runs: (string | null)[]): LocalIds {
  const worktree = worktreeOf(run);
  const k = takeOf(run);
  if (!worktree || k < 0) return { workspacePath: run.projection.workspace_path, workspaceId: run.projection.workspace_id, runs };
  return { workspacePath: worktree.repo, workspaceId: run.projection.workspace_id, runs, extra: placeholdersOf(k, worktree.path) };
}

const running = (s: RunStatus["kind"]) => s === "created" || s === "running";

export class MockWorktreeSteps {
  readonly #host: WorktreeHost;
  /** The main checkout's files commands changed, by repository. */
  readonly #main = new Map<string, MainFiles>();

  constructor(host: WorktreeHost) {
    this.#host = host;
  }

  /**
   * The take and worktree of a new worktree run (`runId`: the id it will
   * get); a start the runtime refused is refused with the recorded error;
   * a string says what has no recording.
   */
  start(workspace: WorkspaceView, runId: string, input: WorktreeInput): { take: Take; worktree: Worktree } | string {
    const repo = workspace.path;
    if (!this.#host.repos.has(repo)) this.#refuse("not_a_repository", [], repo);
    const name = input.name?.trim() || runId.replace(/-/g, "").slice(-8);
    const folder = `${worktreesFolder(repo)}/${name}`;
    if (this.#host.folders.has(folder)) this.#refuse("name_taken", placeholdersOf(0, folder), repo);
    const base = input.base?.trim() || null;
    const carry = input.carryChanges ?? false;
    const k = SCENARIO.takes.findIndex((t) => (t.worktree_request?.base ?? null) === base && (t.worktree_request?.carryChanges ?? false) === carry);
    if (k < 0) return `the UI mock has no recording of a worktree run from ${base ?? "HEAD"}${carry ? " with the uncommitted changes" : ""}: ${RECORD_IT}`;
    const take = SCENARIO.takes[k];
    const ids = { workspacePath: repo, workspaceId: workspace.id, runs: [runId], extra: placeholdersOf(k, folder) };
    const worktree = localise(SCENARIO, createdOf(take.run).worktree, ids);
    if (!worktree) throw new Error("a recorded worktree run must record its worktree");
    return { take, worktree };
  }

  #refuse(why: "name_taken" | "not_a_repository", extra: [string, string][], repo: string): never {
    const refusal = FIXTURE.refusals.find((r) => r.request.why === why);
    if (!refusal || !("error" in refusal.outcome)) throw new MockError({ code: "internal", message: `the UI mock has no recording of a start refused (${why}): ${RECORD_IT}` });
    throw new MockError(localise(SCENARIO, refusal.outcome.error, { workspacePath: repo, workspaceId: "", runs: [], extra }));
  }

  /** Like `list_worktrees`: every worktree a run recorded, newest first (the runtime's `worktrees()`). */
  list(): WorktreeView[] {
    return this.#trees()
      .map((t) => this.#view(t))
      .reverse();
  }

  /** Apply, undo or discard of `runId`'s worktree: the command recorded from the state it is in now. */
  play(runId: string, request: WorktreeRequest): unknown {
    const run = this.#host.engine.runs.get(runId);
    const tree = this.#trees().find((t) => run && t.runs.includes(run));
    if (!tree || takeOf(tree.runs[0]) < 0) throw new MockError({ code: "internal", message: `the UI mock has no recording of ${request.cmd} on run ${runId}: ${RECORD_IT}` });
    return this.#play(request, [tree]);
  }

  /** Like `prune_worktrees`: the prune recorded from the state all worktrees are in now. */
  prune(): unknown {
    return this.#play({ cmd: "prune_worktrees" }, this.#trees());
  }

  #play(request: WorktreeRequest, trees: Tree[]): unknown {
    const repo = trees[0]?.worktree.repo ?? "";
    const main = this.#mainOf(repo);
    const worktrees = trees.map((t) => ({ take: takeOf(t.runs[0]), state: this.#view(t).state, runs: t.runs.length }));
    const one = trees.length === 1 && request.cmd !== "prune_worktrees" ? { take: worktrees[0].take } : {};
    const recorded = findRecorded(FIXTURE.steps, { ...request, ...one }, { worktrees, main });
    if (!recorded) {
      const what = JSON.stringify({ ...request, worktrees });
      throw new MockError({ code: "internal", message: `the UI mock has no recording of ${what} from the main checkout's state now: ${RECORD_IT}` });
    }
    const runs: (string | null)[] = [];
    const extra = trees.flatMap((t, i) => {
      runs[worktrees[i].take] = t.runs[t.runs.length - 1].id;
      return placeholdersOf(worktrees[i].take, t.worktree.path);
    });
    const local = localise(SCENARIO, recorded, { workspacePath: repo, workspaceId: trees[0].runs[0].projection.workspace_id, runs: [...runs].map((r) => r ?? null), extra });
    const answer = answerRecorded(local, (runId, payload) => {
      this.#host.commit(runId, payload);
      const removed = payload.type === "worktree_removed" ? trees.find((t) => t.runs.some((r) => r.id === runId)) : undefined;
      if (removed) this.#host.folders.delete(removed.worktree.path);
    });
    this.#main.set(repo, local.after.main);
    for (const [path, content] of Object.entries(local.after.main)) {
      if (content === null) this.#host.files.delete(`${repo}/${path}`);
      else this.#host.files.add(`${repo}/${path}`);
    }
    return answer;
  }

  #mainOf(repo: string): MainFiles {
    return this.#main.get(repo) ?? FIXTURE.main_start;
  }

  /** The worktrees the runs recorded, oldest first, each with its runs. */
  #trees(): Tree[] {
    const trees: Tree[] = [];
    for (const run of this.#host.engine.runs.values()) {
      const worktree = worktreeOf(run);
      if (!worktree) continue;
      const tree = trees.find((t) => t.worktree.path === worktree.path);
      if (tree) tree.runs.push(run);
      else trees.push({ worktree, runs: [run] });
    }
    return trees;
  }

  #view(tree: Tree): WorktreeView {
    const exists = this.#host.folders.has(tree.worktree.path);
    const w = tree.worktree;
    return {
      path: w.path,
      repo: w.repo,
      branch: w.branch,
      base: w.base,
      carriedChanges: w.carried_changes,
      state: stateOf(tree.runs, exists),
      sizeBytes: exists ? sizeOf(tree.runs) : 0,
      runs: tree.runs.map((r) => r.id),
    };
  }
}

/** The runtime's `entry`: in progress first, then removed, missing, applied. */
export function stateOf(runs: MockRun[], exists: boolean): WorktreeStateView {
  const kinds = runs.map((r) => r.projection.status.kind);
  if (kinds.some(running)) return "running";
  if (kinds.includes("awaiting_approval")) return "waiting_for_approval";
  let applied = false;
  let removed: boolean | null = null;
  for (const run of runs) {
    for (const { payload: p } of run.events) {
      // Applied once every file landed; refusals leave it to apply again, an undo too.
      if (p.type === "worktree_applied") applied = p.refused.length === 0;
      if (p.type === "worktree_removed") removed = p.discarded;
      if (p.type === "worktree_step" && p.step.kind === "apply_undone") applied = false;
    }
  }
  if (removed !== null) return removed ? "discarded" : "removed";
  if (!exists) return "missing";
  return applied ? "applied" : "ready_to_apply";
}

/** The size the recording listed once the newest of the runs ended. */
function sizeOf(runs: MockRun[]): number {
  for (const run of [...runs].reverse()) {
    const size = run.takes[0]?.[run.role]?.worktree?.sizeBytes;
    if (size !== undefined) return size;
  }
  return 0;
}
