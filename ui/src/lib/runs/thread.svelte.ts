import { SvelteSet } from "svelte/reactivity";
import type { ApiError, ImageUpload, ThreadRunView } from "../../bindings";
import type { RunsApi } from "./api";
import { ImageDraft } from "./imageDraft.svelte";
import { earlierRuns } from "./threads";
import { planApprovalMessage } from "./plan";

/**
 * The thread of one open run: the runs it continues (from `getThread`),
 * shown collapsed above its timeline, each expandable. Earlier runs have
 * ended, so the thread is read once (and again on Retry).
 */
export class ThreadStore {
  readonly runId: string;
  entries = $state.raw<ThreadRunView[] | null>(null);
  error = $state.raw<ApiError | null>(null);
  loading = $state(false);
  /** Run ids of the entries showing their whole final answer. */
  readonly expanded = new SvelteSet<string>();

  readonly #api: Pick<RunsApi, "thread">;
  #request = 0;

  constructor(api: Pick<RunsApi, "thread">, runId: string) {
    this.#api = api;
    this.runId = runId;
  }

  /** The runs before this one, oldest first (empty until loaded). */
  get earlier(): ThreadRunView[] {
    return earlierRuns(this.entries ?? [], this.runId);
  }

  /** Load once; later calls do nothing unless the last load failed. */
  async ensureLoaded(): Promise<void> {
    if (this.loading || this.entries !== null) return;
    await this.load();
  }

  async load(): Promise<void> {
    const request = ++this.#request;
    this.loading = true;
    const outcome = await this.#api.thread(this.runId);
    // Only the newest request's answer is shown (and none after close).
    if (request !== this.#request) return;
    this.loading = false;
    if (outcome.ok) {
      this.entries = outcome.value;
      this.error = null;
    } else {
      this.error = outcome.error;
    }
  }

  toggle(runId: string): void {
    if (this.expanded.has(runId)) this.expanded.delete(runId);
    else this.expanded.add(runId);
  }

  close(): void {
    this.#request += 1;
  }
}

export type SendKind = "reply" | "fork";

/**
 * Replies to one finished run: the reply box under its timeline (a
 * follow-up) and the inline "Fork from here" prompt of one row (a fork
 * at that row's seq). Drafts live here, not in the rows, because rows of
 * the windowed timeline come and go as it scrolls. One send at a time;
 * a started run is handed to `onstarted` (the view opens it).
 */
export class ReplyStore {
  readonly runId: string;
  /** The reply box's draft and the images pasted into it. */
  message = $state("");
  readonly images = new ImageDraft();
  /** The row whose fork prompt is open. */
  forkAt = $state<number | null>(null);
  forkMessage = $state("");
  sending = $state<SendKind | null>(null);
  replyError = $state.raw<ApiError | null>(null);
  forkError = $state.raw<ApiError | null>(null);

  readonly #api: Pick<RunsApi, "reply">;
  readonly #onstarted: (runId: string) => void;
  #focusPending = false;

  constructor(api: Pick<RunsApi, "reply">, runId: string, onstarted: (runId: string) => void) {
    this.#api = api;
    this.runId = runId;
    this.#onstarted = onstarted;
  }

  get canReply(): boolean {
    return this.sending === null && this.message.trim() !== "" && this.images.reading === 0;
  }

  get canFork(): boolean {
    return this.sending === null && this.forkAt !== null && this.forkMessage.trim() !== "";
  }

  async reply(): Promise<boolean> {
    if (!this.canReply) return false;
    this.replyError = null;
    const error = await this.#send("reply", this.message, null, this.images.uploads);
    if (error) {
      this.replyError = error;
    } else {
      this.message = "";
      this.images.clear();
    }
    return error === null;
  }

  /**
   * "Approve plan": the follow-up that carries a plan-mode run's plan out,
   * opened like a reply; with `edited`, the person's version of `plan`.
   */
  async approvePlan(plan = "", edited: string | null = null): Promise<boolean> {
    if (this.sending !== null) return false;
    this.replyError = null;
    const error = await this.#send("reply", planApprovalMessage(plan, edited), null, []);
    if (error) this.replyError = error;
    return error === null;
  }

  /** Opens the prompt at `seq` (a fresh draft when it moves to another row). */
  openFork(seq: number): void {
    if (this.forkAt === seq) return;
    this.forkAt = seq;
    this.forkMessage = "";
    this.forkError = null;
    this.#focusPending = true;
  }

  closeFork(): void {
    this.forkAt = null;
    this.forkMessage = "";
    this.forkError = null;
  }

  async fork(): Promise<boolean> {
    const seq = this.forkAt;
    if (!this.canFork || seq === null) return false;
    this.forkError = null;
    const error = await this.#send("fork", this.forkMessage, seq, []);
    if (error) this.forkError = error;
    else this.closeFork();
    return error === null;
  }

  /** True once after the prompt opens: it takes focus then, not each time its row re-renders. */
  claimForkFocus(): boolean {
    const pending = this.#focusPending;
    this.#focusPending = false;
    return pending;
  }

  async #send(kind: SendKind, message: string, atSeq: number | null, images: ImageUpload[]): Promise<ApiError | null> {
    this.sending = kind;
    try {
      const outcome = await this.#api.reply(this.runId, message.trim(), atSeq, images);
      if (!outcome.ok) return outcome.error;
      this.#onstarted(outcome.value.runId);
      return null;
    } finally {
      this.sending = null;
    }
  }
}
