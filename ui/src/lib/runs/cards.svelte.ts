// What the conversation's cards remember outside the windowed rows: which
// the user opened or closed, and the diffs read from Changes for writes
// over existing files (their arguments alone do not say what changed).
import { SvelteMap } from "svelte/reactivity";
import type { FileDiffView, ProposedChangeView } from "../../bindings";
import type { DiffState } from "../artifacts";
import type { Outcome } from "../ipc/outcome";
import { RUN_COMMAND } from "./commands";
import type { ToolCardItem } from "./conversation";
import type { CardStatus } from "./toolCards";

/**
 * Open until the user says otherwise: what needs them now (a question, a
 * command running, a failure). A write or edit waiting for approval stays
 * closed: its diff shows inline under it.
 */
export function openByDefault(card: ToolCardItem, status: CardStatus): boolean {
  if (status.kind === "asking") return card.name !== "write_file" && card.name !== "edit_file";
  if (status.kind === "running") return true;
  return status.kind === "failed" && card.name === RUN_COMMAND;
}

export class CardState {
  /** The user's choice per call id; absent: `openByDefault`. */
  readonly #open = new SvelteMap<string, boolean>();
  /** Diffs from Changes, by call id. */
  readonly diffs = new SvelteMap<string, DiffState>();
  /** What a write waiting for approval would change, by call id (null: no preview; its arguments show instead). */
  readonly proposals = new SvelteMap<string, FileDiffView | null>();
  readonly #fetch: (path: string) => Promise<Outcome<FileDiffView>>;
  readonly #fetchPending: () => Promise<Outcome<ProposedChangeView | null>>;

  constructor(fetchDiff: (path: string) => Promise<Outcome<FileDiffView>>, fetchPending: () => Promise<Outcome<ProposedChangeView | null>>) {
    this.#fetch = fetchDiff;
    this.#fetchPending = fetchPending;
  }

  /** Asks once what the waiting write `callId` would change (the file as it is now, with its line numbers). */
  async loadProposal(callId: string): Promise<void> {
    if (this.proposals.has(callId)) return;
    this.proposals.set(callId, null);
    const outcome = await this.#fetchPending();
    if (outcome.ok && outcome.value?.callId === callId) this.proposals.set(callId, outcome.value.diff);
  }

  isOpen(card: ToolCardItem, status: CardStatus): boolean {
    return this.#open.get(card.callId) ?? openByDefault(card, status);
  }

  toggle(card: ToolCardItem, status: CardStatus): void {
    this.#open.set(card.callId, !this.isOpen(card, status));
  }

  /** Which review of the file each diff was read at (see `loadDiff`). */
  readonly #diffVersions = new Map<string, string>();

  /**
   * Reads the run's diff of `path` for a call once (again after a
   * failure, or when `version` — the file's review as the list shows it —
   * is not the one it was read at: a hunk reverted since).
   */
  async loadDiff(callId: string, path: string, version?: string): Promise<void> {
    const known = this.diffs.get(callId);
    const same = version === undefined || this.#diffVersions.get(callId) === version;
    if (known && known.kind !== "failed" && same) return;
    if (version !== undefined) this.#diffVersions.set(callId, version);
    if (!known || known.kind === "failed") this.diffs.set(callId, { kind: "loading", path });
    const outcome = await this.#fetch(path);
    this.diffs.set(callId, outcome.ok ? { kind: "loaded", path, diff: outcome.value } : { kind: "failed", path, error: outcome.error });
  }
}
