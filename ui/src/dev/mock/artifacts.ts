// Development-only: the files a mock run changed, their diffs and the review
// commands (keep / revert / re-apply / export), all in memory. A file whose
// current content is no longer the run's version is a conflict, like the
// backend's.
import type { ArtifactItem, ArtifactState, ChangeKind, DiffHunkView, DiffLineView, EventPayload, ExportedView, FileDiffView } from "../../bindings";
import { MockError } from "./settings";

/** A changed file a test can seed for a run (`MockSeed.artifacts`). */
export interface MockArtifactSeed {
  path: string;
  /** Content before the run; `null`: the run created the file. */
  before: string | null;
  /** Content the run wrote; `null`: the run deleted the file. */
  after: string | null;
  /** What the file holds now, when someone changed it since the run (a conflict). */
  current?: string | null;
  /** A binary file of these sizes instead of text. */
  binary?: { before: number; after: number };
  /** Generate a > 1 MB text file with many changed lines (shown as stats until rendered in full). */
  large?: boolean;
}

interface MockArtifact {
  path: string;
  change: ChangeKind;
  before: string | null;
  after: string | null;
  current: string | null;
  decided: "pending" | "kept" | "reverted";
  binary: { before: number; after: number } | null;
  /** What the runtime recorded for it (a played-back run): its list entry and diff, not computed here. */
  recorded: { item: ArtifactItem; diff: FileDiffView } | null;
}

/** Files above this give stats only unless the diff is asked for in full. */
export const LARGE_FILE_BYTES = 1_000_000;
const CONTEXT = 3;

export type CommitArtifactEvent = (runId: string, payload: EventPayload) => void;

export class MockArtifacts {
  readonly #byRun = new Map<string, Map<string, MockArtifact>>();
  readonly #commit: CommitArtifactEvent;

  constructor(commit: CommitArtifactEvent) {
    this.#commit = commit;
  }

  /** The run wrote `after` over `before` (null: created / deleted). */
  record(runId: string, path: string, before: string | null, after: string | null): void {
    const files = this.#files(runId);
    const earlier = files.get(path);
    const first = earlier ? earlier.before : before;
    files.set(path, {
      path,
      change: first === null ? "added" : after === null ? "deleted" : "modified",
      before: first,
      after,
      current: after,
      decided: "pending",
      binary: null,
      recorded: null,
    });
  }

  /** A file a played-back run changed: listed and diffed as the runtime recorded it. */
  recordRecorded(runId: string, path: string, before: string | null, after: string | null, item: ArtifactItem, diff: FileDiffView): void {
    this.record(runId, path, before, after);
    this.#file(runId, path).recorded = { item, diff };
  }

  seed(runId: string, seeds: MockArtifactSeed[]): void {
    for (const s of seeds) {
      let { before, after } = s;
      if (s.large) [before, after] = largeFile();
      this.record(runId, s.path, before, after);
      const file = this.#files(runId).get(s.path)!;
      if (s.current !== undefined) file.current = s.current;
      if (s.binary) file.binary = { ...s.binary };
    }
  }

  /** Like an editor saving the file outside the run. */
  touch(runId: string, path: string, content: string | null): void {
    this.#file(runId, path).current = content;
  }

  list(runId: string): ArtifactItem[] {
    return [...this.#files(runId).values()]
      .sort((a, b) => a.path.localeCompare(b.path))
      .map((f) => {
        if (f.recorded) return { ...f.recorded.item, state: stateOf(f) };
        const d = this.diff(runId, f.path, false);
        return {
          path: f.path,
          change: f.change,
          state: stateOf(f),
          beforeBytes: f.binary ? f.binary.before : bytes(f.before),
          afterBytes: f.binary ? f.binary.after : bytes(f.after),
          lines: d.kind === "text" ? { added: d.added, removed: d.removed } : null,
        };
      });
  }

  diff(runId: string, path: string, full: boolean): FileDiffView {
    const f = this.#file(runId, path);
    if (f.recorded) return f.recorded.diff;
    if (f.binary) return { kind: "binary", before_bytes: f.binary.before, after_bytes: f.binary.after };
    const hunks = diffHunks(f.before ?? "", f.after ?? "");
    const added = hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind === "added").length, 0);
    const removed = hunks.reduce((n, h) => n + h.lines.filter((l) => l.kind === "removed").length, 0);
    const large = Math.max(bytes(f.before), bytes(f.after)) > LARGE_FILE_BYTES;
    return large && !full ? { kind: "text", added, removed, stats_only: true, hunks: [] } : { kind: "text", added, removed, stats_only: false, hunks };
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
    const forced = f.current !== f.after;
    if (forced && !force) {
      throw new MockError({ code: "conflict", message: `${path} changed since the run wrote it; reverting would replace those changes` });
    }
    const replaced = f.current;
    // As the runtime: the intent before the file changes, the outcome after.
    this.#commit(runId, { type: "review_intended", path, action: "revert", restored_hash: hashOf(f.before), replaced_hash: hashOf(replaced), forced });
    f.current = f.before;
    f.decided = "reverted";
    this.#commit(runId, { type: "artifact_reverted", path, restored_hash: hashOf(f.before), replaced_hash: hashOf(replaced), forced });
    return null;
  }

  reapply(runId: string, path: string, force: boolean): null {
    const f = this.#file(runId, path);
    if (f.decided !== "reverted") throw new MockError({ code: "conflict", message: `${path} is not reverted` });
    if (f.current !== f.before && !force) {
      throw new MockError({ code: "conflict", message: `${path} changed since it was reverted; re-applying would replace those changes` });
    }
    const replaced = f.current;
    this.#commit(runId, { type: "review_intended", path, action: "reapply", restored_hash: hashOf(f.after), replaced_hash: hashOf(replaced), forced: f.current !== f.before });
    f.current = f.after;
    f.decided = "pending";
    this.#commit(runId, { type: "artifact_reapplied", path, restored_hash: hashOf(f.after), replaced_hash: hashOf(replaced) });
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
  if (f.decided === "reverted") return f.current === f.before ? "reverted" : "conflict";
  return f.current === f.after ? f.decided : "conflict";
}

