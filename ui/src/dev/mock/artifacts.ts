// Development-only: the files recorded runs changed, listed and diffed as
// the runtime recorded them (scenario.ts), and the review the user does on
// them afterwards: keep, revert and re-apply with the backend's conflict
// rules (a file changed since needs "anyway"), each recorded as events.
import type { ArtifactItem, ArtifactState, DiffHunkView, EventEnvelope, EventPayload, ExportedView, FileDiffView, UntrackedItem } from "../../bindings";
import { MockError } from "./settings";

interface MockArtifact {
  /** Its entry in the recorded list (state aside). */
  item: ArtifactItem;
  diff: FileDiffView;
  /** The full diff, where the recorded default is stats only. */
  full: FileDiffView | null;
  beforeHash: string | null;
  afterHash: string | null;
  decided: "pending" | "kept" | "reverted" | "partial";
  /** Hunk reverts recorded for this file: what each appends and leaves. */
  hunkReverts: HunkRevert[];
  /** Someone changed the file since BearAgent last wrote it (a conflict). */
  changedSince: boolean;
}

/** A recorded revert of some hunks of a file: its events and the file's entry and diff after. */
export interface HunkRevert {
  hunks: number[];
  events: EventPayload[];
  item: ArtifactItem;
  diff: FileDiffView;
}

/** What a recorded run recorded of one changed file. */
export interface RecordedArtifact {
  item: ArtifactItem;
  diff: FileDiffView;
  full: FileDiffView | null;
  beforeHash: string | null;
  afterHash: string | null;
}

export type CommitArtifactEvent = (runId: string, payload: EventPayload) => void;

/** Stands for content the mock does not know (what an editor saved over a file). */
const UNKNOWN_HASH = "0".repeat(64);

export class MockArtifacts {
  readonly #byRun = new Map<string, Map<string, MockArtifact>>();
  readonly #commit: CommitArtifactEvent;

  constructor(commit: CommitArtifactEvent) {
    this.#commit = commit;
  }

