// Development-only: context size and compaction in the mock backend, like
// the runtime's: each request's estimated tokens against the model's
// window, compaction mid-run past the profile's share (keeping the newest
// turn), compaction of a finished run by hand, and the texts events
// reference (`event_text`).
import type { CompactedView, EventEnvelope, EventPayload } from "../../bindings";
import { canReply } from "../../lib/runs/threads";
import { MockError } from "./errors";
import { costOf } from "./projection";
import type { MockRun, MockRunEngine } from "./runEngine";
import { runOf } from "./runs";
import { ancestorEvents } from "./threads";

type Compacted = Extract<EventPayload, { type: "context_compacted" }>;

/** Like the runtime's first estimate of a request: 3 bytes per token. */
const BYTES_PER_TOKEN = 3;
/** The system prompt, tools and goal, and what each event adds to a request (the mock's long-standing sizes). */
const BASE_BYTES = 2_048;
const EVENT_BYTES = 310;
/** The scripted demo model's window (the runtime's scripted provider). */
const DEMO_WINDOW = 200_000;

/** Like the runtime's `default_context_window`: the model family's window, 32,768 for a model it does not know. */
export function defaultContextWindow(provider: string, model: string): number {
  if (provider === "demo") return DEMO_WINDOW;
  const m = model.toLowerCase();
  const known: [string, number][] = [
    ["gpt-4.1", 1_047_576],
    ["gpt-5", 400_000],
    ["gpt-4o", 128_000],
    ["gpt-4-turbo", 128_000],
    ["o1", 200_000],
    ["o3", 200_000],
    ["o4", 200_000],
    ["claude", 200_000],
    ["gemini", 1_048_576],
  ];
  return known.find(([prefix]) => m.startsWith(prefix))?.[1] ?? 32_768;
}

/**
 * 64 hex digits derived from the text: the mock needs stable, distinct
 * blob names shaped like the store's, not SHA-256 itself (FNV-1a, eight
 * differently seeded rounds).
 */
export function fakeHash(text: string): string {
  let out = "";
  for (let round = 0; round < 8; round++) {
    let h = (0x811c9dc5 ^ Math.imul(round + 1, 0x9e3779b1)) >>> 0;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, "0");
  }
  return out;
}

/** The run's events after those of the runs it continues (each cut where its follower branched). */
function threadEvents(engine: MockRunEngine, run: MockRun): EventEnvelope[] {
  return [...ancestorEvents(engine, run.projection.parent).flat(), ...run.events];
}

function lastCompaction(events: readonly EventEnvelope[]): { at: number; event: EventEnvelope; payload: Compacted } | null {
  for (let at = events.length - 1; at >= 0; at--) {
    const payload = events[at].payload;
    if (payload.type === "context_compacted") return { at, event: events[at], payload };
  }
  return null;
}

/** What a request is built from: the latest summary (if any), then the events it did not replace. */
function visible(events: readonly EventEnvelope[]): { summary: Compacted | null; kept: EventEnvelope[] } {
  const last = lastCompaction(events);
  if (!last) return { summary: null, kept: [...events] };
  const { at, event, payload } = last;
  // The newest turn before the compaction is kept; everything of later runs follows.
  const kept = events.filter((e, i) => i !== at && (i > at || (e.run_id === event.run_id && e.seq > payload.replaced_through_seq)));
  return { summary: payload, kept };
}

export interface ContextSize {
  bytes: number;
  tokens: number;
}

/** The size of a request built from `events` (a thread, oldest first): long results count their weight. */
function sizeOf(engine: MockRunEngine, events: readonly EventEnvelope[]): ContextSize {
  const { summary, kept } = visible(events);
  const summaryBytes = summary ? (engine.blobs.get(summary.summary)?.length ?? 0) : 0;
  const bytes = BASE_BYTES + kept.length * EVENT_BYTES + summaryBytes;
  let weight = 0;
  for (const e of kept) {
    const p = e.payload;
    if (p.type === "tool_call_completed" || p.type === "tool_call_failed") weight += engine.runs.get(e.run_id)?.weights.get(p.result.call_id) ?? 0;
  }
  return { bytes, tokens: Math.ceil(bytes / BYTES_PER_TOKEN) + weight };
}

/** The run's next request: its thread since the latest compaction, in bytes and estimated tokens. */
export function contextSize(engine: MockRunEngine, run: MockRun): ContextSize {
  return sizeOf(engine, threadEvents(engine, run));
}

/** What a call did, in one line of a summary. */
function stepLine(tool: string, args: Record<string, unknown>): string {
  const path = typeof args.path === "string" ? args.path : null;
  switch (tool) {
    case "read_file":
      return `Read ${path}`;
    case "list_dir":
      return path === "." ? "Listed the workspace root" : `Listed ${path}`;
    case "write_file":
      return `Wrote ${path}`;
    case "run_command":
      return `Ran \`${String(args.command)}\``;
    default:
      return `Called ${tool}`;
  }
}

/**
 * The summary the mock's "model" writes: the goal, the steps since the
 * last summary (after that one's), and where the run stands.
 */
