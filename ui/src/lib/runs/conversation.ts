// The run as a conversation: an incremental fold of its events into what a
// reader follows — the user's message, the model's turns, one card per tool
// call (folding that call's events), quiet notes for bookkeeping and loud
// notices for errors and the outcome. Items are replaced, never mutated, when
// an event changes them, so a view keyed by item sees every change; the fold
// touches only the items an event concerns (a 20k-event run is never refolded).
import type { ApprovalScope, EventEnvelope, EventPayload, ImageRef, ParentRun, Receipt, TokenUsage, ToolResult, Value, WebFailure, WebFetchRecord } from "../../bindings";
import type { CommandFinished, CommandStarted } from "./commands";
import { modelErrorLabel, rowInfo } from "./timeline";
import { todoNote } from "./todo";
import { worktreeStepTone } from "../worktrees/report";
import type { HookRan, HookRunRef } from "../hooks/runs";

export interface UserItem {
  kind: "user";
  key: string;
  seq: number;
  text: string;
  /** The run continues another (a follow-up or a fork). */
  parent: ParentRun | null;
  /** Images that went with the message. */
  images: ImageRef[];
}

export interface ModelItem {
  kind: "model";
  key: string;
  /** Its ModelCallStarted (what streamed text is keyed by). */
  startedSeq: number;
  /** Its ModelCallRequested ("What the model saw"), when recorded. */
  requestedSeq: number | null;
  endSeq: number | null;
  estimatedTokens: number | null;
  /** What the model wrote: narration before tool calls, or the answer. */
  text: string;
  answer: boolean;
  /** The answer of a plan-mode run: the plan, to approve or comment on. */
  plan: boolean;
  usage: TokenUsage | null;
  costMicroUsd: number | null;
  /** Retries of this call, oldest first ("overloaded — retried after 2 s"). */
  retries: string[];
  /** Set when the call failed for good (or its output was invalid). */
  failure: string | null;
}

export interface Decision {
  approved: boolean;
  seq: number;
  by: string;
  scope: ApprovalScope;
  reason: string | null;
  allowedPrefix: string | null;
  network: boolean;
}

export interface ToolCardItem {
  kind: "tool";
  key: string;
  callId: string;
  name: string;
  args: Record<string, Value>;
  requestedSeq: number;
  /** First and last event of this call (the card's "Show events #a–#b"). */
  firstSeq: number;
  lastSeq: number;
  approvalSeq: number | null;
  decision: Decision | null;
  startedAt: string | null;
  endedAt: string | null;
  commandSeq: number | null;
  command: CommandStarted | null;
  commandEnd: CommandFinished | null;
  /** A web_fetch's answer (URLs, status, size) or why it got none. */
  web: WebFetchRecord | null;
  webFailure: WebFailure | null;
  result: ToolResult | null;
  /** The result came as ToolCallFailed (refused, denied or failed). */
  failed: boolean;
  receipt: Receipt | null;
  /** A write made a new file (true) or replaced one (false); null until its intent is recorded. */
  created: boolean | null;
  /** Files this call created, changed or deleted. */
  paths: string[];
  /** Refused as a repeat of identical calls (how many). */
  loopRepeats: number | null;
  /** A write whose outcome could not be proven. */
  unknownEffect: string | null;
  /** PreToolUse and PostToolUse hooks that ran on this call, in order. */
  hooks: HookRunRef[];
}

export interface NoteItem {
  kind: "note";
  key: string;
  seq: number;
  text: string;
  tone: "muted" | "attention";
}

export interface NoticeItem {
  kind: "notice";
  key: string;
  seq: number;
  title: string;
  detail: string | null;
  tone: "success" | "attention" | "danger";
  /** The run's end (succeeded, failed, cancelled, budget) or interruption. */
  outcome: boolean;
}

/** A hook that ran at a moment of the run, not on a call (SessionStart, UserPromptSubmit, Stop, PreCompact). */
export interface HookItem extends HookRunRef {
  kind: "hook";
  key: string;
}

/** The workspace's project hooks did not run: nobody trusted them (as they are now). */
export interface HooksUntrustedItem {
  kind: "hooks_untrusted";
  key: string;
  seq: number;
  file: string;
  commands: string[];
}

export type ConversationItem = UserItem | ModelItem | ToolCardItem | NoteItem | NoticeItem | HookItem | HooksUntrustedItem;

