import { SvelteMap, SvelteSet } from "svelte/reactivity";
import type {
  ApiError,
  CommandOutputPushed,
  EventEnvelope,
  ModelTextDiscarded,
  ModelTextPushed,
  RunAborted,
  RunDetailView,
  RememberScopeView,
  RunEventPushed,
} from "../../bindings";
import type { RunsApi, Unlisten } from "./api";
import { decisionFor, type ApprovalChoice, type DecisionState } from "./approvals";
import { CommandOutputs } from "./commandOutput.svelte";
import type { CommandFinished, CommandStarted } from "./commands";
import { contextMeter, type ContextMeterView } from "./compaction";
import { ConversationFold, type ConversationItem } from "./conversation";
import type { RunPhase } from "./toolCards";
import { EventTexts } from "./compaction.svelte";
import { EventLog } from "./eventLog";
import { otherOwnerOf, type OtherOwner } from "./ownership";
import { RunImages } from "./runImages.svelte";
import type { ActiveRewind } from "./rewind";
import type { LoadedInstructions } from "./timeline";
import { TimelineIndex } from "./timelineIndex";

import { nextTask, EVENT_PAGE_SIZE, type ContextPanel, type RunViewOptions } from "./runViewOptions";

export { EVENT_PAGE_SIZE, type ContextPanel, type RunViewOptions };

/**
 * State of one open run: its events (from paging and live pushes, each seq
 * exactly once, in order), its projection, the model text streaming now,
 * and the user's pending actions. It only sends commands; what it shows
 * comes from committed events and the backend's projection.
 */
export class RunViewStore {
  readonly runId: string;
  detail = $state.raw<RunDetailView | null>(null);
  /** Every event up to the end of the log has been paged in at least once. */
  loaded = $state(false);
  error = $state.raw<ApiError | null>(null);
  actionError = $state.raw<ApiError | null>(null);
  /** Why this process stopped executing the run (its events could not be stored). */
  aborted = $state.raw<string | null>(null);
  cancelling = $state(false);
  context = $state.raw<ContextPanel | null>(null);
  /** Bumped whenever events join the log; readers of the log depend on it. */
  version = $state(0);

  readonly streaming = new SvelteMap<number, string>();
  readonly decisions = new SvelteMap<string, DecisionState>();
  readonly expanded = new SvelteSet<number>();
  /** Live and stored output of the run's commands. */
  readonly outputs: CommandOutputs;
  /** Texts its events reference (compaction summaries), read on demand. */
  readonly texts: EventTexts;
  /** Images its events reference (the goal's, tools'), read as thumbnails show. */
  readonly images: RunImages;