const bytes = (text: string | null) => (text === null ? 0 : new TextEncoder().encode(text).length);

/** A stand-in content hash (FNV-1a, widened to 64 hex digits). */
function hashOf(text: string | null): string | null {
  if (text === null) return null;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0").repeat(8);
}

function largeFile(): [string, string] {
  const before: string[] = [];
  const after: string[] = [];
  for (let i = 1; i <= 24_000; i++) {
    const line = `${String(i).padStart(6, "0")} INFO request served in ${(i * 7) % 900} ms from cache shard ${i % 16}`;
    before.push(line);
    after.push(i % 8 === 0 ? line.replace("INFO", "WARN").replace("ms", "ms (slow)") : line);
  }
  return [before.join("\n") + "\n", after.join("\n") + "\n"];
}

const splitLines = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));

type Op = { kind: DiffLineView["kind"]; text: string };

/** A line diff: common ends trimmed, LCS in between (positional for very large middles). */
function diffOps(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((text): Op => ({ kind: "context", text }));
  const tail = a.slice(endA).map((text): Op => ({ kind: "context", text }));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const mid: Op[] = [];
  if (midA.length * midB.length > 4_000_000) {
    // Too big for the table: compare line by line, then the rest.
    const n = Math.min(midA.length, midB.length);
    for (let i = 0; i < n; i++) {
      if (midA[i] === midB[i]) mid.push({ kind: "context", text: midA[i] });
      else mid.push({ kind: "removed", text: midA[i] }, { kind: "added", text: midB[i] });
    }
    for (const text of midA.slice(n)) mid.push({ kind: "removed", text });
    for (const text of midB.slice(n)) mid.push({ kind: "added", text });
  } else {
    const n = midA.length;
    const m = midB.length;
    const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i][j] = midA[i] === midB[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        mid.push({ kind: "context", text: midA[i] });
        i++;
        j++;
      } else if (j < m && (i >= n || table[i][j + 1] >= table[i + 1][j])) {
        mid.push({ kind: "added", text: midB[j++] });
      } else {
        mid.push({ kind: "removed", text: midA[i++] });
      }
    }
    // Show removals before additions within a change, like unified diffs do.
    for (let k = 0; k < mid.length; ) {
      if (mid[k].kind === "context") {
        k++;
        continue;
      }
      let e = k;
      while (e < mid.length && mid[e].kind !== "context") e++;
      const block = mid.slice(k, e);
      mid.splice(k, e - k, ...block.filter((o) => o.kind === "removed"), ...block.filter((o) => o.kind === "added"));
      k = e;
    }
  }
  return [...head, ...mid, ...tail];
}

export function diffHunks(before: string, after: string): DiffHunkView[] {
  const ops = diffOps(splitLines(before), splitLines(after));
  const lines: DiffLineView[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    lines.push({
      kind: op.kind,
      oldLine: op.kind === "added" ? null : oldLine++,
      newLine: op.kind === "removed" ? null : newLine++,
      text: op.text,
    });
  }
  const hunks: DiffHunkView[] = [];
  let k = 0;
  while (k < lines.length) {
    while (k < lines.length && lines[k].kind === "context") k++;
    if (k >= lines.length) break;
    const from = Math.max(0, k - CONTEXT);
    let end = k;
    // Extend while the next change is within 2 * CONTEXT lines.
    for (;;) {
      while (end < lines.length && lines[end].kind !== "context") end++;
      let next = end;
      while (next < lines.length && lines[next].kind === "context") next++;
      if (next < lines.length && next - end <= 2 * CONTEXT) end = next;
      else break;
    }
    const to = Math.min(lines.length, end + CONTEXT);
    const slice = lines.slice(from, to);
    const firstOld = slice.find((l) => l.oldLine !== null)?.oldLine ?? 0;
    const firstNew = slice.find((l) => l.newLine !== null)?.newLine ?? 0;
    const oldLen = slice.filter((l) => l.kind !== "added").length;
    const newLen = slice.filter((l) => l.kind !== "removed").length;
    hunks.push({
      oldStart: oldLen === 0 ? Math.max(0, (slice[0].newLine ?? 1) - 1) : firstOld,
      oldLen,
      newStart: newLen === 0 ? Math.max(0, (slice[0].oldLine ?? 1) - 1) : firstNew,
      newLen,
      lines: slice,
    });
    k = to;
  }
  return hunks;
}