/** Review and rewind events: notes about the files after the run. */
type ReviewPayload = Extract<
  EventPayload,
  {
    type:
      | "artifact_reverted"
      | "artifact_reapplied"
      | "artifact_hunks_reverted"
      | "artifact_kept"
      | "artifact_hunks_kept"
      | "artifact_edited"
      | "review_abandoned"
      | "rewind_started"
      | "artifact_rewound";
  }
>;

export class ConversationFold {
  readonly items: ConversationItem[] = [];
  readonly #cards = new Map<string, number>();
  readonly #models = new Map<number, number>();
  /** Which calls changed each path, and the paths a review or rewind touched. */
  readonly #writers = new Map<string, Set<string>>();
  readonly #reviewed = new Set<string>();
  #openModel: number | null = null;
  #planMode = false;
  #lastRequested: { seq: number; tokens: number | null } | null = null;

  get size(): number {
    return this.items.length;
  }

  at(index: number): ConversationItem | undefined {
    return this.items[index];
  }

  /** Index of the card of a tool call. */
  cardIndex(callId: string): number | undefined {
    return this.#cards.get(callId);
  }

  /** The run's diff of `path` is this call's change alone: no other call changed it and no review touched it. */
  soleChange(path: string, callId: string): boolean {
    return this.changedBy(path, callId) === "alone" && !this.#reviewed.has(path);
  }

  /**
   * Whether call `callId` changed `path` in the run, alone or with other
   * calls (null: it did not). Reviews do not count: they act on the file.
   */
  changedBy(path: string, callId: string): "alone" | "shared" | null {
    const writers = this.#writers.get(path);
    if (!writers?.has(callId)) return null;
    return writers.size === 1 ? "alone" : "shared";
  }

  reset(): void {
    this.#writers.clear();
    this.#reviewed.clear();
    this.items.length = 0;
    this.#cards.clear();
    this.#models.clear();
    this.#openModel = null;
    this.#planMode = false;
    this.#lastRequested = null;
  }

  /** Applies one event (in seq order). */
  add(event: EventEnvelope): void {
    const p = event.payload;
    const seq = event.seq;
    switch (p.type) {
      case "run_created":
        this.#planMode = p.plan_mode === true;
        this.#push({ kind: "user", key: `user:${seq}`, seq, text: p.goal, parent: p.parent ?? null, images: p.images ?? [] });
        return;
      case "run_started":
      case "review_intended":
        // Nothing to read: what follows says it (the first model turn, the review's outcome).
        return;
      case "model_call_requested":
        this.#lastRequested = { seq, tokens: p.estimated_tokens ?? null };
        return;
      case "model_call_started":
        this.#startModel(event.seq, event.cause);
        return;
      case "model_call_retry_scheduled":
      case "model_call_completed":
      case "model_call_failed":
        this.#modelEvent(event, p);
        return;
      case "tool_call_requested":
        this.#request(seq, p.call.call_id, p.call.tool_name, p.call.arguments);
        return;
      case "approval_requested":
      case "approval_granted":
      case "approval_denied":
      case "tool_call_started":
      case "effect_intended":
      case "effect_verified":
      case "tool_call_completed":
      case "tool_call_failed":
      case "artifact_recorded":
      case "effect_unknown":
      case "loop_detected":
      case "command_started":
      case "command_finished":
      case "web_fetched":
      case "web_fetch_failed":
        this.#callEvent(event, p);
        return;
      case "run_succeeded":
      case "run_failed":
      case "run_cancelled":
      case "budget_exhausted":
      case "run_interrupted":
        this.#outcome(seq, p);
        return;
      case "mcp_server_unavailable":
        this.#push({ kind: "notice", key: `notice:${seq}`, seq, title: `MCP server ${p.server} unavailable`, detail: p.reason, tone: "danger", outcome: false });
        return;
      case "external_change_observed":
      case "review_abandoned":
        this.#note(seq, p, "attention");
        return;
      case "todo_updated":
        this.#push({ kind: "note", key: `note:${seq}`, seq, text: todoNote(p.items), tone: "muted" });
        return;
      case "run_resumed":
      case "instructions_loaded":
      case "context_compacted":
      case "mcp_server_started":
        this.#note(seq, p, "muted");
        return;
      case "artifact_reverted":
      case "artifact_reapplied":
      case "artifact_hunks_reverted":
      case "artifact_kept":
      case "artifact_hunks_kept":
      case "artifact_edited":
      case "rewind_started":
      case "artifact_rewound":
        this.#review(seq, p);
        return;
      // The worktree landed in the main checkout (or went): a note after the answer, louder when files were refused.
      case "worktree_applied":
        this.#note(seq, p, p.refused.length > 0 ? "attention" : "muted");
        return;
      case "worktree_removed":
        this.#note(seq, p, "muted");
        return;
      // An undo, or an apply cut off and settled at the next start: a note; intents stay in the Events view.
      case "worktree_step":
        if (p.step.kind === "apply_undone" || p.step.kind === "apply_settled") this.#note(seq, p, worktreeStepTone(p.step));
        return;
      case "hook_ran":
        this.#hook(seq, p);
        return;
      case "tool_mode_switched":
        this.#note(seq, p, "attention");
        return;
      case "hooks_not_trusted":
        this.#push({ kind: "hooks_untrusted", key: `hooks:${seq}`, seq, file: p.file, commands: p.commands });
        return;
      default: {
        // A new event kind fails the type check here until it is placed; at
        // run time a kind from a newer backend is left to the Events view.
        const unplaced: never = p;
        void unplaced;
        return;
      }
    }
  }

