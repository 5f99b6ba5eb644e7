import { SvelteMap } from "svelte/reactivity";
import type { ApiError, ArtifactItem, ExportedView, FileDiffView, UntrackedItem } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { ArtifactsApi } from "./api";

export type DiffState =
  | { kind: "idle" }
  | { kind: "loading"; path: string }
  | { kind: "loaded"; path: string; diff: FileDiffView }
  | { kind: "failed"; path: string; error: ApiError };

/** A revert or re-apply the backend refused with `conflict`: the user may force it. */
export type PendingAction = "revert" | "reapply";

/**
 * One run's changed files in the Changes panel: the list, the selected
 * file's diff, and the review actions. After every action the list and the
 * selected diff are loaded again, so what is shown is what the backend has.
 * Errors are kept by `code`; a `conflict` on revert / re-apply is remembered
 * per file so the view can offer to force it.
 */
export class ArtifactsStore {
  items = $state.raw<ArtifactItem[]>([]);
  /** What the run's commands changed that cannot be restored, in run order. */
  untracked = $state.raw<UntrackedItem[]>([]);
  loaded = $state(false);
  loadError = $state.raw<ApiError | null>(null);
  selected = $state<string | null>(null);
  diff = $state.raw<DiffState>({ kind: "idle" });
  /** Path being acted on ("*" for the whole run). */
  busy = $state<string | null>(null);
  actionError = $state.raw<ApiError | null>(null);
  exported = $state.raw<ExportedView | null>(null);
  /** +/− line counts of diffs loaded so far, by path. */
  readonly stats = new SvelteMap<string, { added: number; removed: number }>();
  /** Files whose revert / re-apply was refused because they changed since the run wrote them. */
  readonly conflicts = new SvelteMap<string, PendingAction>();
  readonly #api: ArtifactsApi;
  readonly #runId: string;
  #diffToken = 0;
  /** Large files the user asked to render in full; kept across refreshes. */
  readonly #full = new Set<string>();

  constructor(api: ArtifactsApi, runId: string) {
    this.#api = api;
    this.#runId = runId;
  }

  get runId(): string {
    return this.#runId;
  }

  get selectedItem(): ArtifactItem | null {
    return this.items.find((i) => i.path === this.selected) ?? null;
  }

  /** Files "Revert all" would put back. */
  get revertable(): ArtifactItem[] {
    return this.items.filter((i) => i.state !== "reverted");
  }

  async load(): Promise<void> {
    const [outcome, untracked] = await Promise.all([this.#api.list(this.#runId), this.#api.untracked(this.#runId)]);
    if (untracked.ok) this.untracked = untracked.value;
    if (outcome.ok) {
      this.items = outcome.value;
      this.loadError = untracked.ok ? null : untracked.error;
      // Line stats come with the list, before any diff is opened.
      for (const item of outcome.value) {
        if (item.lines) this.stats.set(item.path, { added: item.lines.added, removed: item.lines.removed });
      }
      for (const path of this.conflicts.keys()) {
        if (!outcome.value.some((i) => i.path === path)) this.conflicts.delete(path);
      }
      if (this.selected === null && outcome.value.length > 0) await this.select(outcome.value[0].path);
    } else {
      this.loadError = outcome.error;
    }
    this.loaded = true;
  }

  async select(path: string, full = false): Promise<void> {
    this.selected = path;
    if (full) this.#full.add(path);
    const token = ++this.#diffToken;
    if (!(this.diff.kind === "loaded" && this.diff.path === path)) this.diff = { kind: "loading", path };
    const outcome = await this.#api.diff(this.#runId, path, this.#full.has(path));
    if (token !== this.#diffToken) return;
    if (outcome.ok) {
      this.diff = { kind: "loaded", path, diff: outcome.value };
      if (outcome.value.kind === "text") this.stats.set(path, { added: outcome.value.added, removed: outcome.value.removed });
    } else {
      this.diff = { kind: "failed", path, error: outcome.error };
    }
  }

  /** Asks again for a large file's diff with every line. */
  renderFull(): Promise<void> {
    return this.selected === null ? Promise.resolve() : this.select(this.selected, true);
  }

  keep(path: string): Promise<boolean> {
    return this.#act(path, () => this.#api.keep(this.#runId, path));
  }

  revert(path: string, force = false): Promise<boolean> {
    return this.#act(path, () => this.#api.revert(this.#runId, path, force), "revert");
  }

  /** Reverts hunk `hunk` (numbered from 1) of the selected file's diff; the others stay. */
  revertHunk(path: string, hunk: number): Promise<boolean> {
    return this.#act(path, () => this.#api.revertHunks(this.#runId, path, [hunk], false));
  }

  /** Keeps hunk `hunk` (numbered from 1) of the file's diff: a decision, recorded; the file is not touched. */
  keepHunk(path: string, hunk: number): Promise<boolean> {
    return this.#act(path, () => this.#api.keepHunks(this.#runId, path, [hunk]));
  }

  reapply(path: string, force = false): Promise<boolean> {
    return this.#act(path, () => this.#api.reapply(this.#runId, path, force), "reapply");
  }

  /**
   * Reverts every file not reverted yet. Files that changed since the run
   * wrote them are not forced: they are left as conflicts to decide one by one.
   */
  async revertAll(): Promise<void> {
    if (this.busy !== null) return;
    this.busy = "*";
    this.actionError = null;
    for (const item of this.revertable) {
      const outcome = await this.#api.revert(this.#runId, item.path, false);
      if (outcome.ok) this.conflicts.delete(item.path);
      else if (outcome.error.code === "conflict") this.conflicts.set(item.path, "revert");
      else this.actionError = outcome.error;
    }
    await this.#refresh();
    this.busy = null;
  }

  async exportRun(): Promise<void> {
    if (this.busy !== null) return;
    this.busy = "*";
    this.actionError = null;
    const outcome = await this.#api.exportRun(this.#runId);
    if (outcome.ok) this.exported = outcome.value;
    else this.actionError = outcome.error;
    this.busy = null;
  }

  dismissError(): void {
    this.actionError = null;
  }

  async #act(path: string, request: () => Promise<Outcome<null>>, action?: PendingAction): Promise<boolean> {
    if (this.busy !== null) return false;
    this.busy = path;
    this.actionError = null;
    const outcome = await request();
    if (outcome.ok) {
      this.conflicts.delete(path);
    } else if (outcome.error.code === "conflict" && action) {
      this.conflicts.set(path, action);
    } else {
      this.actionError = outcome.error;
    }
    await this.#refresh();
    this.busy = null;
    return outcome.ok;
  }

  /** Loads the list and the selected diff again (after a change made elsewhere: a rewind, an edit). */
  refresh(): Promise<void> {
    return this.#refresh();
  }

  async #refresh(): Promise<void> {
    await this.load();
    if (this.selected !== null && this.items.some((i) => i.path === this.selected)) await this.select(this.selected);
  }
}
