// Development-only: runs in git worktrees, as the Rust app keeps them. A
// worktree is whatever a run's `run_created` recorded; its state comes from
// its runs' statuses and their worktree_applied / worktree_removed events.
// Applying writes the worktree's files into the main checkout (the mock's
// file set); a file another worktree already landed there is refused, as a
// three-way merge of the same lines would be.
import type { ApplyReportView, EventPayload, Worktree, WorktreeInput, WorktreeRefusal, WorktreeStateView, WorktreeView, WorkspaceView } from "../../bindings";
import { worktreeNameError } from "../../lib/worktrees/input";
import { fail } from "./errors";
import type { MockRun, MockRunEngine } from "./runEngine";
import { runOf } from "./runs";

/** What the worktrees need of the rest of the mock. */
export interface WorktreeHost {
  engine: MockRunEngine;
  /** Commits an event on a run, after its end, pushed live. */
  commit(runId: string, payload: EventPayload): void;
  /** Top folders of git repositories (`MockSeed.repos`). */
  repos: ReadonlySet<string>;
  folders: Set<string>;
  files: Set<string>;
}

interface Tree {
  worktree: Worktree;
  runs: MockRun[];
}

export const SAME_LINES = "the main checkout changed the same lines since the worktree's start";
const DATA_FOLDER = "/home/dev/.local/share/bearagent";

export class MockWorktrees {
  readonly #host: WorktreeHost;
  /** Who wrote each main-checkout file an apply landed: `repo\0path` → worktree folder and content. */
  readonly #landed = new Map<string, string>();

  constructor(host: WorktreeHost) {
    this.#host = host;
  }

