// Test doubles for the runs port (imported by *.test.ts only).
import { vi } from "vitest";
import type { Value, CommandOutputPushed, CompactedView, EventEnvelope, EventPayload, HelperRunView, ModelTextDiscarded, ModelTextPushed, RunAborted, RunDetailView, RunEventPushed, RunImageView, RunProjection, RunSummaryView, StartedRun, ThreadRunView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { RunsApi } from "./api";
import type { ToolCardItem } from "./conversation";

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

/** A real 1×1 PNG, as base64 and as bytes. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
export const PNG = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));

export function envelope(seq: number, payload: EventPayload = { type: "run_started" }, cause: number | null = seq > 1 ? seq - 1 : null, runId = "run-1"): EventEnvelope {
  return { schema_version: 1, run_id: runId, seq, at: new Date(Date.UTC(2025, 2, 14, 9, 30, seq)).toISOString(), cause, payload };
}

/** A tool call's card, as the conversation folds it (call "c1", nothing happened yet unless `more` says). */
export function toolCard(name: string, args: Record<string, Value>, more: Partial<ToolCardItem> = {}): ToolCardItem {
  return {
    kind: "tool", key: "k", callId: "c1", name, args, requestedSeq: 1, firstSeq: 1, lastSeq: 1, approvalSeq: null, decision: null,
    startedAt: null, endedAt: null, commandSeq: null, command: null, commandEnd: null, web: null, webFailure: null, result: null, failed: false, receipt: null,
    created: null, paths: [], loopRepeats: null, unknownEffect: null, hooks: [], ...more,
  };
}

export function projection(overrides: Partial<RunProjection> = {}): RunProjection {
  return {
    run_id: "run-1",
    workspace_id: "ws-1",
    workspace_path: "/work/demo",
    goal: "write the plan",
    profile: "default",
    budgets: { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null },
    approval_mode: "ask_writes",
    provider: "openai",
    model: "gpt-4.1",
    status: { kind: "running" },
    created_at: "2025-03-14T09:30:00Z",
    updated_at: "2025-03-14T09:31:00Z",
    last_seq: 0,
    model_calls: 0,
    tool_calls: 0,
    usage: { input: 0, output: 0 },
    pending_approval: null,
    last_error: null,
    final_answer: null,
    model_call: null,
    open_tool_calls: {},
    unknown_effects: 0,
    external_changes: 0,
    ...overrides,
  };
}

/**
 * A backend holding one run's events. `listEvents` pages them like the
 * store; `push`/`text` play the live events. Calls are recorded by vi.fn.
 */
export function fakeRunsApi(stored: EventEnvelope[] = []) {
  const events = [...stored];
  const runHandlers: ((e: RunEventPushed) => void)[] = [];
  const textHandlers: ((e: ModelTextPushed) => void)[] = [];
  const abortedHandlers: ((e: RunAborted) => void)[] = [];
  const discardedHandlers: ((e: ModelTextDiscarded) => void)[] = [];
  const outputHandlers: ((e: CommandOutputPushed) => void)[] = [];
  let detail: RunDetailView = { projection: projection(), active: true, owner: { kind: "here" } };
  const unlisten = vi.fn();
  const api = {
    start: vi.fn(async () => ok({ runId: "run-1" })),
    startDemo: vi.fn(),
    cancel: vi.fn(async () => ok(null)),
    decide: vi.fn(async (): Promise<Outcome<null>> => ok(null)),
    search: vi.fn(async (): Promise<Outcome<RunSummaryView[]>> => ok([])),
    helpers: vi.fn(async (): Promise<Outcome<HelperRunView[]>> => ok([])),
    get: vi.fn(async (): Promise<Outcome<RunDetailView>> => ok(detail)),
    listEvents: vi.fn(async (_runId: string, afterSeq: number, limit: number) => {
      const page = events.filter((e) => e.seq > afterSeq).sort((a, b) => a.seq - b.seq).slice(0, limit);
      return ok({ events: page, hasMore: page.length >= limit });
    }),
    modelContext: vi.fn(async () => ok({ system: "sys", history: [], tools: [], version: "c1", bytes: 10 })),
    commandOutput: vi.fn(async (): Promise<Outcome<string>> => ok("stored output\n")),
    quit: vi.fn(async () => ok(null)),
    reply: vi.fn(async (): Promise<Outcome<StartedRun>> => ok({ runId: "run-2" })),
    thread: vi.fn(async (): Promise<Outcome<ThreadRunView[]>> => ok([])),
    compact: vi.fn(async (): Promise<Outcome<CompactedView>> => ok({ tokensBefore: 171_000, tokensAfter: 12_500 })),
    eventText: vi.fn(async (): Promise<Outcome<string>> => ok("Summary: the plan is written.")),
    runImage: vi.fn(async (_runId: string, blob: string): Promise<Outcome<RunImageView>> => ok({ name: `${blob}.png`, mediaType: "image/png", dataUrl: "data:image/png;base64,AAAA" })),
    onRunEvent: vi.fn(async (handler: (e: RunEventPushed) => void) => {
      runHandlers.push(handler);
      return unlisten;
    }),
    onModelText: vi.fn(async (handler: (e: ModelTextPushed) => void) => {
      textHandlers.push(handler);
      return unlisten;
    }),
    onRunAborted: vi.fn(async (handler: (e: RunAborted) => void) => {
      abortedHandlers.push(handler);
      return unlisten;
    }),
    onModelTextDiscarded: vi.fn(async (handler: (e: ModelTextDiscarded) => void) => {
      discardedHandlers.push(handler);
      return unlisten;
    }),
    onCommandOutput: vi.fn(async (handler: (e: CommandOutputPushed) => void) => {
      outputHandlers.push(handler);
      return unlisten;
    }),
    onQuitRequested: vi.fn(async () => unlisten),
  } satisfies RunsApi;
  return {
    api,
    events,
    unlisten,
    setDetail: (next: RunDetailView) => (detail = next),
    /** Commit in the backend (stored) without pushing. */
    store: (...more: EventEnvelope[]) => events.push(...more),
    /** Push live (does not store: call `store` too for a real commit). */
    push: (event: EventEnvelope, runId = event.run_id) => runHandlers.forEach((h) => h({ runId, event })),
    text: (modelCall: number, text: string, runId = "run-1") => textHandlers.forEach((h) => h({ runId, modelCall, text })),
    /** A running command's output chunk. */
    output: (callId: string, text: string, runId = "run-1") => outputHandlers.forEach((h) => h({ runId, callId, text })),
    /** The backend reports that a run's loop stopped because its events could not be stored. */
    abort: (message: string, runId = "run-1") => abortedHandlers.forEach((h) => h({ runId, message })),
    /** The backend retries a model call whose stream failed after text arrived. */
    discard: (modelCall: number, runId = "run-1") => discardedHandlers.forEach((h) => h({ runId, modelCall })),
  };
}

/** A run list row (succeeded, unpriced, no parent unless overridden). */
export function runSummary(overrides: Partial<RunSummaryView> = {}): RunSummaryView {
  return {
    runId: "run-1",
    workspaceId: "ws-1",
    goal: "write the plan",
    status: "succeeded",
    statusDetail: null,
    provider: "openai",
    model: "gpt-4.1",
    createdAt: "2025-03-14T09:30:00Z",
    updatedAt: "2025-03-14T09:31:00Z",
    modelCalls: 2,
    toolCalls: 1,
    inputTokens: 1200,
    outputTokens: 300,
    costMicroUsd: null,
    parentRunId: null,
    ...overrides,
  };
}

export const settle = async (rounds = 3) => {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};