  #push(item: ConversationItem): number {
    this.items.push(item);
    return this.items.length - 1;
  }

  #note(seq: number, p: EventPayload, tone: NoteItem["tone"]): void {
    this.#push({ kind: "note", key: `note:${seq}`, seq, text: rowInfo(p).title, tone });
  }

  /** On its call's card when it ran on a call the fold has; its own item otherwise. */
  #hook(seq: number, run: HookRan): void {
    const callId = run.call_id ?? null;
    if (callId !== null && this.#cards.has(callId)) {
      this.#card(callId, seq, (card) => ({ hooks: [...card.hooks, { seq, run }] }));
      return;
    }
    this.#push({ kind: "hook", key: `hook:${seq}`, seq, run });
  }

  #review(seq: number, p: ReviewPayload): void {
    for (const touched of "paths" in p ? p.paths : [p.path]) this.#reviewed.add(touched);
    const path = "path" in p ? ` ${p.path}` : "";
    this.#push({ kind: "note", key: `note:${seq}`, seq, text: `${rowInfo(p).title}${path}`, tone: "muted" });
  }

  #startModel(seq: number, cause: number | null): void {
    const requested = this.#lastRequested && (cause === null || cause === this.#lastRequested.seq) ? this.#lastRequested : null;
    this.#lastRequested = null;
    const item: ModelItem = {
      kind: "model",
      key: `model:${seq}`,
      startedSeq: seq,
      requestedSeq: requested?.seq ?? null,
      endSeq: null,
      estimatedTokens: requested?.tokens ?? null,
      text: "",
      answer: false,
      plan: false,
      usage: null,
      costMicroUsd: null,
      retries: [],
      failure: null,
    };
    this.#models.set(seq, this.#push(item));
    this.#openModel = seq;
  }

  #modelEvent(event: EventEnvelope, p: Extract<EventPayload, { type: "model_call_retry_scheduled" | "model_call_completed" | "model_call_failed" }>): void {
    const started = event.cause !== null && this.#models.has(event.cause) ? event.cause : this.#openModel;
    const index = started === null ? undefined : this.#models.get(started);
    const item = index === undefined ? undefined : this.items[index];
    if (index === undefined || item?.kind !== "model") return;
    if (p.type === "model_call_retry_scheduled") {
      this.items[index] = { ...item, retries: [...item.retries, `${modelErrorLabel(p.class)}: ${p.message}`] };
      return;
    }
    if (started === this.#openModel) this.#openModel = null;
    if (p.type === "model_call_failed") {
      this.items[index] = { ...item, endSeq: event.seq, usage: p.usage, costMicroUsd: p.cost_micro_usd ?? null, failure: `${modelErrorLabel(p.class)}: ${p.message}` };
      return;
    }
    const answer = p.action.type === "final_answer";
    // Streamed narration often ends in a space or a newline: not worth a line of its own.
    const text = (p.text && p.text.trim() !== "" ? p.text : p.action.type === "final_answer" ? p.action.content : "").trimEnd();
    this.items[index] = { ...item, endSeq: event.seq, usage: p.usage, costMicroUsd: p.cost_micro_usd ?? null, text, answer, plan: answer && this.#planMode };
  }

  #request(seq: number, callId: string, name: string, args: Record<string, Value>): void {
    const card: ToolCardItem = {
      kind: "tool",
      key: `tool:${callId}`,
      callId,
      name,
      args,
      requestedSeq: seq,
      firstSeq: seq,
      lastSeq: seq,
      approvalSeq: null,
      decision: null,
      startedAt: null,
      endedAt: null,
      commandSeq: null,
      command: null,
      commandEnd: null,
      web: null,
      webFailure: null,
      result: null,
      failed: false,
      receipt: null,
      created: null,
      paths: [],
      loopRepeats: null,
      unknownEffect: null,
      hooks: [],
    };
    this.#cards.set(callId, this.#push(card));
  }

  /** Replaces the call's card with `change` applied (and the event in its range). */
  #card(callId: string, seq: number, change: (card: ToolCardItem) => Partial<ToolCardItem>): void {
    const index = this.#cards.get(callId);
    const card = index === undefined ? undefined : this.items[index];
    if (index === undefined || card?.kind !== "tool") return;
    this.items[index] = { ...card, ...change(card), lastSeq: Math.max(card.lastSeq, seq) };
  }

  #callEvent(event: EventEnvelope, p: CallPayload): void {
    const seq = event.seq;
    const callId = p.type === "tool_call_completed" || p.type === "tool_call_failed" ? p.result.call_id : p.call_id;
    if (p.type === "artifact_recorded" || p.type === "effect_intended") {
      const writers = this.#writers.get(p.path) ?? new Set<string>();
      this.#writers.set(p.path, writers.add(callId));
    }
    this.#card(callId, seq, (card) => callChange(card, p, event));
  }

  #outcome(seq: number, p: Extract<EventPayload, { type: "run_succeeded" | "run_failed" | "run_cancelled" | "budget_exhausted" | "run_interrupted" }>): void {
    const title = rowInfo(p).title;
    const [tone, detail]: [NoticeItem["tone"], string | null] =
      p.type === "run_succeeded"
        ? ["success", null]
        : p.type === "run_failed"
          ? ["danger", p.reason]
          : p.type === "run_interrupted"
            ? ["danger", p.reason]
            : p.type === "run_cancelled"
              ? ["attention", p.reason]
              : ["attention", null];
    this.#push({ kind: "notice", key: `notice:${seq}`, seq, title, detail, tone, outcome: true });
  }
}

