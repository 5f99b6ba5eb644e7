// Development-only: the demo run played back from what the Rust runtime
// records (fixtures/scenarios/demo.json, written by
// src-tauri/crates/runtime/tests/ui_scenarios.rs). Nothing here decides
// what the run does: the events, the model's text, the artifact list and
// the diff are the recorded ones; only the user's decision picks the
// approved or the denied recording, and its scope and reason go in.
import type { ArtifactItem, DecisionInput, DiffHunkView, EventEnvelope, EventPayload, FileDiffView } from "../../bindings";
import recorded from "./fixtures/scenarios/demo.json";
import { emptyProjection } from "./projection";
import { sleep, type MockRun, type MockRunEngine } from "./runEngine";

/** One recorded run: its events (as `list_events` returns them), its artifacts and their diffs (as the application API returns them). */
export interface RecordedRun {
  events: EventEnvelope[];
  artifacts: RecordedArtifact[];
  diffs: Record<string, RecordedDiff>;
}

/** The runtime's `ArtifactView`, field by field (the shell maps it to `ArtifactItem`). */
export interface RecordedArtifact {
  path: string;
  change: ArtifactItem["change"];
  review: "pending" | "kept" | "reverted";
  disk: "run_version" | "before_version" | "changed_since";
  before_bytes: number;
  after_bytes: number;
  lines: { added: number; removed: number } | null;
}

/** The runtime's `FileDiff` as serde writes it (the shell renames the hunks' fields). */
export type RecordedDiff =
  | { kind: "binary"; before_bytes: number; after_bytes: number }
  | {
      kind: "text";
      added: number;
      removed: number;
      stats_only: boolean;
      hunks: { old_start: number; old_len: number; new_start: number; new_len: number; lines: { kind: "context" | "added" | "removed"; old_line: number | null; new_line: number | null; text: string }[] }[];
    };

export interface DemoRecording {
  placeholders: { workspace_path: string; workspace_id: string; run_id: string };
  approved: RecordedRun;
  denied: RecordedRun;
}

export const DEMO_RECORDING = recorded as unknown as DemoRecording;

/** The recorded run with this run's workspace path, workspace id and run id in place of the placeholders. */
export function localise(run: RecordedRun, ids: { workspacePath: string; workspaceId: string; runId: string }, rec = DEMO_RECORDING): RecordedRun {
  const { workspace_path, workspace_id, run_id } = rec.placeholders;
  const text = JSON.stringify(run).replaceAll(workspace_path, ids.workspacePath).replaceAll(workspace_id, ids.workspaceId).replaceAll(run_id, ids.runId);
  return JSON.parse(text) as RecordedRun;
}

/** Like the shell's `FileDiffView::from`. */
export function diffView(d: RecordedDiff): FileDiffView {
  if (d.kind === "binary") return d;
  const hunks: DiffHunkView[] = d.hunks.map((h) => ({
    oldStart: h.old_start,
    oldLen: h.old_len,
    newStart: h.new_start,
    newLen: h.new_len,
    lines: h.lines.map((l) => ({ kind: l.kind, oldLine: l.old_line, newLine: l.new_line, text: l.text })),
  }));
  return { kind: "text", added: d.added, removed: d.removed, stats_only: d.stats_only, hunks };
}

/** Like the shell's `ArtifactItem::from`. */
export function artifactItem(a: RecordedArtifact): ArtifactItem {
  const state =
    a.review === "reverted" && a.disk === "before_version"
      ? "reverted"
      : a.disk === "changed_since" || a.review === "reverted"
        ? "conflict"
        : a.review;
  return { path: a.path, change: a.change, state, beforeBytes: a.before_bytes, afterBytes: a.after_bytes, lines: a.lines };
}

export interface PlaybackOptions {
  stepMs: number;
  streamMs: number;
  /** The run recorded `artifact_recorded` for `path`: `content` is what the call wrote (null: deleted). */
  onArtifact(run: MockRun, path: string, content: string | null, item: ArtifactItem, diff: FileDiffView): void;
}

/** Gives `run` the recorded `run_created` (with its own ids and workspace). */
export function adoptCreated(run: MockRun, approved: RecordedRun): void {
  const created = approved.events[0];
  if (created?.payload.type !== "run_created") throw new Error("the recorded demo does not start with run_created");
  run.events[0] = { ...run.events[0], payload: created.payload };
  run.projection = emptyProjection(run.events[0]);
}

/**
 * Commits the recorded events in order, a step apart, streaming each
 * model call's text before its `model_call_completed`; at the recorded
 * approval it waits for the user and goes on with the approved or the
 * denied recording. Seqs and causes follow the run (an interruption and
 * resume in between shifts them).
 */
export async function playBack(engine: MockRunEngine, run: MockRun, approved: RecordedRun, denied: RecordedRun, options: PlaybackOptions): Promise<void> {
  const seqs = new Map<number, number>([[1, 1]]);
  let recording = approved;
  const writes = new Map<string, string | null>();
  const commit = async (e: EventEnvelope, payload: EventPayload = e.payload): Promise<boolean> => {
    await sleep(options.stepMs);
    if (run.cancelled) {
      engine.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
      return false;
    }
    const cause = e.cause === null ? null : (seqs.get(e.cause) ?? e.cause);
    if (payload.type === "model_call_completed") {
      for (const text of payload.text?.match(/\S+\s*/g) ?? []) {
        await sleep(options.streamMs);
        engine.options.push({ kind: "model_text", runId: run.id, modelCall: cause ?? 0, text });
      }
    }
    if (payload.type === "tool_call_requested" && payload.call.tool_name === "write_file") {
      const content = (payload.call.arguments as { content?: unknown }).content;
      writes.set(payload.call.call_id, typeof content === "string" ? content : null);
    }
    seqs.set(e.seq, engine.commit(run, payload, cause).seq);
    if (payload.type === "artifact_recorded") {
      const artifact = recording.artifacts.find((a) => a.path === payload.path);
      const diff = recording.diffs[payload.path];
      if (artifact && diff) options.onArtifact(run, payload.path, writes.get(payload.call_id) ?? null, artifactItem(artifact), diffView(diff));
    }
    return true;
  };
  const asked = approved.events.findIndex((e) => e.payload.type === "approval_requested");
  for (const e of approved.events.slice(1, asked + 1)) if (!(await commit(e))) return;
  const decision = await new Promise<DecisionInput | "cancel">((resolve) => (run.waiting = resolve));
  run.waiting = null;
  if (decision === "cancel") {
    engine.commit(run, { type: "run_cancelled", reason: "cancelled while waiting for approval" });
    return;
  }
  recording = decision.approve ? approved : denied;
  for (const e of recording.events.slice(asked + 1)) if (!(await commit(e, decided(e.payload, decision)))) return;
}

/** The recorded decision's events with the user's scope and reason. */
function decided(p: EventPayload, d: DecisionInput): EventPayload {
  const why = d.reason ? `: ${d.reason}` : "";
  switch (p.type) {
    case "approval_granted":
      return { ...p, scope: d.scope };
    case "approval_denied":
      return { ...p, scope: d.scope, reason: d.reason };
    case "tool_call_failed":
      return p.result.content === "the user denied this call" ? { ...p, result: { ...p.result, content: `the user denied this call${why}` } } : p;
    default:
      return p;
  }
}
