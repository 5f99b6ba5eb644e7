import { SvelteMap } from "svelte/reactivity";
import type { ApiError, DecisionInput, HelperRunView, RunEventPushed } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { Unlisten } from "./api";
import { decisionFor, type DecisionState } from "./approvals";

/** What the helpers of an open run need from the backend. */
export interface HelpersApi {
  /** The run's helpers at any depth, parents before their children. */
  helpers(runId: string): Promise<Outcome<HelperRunView[]>>;
  decide(runId: string, callId: string, decision: DecisionInput): Promise<Outcome<null>>;
  onRunEvent(handler: (pushed: RunEventPushed) => void): Promise<Unlisten>;
}

/** The key of a helper's approval among the decisions sent. */
export const approvalKey = (runId: string, callId: string) => `${runId}/${callId}`;

/**
 * The helpers (child runs, delegation) of the open run and of its
 * helpers, read from the backend when the view opens and again, coalesced,
 * whenever a helper's event arrives live (a new helper announces itself
 * with a `run_created` naming a run of the tree). A helper's approval is
 * answered with the helper's own run id; nothing is ever decided for the
 * user, and a failed answer stays on the card with its error.
 */
export class HelperTree {
  readonly runId: string;
  helpers = $state.raw<HelperRunView[]>([]);
  error = $state.raw<ApiError | null>(null);
  /** Decisions sent or failed, by `approvalKey(helper run, call)`. */
  readonly decisions = new SvelteMap<string, DecisionState>();

  readonly #api: HelpersApi;
  readonly #delayMs: number;
  /** The open run and every helper known so far. */
  readonly #tree = new Set<string>();
  #unlisten: Unlisten | null = null;
  #closed = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #loading: Promise<void> | null = null;
  #again = false;

  constructor(api: HelpersApi, runId: string, delayMs = 80) {
    this.#api = api;
    this.runId = runId;
    this.#delayMs = delayMs;
    this.#tree.add(runId);
  }

  /** Listen first, then read: a helper starting in between is not missed. */
  async open(): Promise<void> {
    this.#closed = false;
    const unlisten = await this.#api.onRunEvent(this.#onPushed);
    if (this.#closed) {
      unlisten();
      return;
    }
    this.#unlisten = unlisten;
    await this.refresh();
  }

  close(): void {
    this.#closed = true;
    this.#unlisten?.();
    this.#unlisten = null;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** The helpers the `task` call `callId` of run `runId` started (one, unless it was replayed). */
  childrenOf(runId: string, callId?: string): HelperRunView[] {
    return this.helpers.filter((h) => h.run.delegatedBy?.runId === runId && (callId === undefined || h.run.delegatedBy.callId === callId));
  }

  /** The helper's approval can be answered from here now. */
  isAnswerable(helper: HelperRunView): boolean {
    const pending = helper.pendingApproval;
    if (pending === null) return false;
    const state = this.decisions.get(approvalKey(helper.run.runId, pending.call_id));
    return state?.kind !== "sending" && state?.kind !== "sent";
  }

  /** Answers the helper's pending approval, as the helper (its run id and call id). */
  async decide(helper: HelperRunView, choice: "approve" | "deny"): Promise<boolean> {
    const pending = helper.pendingApproval;
    if (pending === null || !this.isAnswerable(helper)) return false;
    const key = approvalKey(helper.run.runId, pending.call_id);
    this.decisions.set(key, { kind: "sending", choice });
    const outcome = await this.#api.decide(helper.run.runId, pending.call_id, decisionFor(choice));
    if (!outcome.ok) {
      this.decisions.set(key, { kind: "failed", choice, ...outcome.error });
      return false;
    }
    this.decisions.set(key, { kind: "sent", choice });
    this.#schedule();
    return true;
  }

  /** Reads the tree again; calls during a read share it and read once more after. */
  refresh(): Promise<void> {
    if (this.#loading) {
      this.#again = true;
      return this.#loading;
    }
    const pass: Promise<void> = this.#read().finally(() => {
      if (this.#loading === pass) this.#loading = null;
    });
    this.#loading = pass;
    return pass;
  }

  async #read(): Promise<void> {
    do {
      this.#again = false;
      const outcome = await this.#api.helpers(this.runId);
      if (this.#closed) return;
      if (!outcome.ok) {
        this.error = outcome.error;
        continue;
      }
      this.error = null;
      this.helpers = outcome.value;
      for (const h of outcome.value) this.#tree.add(h.run.runId);
    } while (this.#again && !this.#closed);
  }

  #onPushed = (pushed: RunEventPushed): void => {
    if (this.#closed) return;
    const p = pushed.event.payload;
    const born = p.type === "run_created" && p.delegated_by != null && this.#tree.has(p.delegated_by.run_id);
    if (born) this.#tree.add(pushed.runId);
    // The open run's own events are its view's; a helper's change its card's.
    if (born || (pushed.runId !== this.runId && this.#tree.has(pushed.runId))) this.#schedule();
  };

  #schedule(): void {
    if (this.#timer !== null || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.refresh();
    }, this.#delayMs);
  }
}