  /** A file the run changed, as the runtime listed it. */
  record(runId: string, path: string, a: RecordedArtifact, hunkReverts: HunkRevert[] = []): void {
    const state = a.item.state;
    this.#files(runId).set(path, {
      ...a,
      decided: state === "conflict" ? "pending" : state,
      changedSince: state === "conflict",
      hunkReverts,
    });
  }

  /** The file's entry as the list shows it (null: the run did not change it). */
  entry(runId: string, path: string): ArtifactItem | null {
    const f = this.#files(runId).get(path);
    return f ? { ...f.item, state: stateOf(f) } : null;
  }

  /** The file as a recorded review step left it (a rewind, a redo, a kept edit). */
  replace(runId: string, path: string, item: ArtifactItem, diff: FileDiffView, full: FileDiffView | null): void {
    const f = this.#file(runId, path);
    f.item = item;
    f.diff = diff;
    f.full = full;
    f.changedSince = item.state === "conflict";
    if (item.state !== "conflict") f.decided = item.state;
  }

  /** Like an editor saving the file outside the run. */
  touch(runId: string, path: string): void {
    this.#file(runId, path).changedSince = true;
  }

  list(runId: string): ArtifactItem[] {
    return [...this.#files(runId).values()].sort((a, b) => a.item.path.localeCompare(b.item.path)).map((f) => ({ ...f.item, state: stateOf(f) }));
  }

  diff(runId: string, path: string, full: boolean): FileDiffView {
    const f = this.#file(runId, path);
    return full && f.full ? f.full : f.diff;
  }

  keep(runId: string, path: string): null {
    const f = this.#file(runId, path);
    f.decided = "kept";
    this.#commit(runId, { type: "artifact_kept", path });
    return null;
  }

  revert(runId: string, path: string, force: boolean): null {
    const f = this.#file(runId, path);
    if (f.decided === "reverted") throw new MockError({ code: "conflict", message: `${path} is already reverted` });
    if (f.changedSince && !force) {
      throw new MockError({ code: "conflict", message: `${path} changed since the run wrote it; reverting would replace those changes` });
    }
    const replaced = f.changedSince ? UNKNOWN_HASH : f.afterHash;
    const hashes = { restored_hash: f.beforeHash, replaced_hash: replaced, forced: f.changedSince };
    this.#commit(runId, { type: "review_intended", path, action: "revert", ...hashes });
    this.#commit(runId, { type: "artifact_reverted", path, ...hashes });
    f.decided = "reverted";
    f.changedSince = false;
    return null;
  }

  /** Like `revert_hunks`: only a revert the runtime recorded for these hunks (it computed the file and diff left). */
  revertHunks(runId: string, path: string, hunks: number[], force: boolean): null {
    const f = this.#file(runId, path);
    if (f.decided === "reverted") throw new MockError({ code: "conflict", message: `${path} is already reverted` });
    if (f.changedSince && !force) throw new MockError({ code: "conflict", message: `${path} changed since the run wrote it; reverting would replace those changes` });
    const recorded = f.hunkReverts.find((r) => r.hunks.join() === hunks.join());
    if (!recorded) throw new MockError({ code: "invalid_input", message: `the UI mock has no recorded revert of hunks ${hunks.join(", ")} of ${path}` });
    for (const payload of recorded.events) this.#commit(runId, payload);
    f.item = recorded.item;
    f.diff = recorded.diff;
    f.decided = "partial";
    return null;
  }

  /** Like `keep_hunks`: the hunks' text from the diff shown, the file untouched. */
  keepHunks(runId: string, path: string, hunks: number[]): null {
    const f = this.#file(runId, path);
    if (f.decided === "reverted") throw new MockError({ code: "conflict", message: `${path} is reverted: re-apply it first` });
    const shown = f.diff.kind === "text" ? f.diff.hunks : [];
    const bad = hunks.find((n) => n < 1 || n > shown.length);
    if (bad !== undefined || hunks.length === 0) throw new MockError({ code: "invalid_input", message: `${path}: hunk ${bad ?? "none"} does not exist` });
    const diff = hunks.map((n) => unified(shown[n - 1])).join("");
    this.#commit(runId, { type: "artifact_hunks_kept", path, hunks, diff });
    return null;
  }

  reapply(runId: string, path: string, force: boolean): null {
    const f = this.#file(runId, path);
    if (f.decided !== "reverted" && f.decided !== "partial") throw new MockError({ code: "conflict", message: `${path} is not reverted` });
    if (f.changedSince && !force) {
      throw new MockError({ code: "conflict", message: `${path} changed since it was reverted; re-applying would replace those changes` });
    }
    const replaced = f.changedSince ? UNKNOWN_HASH : f.beforeHash;
    this.#commit(runId, { type: "review_intended", path, action: "reapply", restored_hash: f.afterHash, replaced_hash: replaced, forced: f.changedSince });
    this.#commit(runId, { type: "artifact_reapplied", path, restored_hash: f.afterHash, replaced_hash: replaced });
    f.decided = "pending";
    f.changedSince = false;
    return null;
  }

  exportRun(runId: string): ExportedView {
    const base = `/home/dev/.local/share/bearagent/exports/${runId}`;
    return { jsonPath: `${base}.json`, markdownPath: `${base}.md` };
  }

  #files(runId: string): Map<string, MockArtifact> {
    let files = this.#byRun.get(runId);
    if (!files) this.#byRun.set(runId, (files = new Map()));
    return files;
  }

  #file(runId: string, path: string): MockArtifact {
    const f = this.#files(runId).get(path);
    if (!f) throw new MockError({ code: "not_found", message: `no change to ${path} in run ${runId}` });
    return f;
  }
}

function stateOf(f: MockArtifact): ArtifactState {
  if (f.changedSince) return "conflict";
  return f.decided;
}

/** `list_untracked` as the runtime derives it: each finished command's `not_tracked`, with its command line. */
export function untrackedOf(events: EventEnvelope[]): UntrackedItem[] {
  const commands = new Map<string, string>();
  const out: UntrackedItem[] = [];
  for (const e of events) {
    const p = e.payload;
    if (p.type === "command_started") commands.set(p.call_id, p.command);
    if (p.type === "command_finished") {
      for (const n of p.not_tracked ?? []) out.push({ seq: e.seq, command: commands.get(p.call_id) ?? "", path: n.path, why: n.why, change: n.change, size: n.size ?? null });
    }
  }
  return out;
}

/** A hunk as the runtime's `DiffHunk::unified` writes it. */
function unified(h: DiffHunkView): string {
  const sign = { context: " ", added: "+", removed: "-" } as const;
  return `@@ -${h.oldStart},${h.oldLen} +${h.newStart},${h.newLen} @@\n${h.lines.map((l) => `${sign[l.kind]}${l.text}\n`).join("")}`;
}