export function summaryText(goal: string, events: readonly EventEnvelope[], earlier: string | null): string {
  const steps = earlier === null ? [] : earlier.split("\n").filter((line) => line.startsWith("- "));
  const calls = new Map<string, string>();
  let outcome = "Still working: the next step follows this summary.";
  for (const e of events) {
    const p = e.payload;
    if (p.type === "tool_call_requested") calls.set(p.call.call_id, stepLine(p.call.tool_name, p.call.arguments));
    else if (p.type === "tool_call_completed") steps.push(`- ${calls.get(p.result.call_id) ?? p.result.call_id}.`);
    else if (p.type === "tool_call_failed") steps.push(`- ${calls.get(p.result.call_id) ?? p.result.call_id}: failed (${p.result.content.split("\n", 1)[0]}).`);
    else if (p.type === "run_succeeded") outcome = `Answered: ${p.answer}`;
    else if (p.type === "run_failed") outcome = `The run failed: ${p.reason}`;
    else if (p.type === "run_cancelled") outcome = "The user cancelled the run.";
    else if (p.type === "budget_exhausted") outcome = `The run stopped: its ${p.which.replace(/_/g, " ")} budget ran out.`;
    else if (p.type === "run_interrupted") outcome = "The run was interrupted.";
  }
  return [`Goal: ${goal}`, "", "Done so far:", ...(steps.length > 0 ? steps : ["- Nothing yet."]), "", outcome].join("\n");
}

interface Compaction {
  payload: Compacted;
  before: number;
}

/** A compaction of `run` replacing its events through `through`, with the summary stored as a blob. */
function compaction(engine: MockRunEngine, run: MockRun, through: number): Compaction {
  const thread = threadEvents(engine, run);
  const { summary, kept } = visible(thread);
  const earlier = summary ? (engine.blobs.get(summary.summary) ?? null) : null;
  const text = summaryText(run.projection.goal, kept.filter((e) => e.run_id !== run.id || e.seq <= through), earlier);
  const blob = fakeHash(text);
  engine.blobs.set(blob, text);
  const before = sizeOf(engine, thread).tokens;
  // The summarising call reads what fits in the window and writes the summary.
  const usage = { input: Math.min(before, Math.floor(run.window * 0.75)), output: Math.ceil(text.length / 4) };
  const payload: Compacted = {
    type: "context_compacted",
    summary: blob,
    replaced_through_seq: through,
    tokens_before: before,
    tokens_after: 0,
    usage,
    cost_micro_usd: run.projection.price ? costOf(run.projection.price, usage) : null,
  };
  const provisional: EventEnvelope = { ...run.events[run.events.length - 1], seq: run.events.length + 1, cause: null, payload };
  payload.tokens_after = sizeOf(engine, [...thread, provisional]).tokens;
  return { payload, before };
}

/**
 * Mid-run, before a request past the profile's share: summarise everything
 * before the newest turn. Null when that would replace nothing new (the
 * runtime then fails the run: the context cannot get smaller).
 */
export function compactMidRun(engine: MockRunEngine, run: MockRun): Compacted | null {
  let newestTurn: number | null = null;
  for (let i = run.events.length - 1; i >= 0 && newestTurn === null; i--) {
    if (run.events[i].payload.type === "model_call_requested") newestTurn = run.events[i].seq;
  }
  const through = (newestTurn ?? 1) - 1;
  const previous = lastCompaction(run.events);
  if (through <= 1 || (previous !== null && previous.payload.replaced_through_seq >= through)) return null;
  return compaction(engine, run, through).payload;
}

/**
 * Like `compact_run`: a finished (or interrupted) run is summarised through
 * its last event; a run in progress is `conflict`, a provider that is gone
 * `not_found`, one that does not answer `unavailable`.
 */
export function compactByHand(
  engine: MockRunEngine,
  runId: string,
  provider: { known(name: string): boolean; answers(name: string): boolean },
): CompactedView {
  const run = runOf(engine, runId);
  if (!canReply(run.projection.status)) {
    throw new MockError({ code: "conflict", message: `run ${runId} is still in progress; it compacts itself when its context nears the window` });
  }
  const name = run.projection.provider;
  if (!provider.known(name)) throw new MockError({ code: "not_found", message: `provider not found: ${name}` });
  if (!provider.answers(name)) throw new MockError({ code: "unavailable", message: "the run could not be compacted: connection refused (transport error, retryable)" });
  const { payload, before } = compaction(engine, run, run.projection.last_seq);
  engine.commit(run, payload, null);
  return { tokensBefore: before, tokensAfter: payload.tokens_after };
}

/** Like `event_text`: only a blob one of the run's events references as a summary or instructions. */
export function eventText(engine: MockRunEngine, runId: string, blob: string): string {
  const run = runOf(engine, runId);
  const referenced = run.events.some((e) => (e.payload.type === "context_compacted" && e.payload.summary === blob) || (e.payload.type === "instructions_loaded" && e.payload.blob === blob));
  const text = referenced ? engine.blobs.get(blob) : undefined;
  if (text === undefined) throw new MockError({ code: "not_found", message: `text not found: ${blob}` });
  return text;
}

/**
 * The history a request was built from: the summary of the thread's
 * latest compaction before it (after the run's own goal, when the run
 * compacted itself) and the events it did not replace.
 */
export function visibleHistory(engine: MockRunEngine, run: MockRun, before: number): { summary: string | null; ownGoal: boolean; events: EventEnvelope[] } {
  const thread = [...ancestorEvents(engine, run.projection.parent).flat(), ...run.events.slice(0, before - 1)];
  const last = lastCompaction(thread);
  const { kept } = visible(thread);
  if (!last) return { summary: null, ownGoal: false, events: kept };
  return { summary: engine.blobs.get(last.payload.summary) ?? "", ownGoal: last.event.run_id === run.id, events: kept };
}

/** Blob names the mock's writes and commands stand on (shaped like the store's). */
export const FAKE_BEFORE_HASH = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
export const FAKE_AFTER_HASH = "fcde2b2edba56bf408601fb721fe9b5c338d10ee429ea04fae5511b68fbf8fb9";
export const FAKE_OUTPUT_HASH = "baa5a0964d3320fbc0c6a922140453c8513ea24ab8fd0577034804a967248096";