  readonly #api: RunsApi;
  readonly #pageSize: number;
  readonly #refreshDelayMs: number;
  readonly #log = new EventLog();
  readonly #index = new TimelineIndex();
  readonly #conversation = new ConversationFold();
  #unlisten: Unlisten[] = [];
  readonly #focused = new Set<string>();
  #closed = false;
  #generation = 0;
  #needFull = false;
  #syncing: Promise<void> | null = null;
  #refreshing: Promise<void> | null = null;
  #refreshAgain = false;
  #refreshTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(api: RunsApi, runId: string, options: RunViewOptions = {}) {
    this.#api = api;
    this.runId = runId;
    this.#pageSize = options.pageSize ?? EVENT_PAGE_SIZE;
    this.#refreshDelayMs = options.refreshDelayMs ?? 60;
    this.outputs = new CommandOutputs((callId) => this.#api.commandOutput(this.runId, callId), options.commandOutput);
    this.texts = new EventTexts((blob) => this.#api.eventText(this.runId, blob));
    this.images = new RunImages((blob) => this.#api.runImage(this.runId, blob));
  }

  // ---- reading -----------------------------------------------------------

  get count(): number {
    void this.version;
    return this.#log.size;
  }

  get lastSeq(): number {
    void this.version;
    return this.#log.lastSeq;
  }

  eventAt(index: number): EventEnvelope | undefined {
    return this.#log.at(index);
  }

  eventBySeq(seq: number): EventEnvelope | undefined {
    void this.version;
    return this.#log.bySeq(seq);
  }

  /** The ToolCallRequested event of a call (its tool name and arguments). */
  toolCallOf(callId: string): EventEnvelope | undefined {
    void this.version;
    const seq = this.#index.calls.get(callId)?.requested;
    return seq === undefined ? undefined : this.#log.bySeq(seq);
  }

  /** The grant or denial answering an approval request, if committed. */
  decisionOf(callId: string): EventEnvelope | undefined {
    void this.version;
    const seq = this.#index.calls.get(callId)?.decision;
    return seq === undefined ? undefined : this.#log.bySeq(seq);
  }

  /** A run_command call's CommandStarted, once committed. */
  commandStartOf(callId: string): CommandStarted | null {
    void this.version;
    const seq = this.#index.calls.get(callId)?.command;
    const p = seq === undefined ? undefined : this.#log.bySeq(seq)?.payload;
    return p?.type === "command_started" ? p : null;
  }

  /** A run_command call's CommandFinished, once committed. */
  commandEndOf(callId: string): { seq: number; finished: CommandFinished } | null {
    void this.version;
    const seq = this.#index.calls.get(callId)?.commandEnd;
    const p = seq === undefined ? undefined : this.#log.bySeq(seq)?.payload;
    return seq !== undefined && p?.type === "command_finished" ? { seq, finished: p } : null;
  }

  /** The call has started and has no result yet, in a run still going (not ended or interrupted). */
  isToolCallRunning(callId: string): boolean {
    void this.version;
    const seqs = this.#index.calls.get(callId);
    return seqs?.started !== undefined && seqs.end === undefined && this.#index.endedAt === null && this.#index.interruptedAt === null;
  }

  /** Seq of the completion or failure of the model call started at `startedSeq`. */
  modelCallEnd(startedSeq: number): number | null {
    void this.version;
    return this.#index.modelCalls.get(startedSeq)?.end ?? null;
  }

  requestedSeqOf(event: EventEnvelope): number | null {
    void this.version;
    return this.#index.requestedSeqOf(event);
  }

  /** The project instructions (`AGENTS.md`) the run loaded for the model, latest per path. */
  get instructions(): LoadedInstructions[] {
    void this.version;
    return [...this.#index.instructions.values()];
  }

  /** The context meter: the latest request's size against the window, and the run's compactions. */
  get contextUse(): ContextMeterView | null {
    void this.version;
    return contextMeter(this.#index.lastContext, this.#index.compactions, this.#index.compactAt);
  }

  /** Another BearAgent process executes this run: its approvals and cancel are answered there. */
  get otherOwner(): OtherOwner | null {
    return otherOwnerOf(this.detail);
  }

  /**
   * An approval request can be answered from here: it is open (live, or
   * interrupted and resumable) and no other process executes the run.
   * Until the detail says who owns the run, nothing is answerable.
   */
  isAnswerable(callId: string): boolean {
    if (!this.isOpenRequest(callId)) return false;
    if (this.detail === null || this.otherOwner !== null) return false;
    const state = this.decisions.get(callId);
    return state?.kind !== "sending" && state?.kind !== "sent";
  }

  /** An open request that only the other process executing the run can answer. */
  awaitsOtherProcess(callId: string): boolean {
    return this.isOpenRequest(callId) && this.otherOwner !== null;
  }

  /** No decision is committed for the call and the run has not ended. */
  isOpenRequest(callId: string): boolean {
    void this.version;
    if (this.#index.endedAt !== null) return false;
    return this.#index.calls.get(callId)?.decision === undefined;
  }

  /** The last rewind of the run's files that is not redone. */
  get activeRewind(): ActiveRewind | null {
    void this.version;
    return this.#index.rewinds.active;
  }

  /** The row's effect (an event) or the tool call (its id) was put back by the active rewind. */
  isRewound(of: EventEnvelope | string): boolean {
    void this.version;
    const marks = this.#index.rewinds;
    return typeof of === "string" ? marks.isCallRewound(of) : marks.isRewound(of);
  }

  /** The run as a conversation (folded as events arrive). */
  get conversation(): readonly ConversationItem[] {
    void this.version;
    return this.#conversation.items;
  }

  conversationAt(index: number): ConversationItem | undefined {
    void this.version;
    return this.#conversation.at(index);
  }

  /** Index of a tool call's card in the conversation. */
  cardIndex(callId: string): number | undefined {
    void this.version;
    return this.#conversation.cardIndex(callId);
  }

  /** The run's diff of `path` is the change of this call alone. */
  soleChange(path: string, callId: string): boolean {
    void this.version;
    return this.#conversation.soleChange(path, callId);
  }

  /** Whether call `callId` changed `path`, alone or with other calls (null: it did not). */
  changedBy(path: string, callId: string): "alone" | "shared" | null {
    void this.version;
    return this.#conversation.changedBy(path, callId);
  }

  /** Ended or interrupted: an open call gets no result now (an open request still answers after an interruption). */
  get runPhase(): RunPhase {
    void this.version;
    return this.#index.endedAt !== null ? "ended" : this.#index.interruptedAt !== null ? "interrupted" : "live";
  }

  /** All events in order (for tests and exports; the view reads by index). */
  events(): readonly EventEnvelope[] {
    void this.version;
    return this.#log.all();
  }

  // ---- lifecycle ---------------------------------------------------------

  /** Subscribe to live updates first, then page the whole log from seq 0. */
  async open(): Promise<void> {
    this.#closed = false;
    const unlisten = await Promise.all([
      this.#api.onRunEvent(this.#onPushed),
      this.#api.onModelText(this.#onText),
      this.#api.onRunAborted(this.#onAborted),
      this.#api.onModelTextDiscarded(this.#onTextDiscarded),
      this.#api.onCommandOutput(this.#onCommandOutput),
    ]);
    if (this.#closed) {
      unlisten.forEach((u) => u());
      return;
    }
    this.#unlisten = unlisten;
    this.#needFull = true;
    await Promise.all([this.#sync(), this.refreshDetail()]);
  }

  close(): void {
    this.#closed = true;
    this.#unlisten.forEach((u) => u());
    this.#unlisten = [];
    this.outputs.close();
    if (this.#refreshTimer !== null) clearTimeout(this.#refreshTimer);
    this.#refreshTimer = null;
  }

  /** Forget everything and page the log again from seq 0. */
  async reload(): Promise<void> {
    this.#generation += 1;
    this.#log.reset();
    this.#index.reset();
    this.#conversation.reset();
    this.streaming.clear();
    this.loaded = false;
    this.error = null;
    this.version += 1;
    this.#needFull = true;
    const running = this.#syncing;
    if (running) await running;
    await Promise.all([this.#sync(), this.refreshDetail()]);
  }

  // ---- commands ----------------------------------------------------------

  /** `prefix`: with `allow_prefix`, the command words allowed for the rest of the run. */
  async decide(callId: string, choice: ApprovalChoice, reason = "", prefix = "", network = false, remember: RememberScopeView | null = null): Promise<boolean> {
    if (!this.isAnswerable(callId)) return false;
    this.decisions.set(callId, { kind: "sending", choice });
    const outcome = await this.#api.decide(this.runId, callId, decisionFor(choice, reason, prefix, network, remember));
    if (!outcome.ok) {
      this.decisions.set(callId, { kind: "failed", choice, ...outcome.error });
      return false;
    }
    this.decisions.set(callId, { kind: "sent", choice });
    this.#scheduleRefresh();
    return true;
  }

  async cancel(): Promise<void> {
    if (this.otherOwner !== null) return;
    this.cancelling = true;
    try {
      const outcome = await this.#api.cancel(this.runId);
      this.actionError = outcome.ok ? null : outcome.error;
      this.#scheduleRefresh();
    } finally {
      this.cancelling = false;
    }
  }

  async showContext(requestedSeq: number): Promise<void> {
    this.context = { kind: "loading", requestedSeq };
    const outcome = await this.#api.modelContext(this.runId, requestedSeq);
    if (this.context?.requestedSeq !== requestedSeq) return;
    this.context = outcome.ok
      ? { kind: "ready", requestedSeq, context: outcome.value }
      : { kind: "failed", requestedSeq, error: outcome.error };
  }

  closeContext(): void {
    this.context = null;
  }

  toggleExpanded(seq: number): void {
    if (this.expanded.has(seq)) this.expanded.delete(seq);
    else this.expanded.add(seq);
  }

  /** True the first time it is asked for a call: a new request takes focus once. */
  claimAutoFocus(callId: string): boolean {
    if (this.#focused.has(callId)) return false;
    this.#focused.add(callId);
    return true;
  }

  dismissActionError(): void {
    this.actionError = null;
  }

  /** Reload the projection (status, meters, pending approval); coalesced. */
  async refreshDetail(): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    const pass: Promise<void> = this.#refreshPass().finally(() => {
      if (this.#refreshing === pass) this.#refreshing = null;
    });
    this.#refreshing = pass;
    return pass;
  }

  async #refreshPass(): Promise<void> {
    do {
      this.#refreshAgain = false;
      const seenSeq = this.#log.lastSeq;
      const outcome = await this.#api.get(this.runId);
      if (this.#closed) return;
      if (outcome.ok) this.detail = outcome.value;
      else this.error = outcome.error;
      // Events that arrived during the request may be newer than what it read.
      if (this.#log.lastSeq > seenSeq && this.#detailBehindLog()) this.#refreshAgain = true;
    } while (this.#refreshAgain && !this.#closed);
  }

  /** The log holds events the projection shown does not reflect yet. */
  #detailBehindLog(): boolean {
    return this.detail !== null && this.#log.lastSeq > this.detail.projection.last_seq;
  }

  // ---- live updates ------------------------------------------------------

  #onPushed = (pushed: RunEventPushed): void => {
    if (pushed.runId !== this.runId || this.#closed) return;
    // A command first announced live streams its output from its first byte here.
    const p = pushed.event.payload;
    if (p.type === "command_started" && pushed.event.seq > this.#log.lastSeq) this.outputs.begin(p.call_id);
    const applied = this.#log.add(pushed.event);
    if (applied.length > 0) this.#applied(applied);
    // Ahead of a gap: page the missing events before it can be applied.
    if (this.#log.missing) void this.#sync();
  };

  #onText = (pushed: ModelTextPushed): void => {
    if (pushed.runId !== this.runId || this.#closed) return;
    const call = pushed.modelCall;
    // Text for a call whose completion is already committed is stale.
    if (this.#index.modelCalls.get(call)?.end != null) return;
    this.streaming.set(call, (this.streaming.get(call) ?? "") + pushed.text);
  };

  #onCommandOutput = (pushed: CommandOutputPushed): void => {
    if (pushed.runId !== this.runId || this.#closed) return;
    this.outputs.push(pushed.callId, pushed.text);
  };

  /** The attempt failed mid-stream and is retried: what it streamed is void. */
  #onTextDiscarded = (discarded: ModelTextDiscarded): void => {
    if (discarded.runId !== this.runId || this.#closed) return;
    this.streaming.delete(discarded.modelCall);
  };

  #onAborted = (aborted: RunAborted): void => {
    if (aborted.runId !== this.runId || this.#closed) return;
    this.aborted = aborted.message;
    void this.refreshDetail();
  };

  #applied(events: EventEnvelope[]): void {
    for (const event of events) {
      this.#index.add(event);
      this.#conversation.add(event);
      const p = event.payload;
      if ((p.type === "model_call_completed" || p.type === "model_call_failed") && event.cause !== null) {
        this.streaming.delete(event.cause);
      }
      if (p.type === "command_finished") this.outputs.finish(p.call_id);
      // Any other tool's live output (an MCP tool's progress) ends with its result.
      if (p.type === "tool_call_completed" || p.type === "tool_call_failed") this.outputs.finish(p.result.call_id);
    }
    this.version += 1;
    // New events change the projection (status, owner, meters): refresh it,
    // also while the first load still pages if they are newer than it.
    if (this.loaded || this.#detailBehindLog()) this.#scheduleRefresh();
  }

  /**
   * Pages events from the backend: the whole log when `#needFull`, else
   * just enough to close a gap. One pass at a time; a caller arriving
   * during a pass shares it (the pass re-checks the flags before ending).
   */
  #sync(): Promise<void> {
    if (this.#syncing) return this.#syncing;
    const pass: Promise<void> = this.#syncPass(this.#generation).finally(() => {
      if (this.#syncing === pass) this.#syncing = null;
    });
    this.#syncing = pass;
    return pass;
  }

  async #syncPass(generation: number): Promise<void> {
    const stale = () => this.#closed || generation !== this.#generation;
    for (;;) {
      const full = this.#needFull;
      if (!full && !this.#log.missing) return;
      this.#needFull = false;
      const before = this.#log.lastSeq;
      let more = true;
      while (more) {
        const after = this.#log.lastSeq;
        const page = await this.#api.listEvents(this.runId, after, this.#pageSize);
        if (stale()) return;
        if (!page.ok) {
          this.error = page.error;
          return;
        }
        const applied = this.#log.addAll(page.value.events);
        if (applied.length > 0) this.#applied(applied);
        more = page.value.hasMore && this.#log.lastSeq > after;
        if (!full && !this.#log.missing) break;
        // Let the window paint what it has before asking for the next page.
        if (more && full) await nextTask();
        if (stale()) return;
      }
      if (full) {
        this.loaded = true;
        this.error = null;
      }
      // The store had nothing more to close the gap with: stop; the next push retries.
      if (!full && this.#log.lastSeq === before) return;
    }
  }

  #scheduleRefresh(): void {
    if (this.#refreshTimer !== null || this.#closed) return;
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = null;
      void this.refreshDetail();
    }, this.#refreshDelayMs);
  }
}
