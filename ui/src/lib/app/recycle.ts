import { commands, type IdleOutcome, type RecyclePolicy } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

/**
 * The page's side of recycling its web process (src-tauri/src/web_process.rs
 * says why and decides): the page says when it is new, and when the person
 * has left it alone for the policy's time or hidden the window. Before each
 * offer the views write down where their reader is (`keepOnRecycle`); the
 * page that loads in the new process reads it back once (`takeKept`).
 *
 * It never offers while something typed would be lost: a reload keeps what
 * the store holds, not a half-written goal.
 */
export interface PageApi {
  pageReady(): Promise<Outcome<RecyclePolicy>>;
  pageIdle(): Promise<Outcome<IdleOutcome>>;
}

export const tauriPageApi: PageApi = {
  pageReady: () => call(() => commands.pageReady()),
  pageIdle: () => call(() => commands.pageIdle()),
};

const KEPT_KEY = "bearagent.kept-views";
/** The page's size is taken once it has settled: at mount it is still loading. */
const SETTLE_MS = 5_000;
/** Input that says the person is at the page. */
const ACTIVITY = ["pointerdown", "pointermove", "keydown", "wheel", "touchstart", "focusin"] as const;

type Keeper = () => [key: string, value: unknown];
const keepers = new Set<Keeper>();

/** Registers what a view keeps across a recycle; returns its unregistration. */
export function keepOnRecycle(keeper: Keeper): () => void {
  keepers.add(keeper);
  return () => keepers.delete(keeper);
}

/** What a view kept before the last recycle under `key`, once. */
export function takeKept<T>(key: string, storage: Storage = sessionStorage): T | null {
  try {
    const all = JSON.parse(storage.getItem(KEPT_KEY) ?? "{}") as Record<string, unknown>;
    if (!Object.hasOwn(all, key)) return null;
    const value = all[key] as T;
    delete all[key];
    storage.setItem(KEPT_KEY, JSON.stringify(all));
    return value;
  } catch {
    return null;
  }
}

function writeKept(storage: Storage): void {
  const all: Record<string, unknown> = {};
  for (const keep of keepers) {
    const [key, value] = keep();
    all[key] = value;
  }
  storage.setItem(KEPT_KEY, JSON.stringify(all));
}

/** Text the person typed that a reload would lose. */
export function hasUnsavedTyping(doc: Document): boolean {
  const fields = doc.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("textarea, input:not([type]), input[type=text], input[type=search], input[type=url]");
  return Array.from(fields).some((f) => f.value.trim() !== "" && f.value !== f.defaultValue);
}

export class IdleWatcher {
  readonly #api: PageApi;
  readonly #win: Window;
  readonly #storage: Storage;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #idleMs = 0;
  /** Time of the last input: input only stamps it (it comes at pointer-move rate); the timer checks it. */
  #lastInput = 0;
  #offering = false;
  #stopped = false;
  readonly #onActivity = () => {
    this.#lastInput = Date.now();
  };
  readonly #onVisibility = () => {
    if (this.#win.document.visibilityState === "hidden") void this.#offer();
  };

  readonly #settleMs: number;

  constructor(api: PageApi = tauriPageApi, win: Window = window, storage: Storage = sessionStorage, settleMs = SETTLE_MS) {
    this.#api = api;
    this.#win = win;
    this.#storage = storage;
    this.#settleMs = settleMs;
  }

  async start(): Promise<void> {
    await new Promise((settled) => setTimeout(settled, this.#settleMs));
    if (this.#stopped) return;
    const policy = await this.#api.pageReady();
    if (this.#stopped || !policy.ok || policy.value.off) return;
    this.#idleMs = policy.value.idle_ms;
    for (const type of ACTIVITY) this.#win.addEventListener(type, this.#onActivity, { passive: true, capture: true });
    this.#win.document.addEventListener("visibilitychange", this.#onVisibility);
    this.#arm();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    for (const type of ACTIVITY) this.#win.removeEventListener(type, this.#onActivity, { capture: true });
    this.#win.document.removeEventListener("visibilitychange", this.#onVisibility);
  }

  /** Offers once the page has had no input for the idle time (from the last input, or from now). */
  #arm(): void {
    if (this.#stopped || this.#idleMs <= 0) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#lastInput = Date.now();
    this.#timer = setTimeout(() => this.#check(), this.#idleMs);
  }

  #check(): void {
    const quietFor = Date.now() - this.#lastInput;
    if (quietFor >= this.#idleMs) void this.#offer();
    else this.#timer = setTimeout(() => this.#check(), this.#idleMs - quietFor);
  }

  async #offer(): Promise<void> {
    if (this.#offering || this.#stopped) return;
    if (hasUnsavedTyping(this.#win.document)) return this.#arm();
    this.#offering = true;
    writeKept(this.#storage);
    const outcome = await this.#api.pageIdle();
    this.#offering = false;
    if (outcome.ok && outcome.value.kind === "recycling") return; // this page ends in a moment
    this.#storage.removeItem(KEPT_KEY);
    this.#arm();
  }
}