type CallPayload = Extract<
  EventPayload,
  {
    type:
      | "approval_requested"
      | "approval_granted"
      | "approval_denied"
      | "tool_call_started"
      | "effect_intended"
      | "effect_verified"
      | "tool_call_completed"
      | "tool_call_failed"
      | "artifact_recorded"
      | "effect_unknown"
      | "loop_detected"
      | "command_started"
      | "command_finished"
      | "web_fetched"
      | "web_fetch_failed";
  }
>;

/** What one of a call's events changes on its card. */
function callChange(card: ToolCardItem, p: CallPayload, event: EventEnvelope): Partial<ToolCardItem> {
  switch (p.type) {
    case "approval_requested":
      return { approvalSeq: event.seq };
    case "approval_granted":
      return { decision: { approved: true, seq: event.seq, by: p.by, scope: p.scope, reason: null, allowedPrefix: p.allowed_prefix ?? null, network: p.network ?? false } };
    case "approval_denied":
      return { decision: { approved: false, seq: event.seq, by: p.by, scope: p.scope, reason: p.reason, allowedPrefix: null, network: false } };
    case "tool_call_started":
      return { startedAt: event.at };
    case "effect_intended":
      return { created: p.before_hash === null };
    case "effect_verified":
      return {};
    case "tool_call_completed":
      return { result: p.result, receipt: p.receipt, endedAt: event.at, ...(p.receipt ? { created: p.receipt.before_hash === null } : {}) };
    case "tool_call_failed":
      return { result: p.result, failed: true, endedAt: event.at };
    case "artifact_recorded":
      return card.paths.includes(p.path) ? {} : { paths: [...card.paths, p.path] };
    case "effect_unknown":
      return { unknownEffect: p.detail };
    case "loop_detected":
      return { loopRepeats: p.repeats };
    case "command_started":
      return { command: p, commandSeq: event.seq };
    case "command_finished":
      return { commandEnd: p };
    case "web_fetched":
      return { web: p.fetch };
    case "web_fetch_failed":
      return { webFailure: p.failure };
  }
}