  /** Like `make_worktree`: the repository's top folder, a free name, a branch at the base. */
  make(workspace: WorkspaceView, runId: string, input: WorktreeInput): Worktree {
    const repo = workspace.path;
    if (!this.#host.repos.has(repo)) {
      const top = [...this.#host.repos].find((r) => repo.startsWith(`${r}/`));
      if (top) fail("invalid_input", `a worktree run needs the repository's top folder as its workspace: ${repo} is inside ${top}`);
      fail("invalid_input", `${repo} is not in a git repository; a worktree needs one`);
    }
    const name = input.name?.trim() || runId.replace(/-/g, "").slice(-8);
    const nameError = worktreeNameError(name);
    if (nameError) fail("invalid_input", `worktree name "${name}": use 1 to 64 letters, digits, '.', '_' or '-'`);
    const baseRev = input.base?.trim() || "HEAD";
    if (!/^[\w./~^@{}-]+$/.test(baseRev)) fail("invalid_input", `${baseRev} is not a commit of ${repo}`);
    const branch = `bearagent/${name}`;
    if (this.#trees().some((t) => t.worktree.repo === repo && t.worktree.branch === branch)) {
      fail("conflict", `branch ${branch} exists already; choose another worktree name`);
    }
    const label = repo.split("/").filter(Boolean).pop() ?? "repo";
    const path = `${DATA_FOLDER}/worktrees/${label}-${hex(repo).slice(0, 8)}/${name}`;
    this.#host.folders.add(path);
    const base = hex(`${repo}@${baseRev}`);
    const start = input.carryChanges ? hex(`${base}+changes`) : base;
    return { repo, path, branch, base, start, carried_changes: input.carryChanges ?? false };
  }

  /** Like `list_worktrees`: every worktree a run recorded, newest first. */
  list(): WorktreeView[] {
    return this.#trees()
      .reverse()
      .map((t) => this.#view(t));
  }

  /** Like `apply_worktree`: each changed file (or `paths`) landed, or refused by name. */
  apply(runId: string, paths: string[]): ApplyReportView {
    const tree = this.#settled(runId);
    const changed = changedFiles(tree);
    const report: ApplyReportView = { applied: [], merged: [], refused: [] };
    for (const path of paths.length > 0 ? paths : [...changed.keys()].sort()) {
      const refusal = this.#land(tree, path, changed);
      if (refusal) report.refused.push(refusal);
      else report.applied.push(path);
    }
    this.#host.commit(runId, { type: "worktree_applied", applied: report.applied, merged: report.merged, refused: report.refused.map((r) => ({ ...r })) });
    return report;
  }

  /** Like `discard_worktree`: the folder and branch go, unapplied. */
  discard(runId: string): null {
    const tree = this.#settled(runId);
    this.#host.folders.delete(tree.worktree.path);
    this.#host.commit(runId, { type: "worktree_removed", discarded: true });
    return null;
  }

  /** Like `prune_worktrees`: the applied ones are removed (recorded on their newest run). */
  prune(): WorktreeView[] {
    const pruned: WorktreeView[] = [];
    for (const tree of this.#trees().reverse()) {
      const view = this.#view(tree);
      if (view.state !== "applied") continue;
      this.#host.folders.delete(tree.worktree.path);
      this.#host.commit(tree.runs[tree.runs.length - 1].id, { type: "worktree_removed", discarded: false });
      pruned.push(view);
    }
    return pruned;
  }

  /** Writes one file of the worktree into the main checkout, or says why not. */
  #land(tree: Tree, path: string, changed: Map<string, string | null>): WorktreeRefusal | null {
    if (!changed.has(path)) return { path, reason: "the worktree did not change it" };
    const { repo, path: folder } = tree.worktree;
    const key = `${repo}\0${path}`;
    const theirs = `${folder}:${changed.get(path)}`;
    const ours = this.#landed.get(key);
    if (ours !== undefined && ours !== theirs) return { path, reason: SAME_LINES };
    this.#landed.set(key, theirs);
    if (changed.get(path) === null) this.#host.files.delete(`${repo}/${path}`);
    else this.#host.files.add(`${repo}/${path}`);
    return null;
  }

  /** The run's worktree, refused while a run of it is in progress or once it is gone. */
  #settled(runId: string): Tree {
    const run = runOf(this.#host.engine, runId);
    const recorded = createdWorktree(run);
    if (!recorded) fail("invalid_input", `run ${runId} did not run in a worktree`);
    const tree = this.#trees().find((t) => t.worktree.path === recorded?.path);
    if (!tree) return fail("not_found", `worktree not found: ${recorded?.path}`);
    const state = this.#view(tree).state;
    if (state === "running" || state === "waiting_for_approval") {
      fail("conflict", `a run of worktree ${tree.worktree.path} is still in progress; apply or discard it after it ends`);
    }
    if (state === "discarded" || state === "removed") fail("conflict", `worktree ${tree.worktree.path} was removed already`);
    if (state === "missing") fail("not_found", `path not found: ${tree.worktree.path}`);
    return tree;
  }

  /** The worktrees the runs recorded, oldest first, each with its runs. */
  #trees(): Tree[] {
    const trees: Tree[] = [];
    const runs = [...this.#host.engine.runs.values()].sort((a, b) => a.projection.created_at.localeCompare(b.projection.created_at));
    for (const run of runs) {
      const worktree = createdWorktree(run);
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
      state: stateOf(tree, exists),
      // A made-up size: a small checkout plus what the runs wrote.
      sizeBytes: exists ? 12_288 + 2_048 * changedFiles(tree).size : 0,
      runs: tree.runs.map((r) => r.id),
    };
  }
}

function createdWorktree(run: MockRun): Worktree | null {
  const first = run.events[0]?.payload;
  return first?.type === "run_created" ? (first.worktree ?? null) : null;
}

/** Like the runtime's `entry`: in progress first, then removed, missing, applied. */
function stateOf(tree: Tree, exists: boolean): WorktreeStateView {
  const kinds = tree.runs.map((r) => r.projection.status.kind);
  if (kinds.some((k) => k === "created" || k === "running")) return "running";
  if (kinds.includes("awaiting_approval")) return "waiting_for_approval";
  let applied = false;
  let removed: boolean | null = null;
  for (const run of tree.runs) {
    for (const { payload: p } of run.events) {
      // Applied once every file landed; refusals leave it to apply again.
      if (p.type === "worktree_applied") applied = p.refused.length === 0;
      if (p.type === "worktree_removed") removed = p.discarded;
    }
  }
  if (removed !== null) return removed ? "discarded" : "removed";
  if (!exists) return "missing";
  return applied ? "applied" : "ready_to_apply";
}

/** The files the worktree's runs changed (path → last content hash; null: deleted). */
function changedFiles(tree: Tree): Map<string, string | null> {
  const changed = new Map<string, string | null>();
  for (const run of tree.runs) {
    for (const { payload: p } of run.events) if (p.type === "artifact_recorded") changed.set(p.path, p.after_hash);
  }
  return changed;
}

/** A stable 40-hex-digit stand-in for a commit id or a folder hash. */
function hex(text: string): string {
  let out = "";
  for (let round = 0; out.length < 40; round++) {
    let h = 0x811c9dc5 ^ round;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, "0");
  }
  return out.slice(0, 40);
}
