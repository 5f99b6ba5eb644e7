// Context size and compaction: the run view's context meter, the
// `context_compacted` row's texts, and error titles by code for loading a
// summary and for compacting a finished run by hand.
import type { CompactedView, EventPayload } from "../../bindings";
import { errorTitle } from "../ipc/errors";
import { formatCount, numberFormat } from "./format";

export type ContextCompacted = Extract<EventPayload, { type: "context_compacted" }>;

/** The latest model request that said how big it was against the window. */
export interface ContextReading {
  /** Its `model_call_requested` event. */
  seq: number;
  estimated: number;
  window: number;
}

/** One `context_compacted` event of the run (mid-run or by hand). */
export interface CompactionMark {
  seq: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** The kernel's default when a run's caps predate the setting: compact at 0.85 of the window. */
export const DEFAULT_COMPACT_AT_PERMILLE = 850;

const en = (digits: number) => numberFormat("en-US", { maximumFractionDigits: digits });

/** "850", "12.4k", "200k", "1.05M": token counts short enough for a meter. */
export function shortTokens(count: number): string {
  if (!Number.isFinite(count) || count < 0) return "—";
  if (count < 1_000) return en(0).format(count);
  const k = en(1).format(count / 1_000);
  // 999,950 would read "1,000k": switch units once rounding reaches a million.
  if (count < 1_000_000 && Number(k.replace(/,/g, "")) < 1_000) return `${k}k`;
  return `${en(2).format(count / 1_000_000)}M`;
}

/** An estimate, so marked as one: "~12.4k". */
export function approxTokens(count: number): string {
  return `~${shortTokens(count)}`;
}

/** "~171,000 → ~12,500 tokens" (exact digits, as the row title has them). */
export function compactionTokensText(before: number, after: number): string {
  return `~${formatCount(before, "en-US")} → ~${formatCount(after, "en-US")} tokens`;
}

/** Which events the summary stands in for: "replaced events #1–#42". */
export function replacedText(throughSeq: number): string {
  return throughSeq <= 1 ? "replaced event #1" : `replaced events #1–#${throughSeq}`;
}

/** "compacted 1×", "compacted 3×". */
export function compactedTimes(count: number): string {
  return `compacted ${count}×`;
}

export interface ContextMeterView {
  estimated: number;
  window: number;
  /** estimated / window, clamped to [0, 1]. */
  fraction: number;
  /** "~12.4k / 200k tokens" */
  text: string;
  /** Where the run compacts, as a share of the window; null when compaction is off. */
  threshold: number | null;
  level: "ok" | "high" | "full";
  compactions: number;
  /** "compacted 2×", and what the next request starts from when a compaction came after the reading. */
  note: string | null;
  /** A sentence for the tooltip. */
  title: string;
}

/**
 * The meter for the run's latest request: its estimated size against the
 * model's window, how often the run compacted. Null when no request says
 * its size (runs recorded before requests were estimated).
 */
export function contextMeter(reading: ContextReading | null, compactions: readonly CompactionMark[], compactAtPermille: number | null): ContextMeterView | null {
  if (reading === null || reading.window <= 0) return null;
  const fraction = Math.min(1, Math.max(0, reading.estimated / reading.window));
  const threshold = compactAtPermille === null ? null : compactAtPermille / 1000;
  // "High" within 10% of where the run compacts (or, with compaction off, of the window, where it fails).
  const level = reading.estimated >= reading.window ? "full" : fraction >= (threshold ?? 1) * 0.9 ? "high" : "ok";
  const last = compactions.at(-1);
  // A compaction after the reading (by hand, after the run ended): the next request starts from its summary.
  const since = last !== undefined && last.seq > reading.seq ? ` · next request ${approxTokens(last.tokensAfter)}` : "";
  const note = compactions.length > 0 ? `${compactedTimes(compactions.length)}${since}` : null;
  const when = threshold === null ? "compaction is off, so a request over the window fails the run" : `the run compacts at ${Math.round(threshold * 100)}% of it`;
  return {
    estimated: reading.estimated,
    window: reading.window,
    fraction,
    text: `${approxTokens(reading.estimated)} / ${shortTokens(reading.window)} tokens`,
    threshold,
    level,
    compactions: compactions.length,
    note,
    title: `The latest model request's estimated size against the model's context window (${reading.window.toLocaleString("en-US")} tokens); ${when}.`,
  };
}

/** A run's compaction setting from its run_created caps: absent means the default, null means off. */
export function compactAtOf(permille: number | null | undefined): number | null {
  return permille === undefined ? DEFAULT_COMPACT_AT_PERMILLE : permille;
}

/** What the Compact button reports: "Compacted: ~171,000 → ~12,500 tokens; …". */
export function compactedText(view: CompactedView): string {
  return `Compacted: ${compactionTokensText(view.tokensBefore, view.tokensAfter)}; your next reply starts from the summary`;
}

/** The title of a failed compaction, by error code only (the message is shown under it, never parsed). */
export function compactErrorTitle(code: string): string {
  switch (code) {
    case "conflict":
      return "This run is still in progress — it compacts itself when its context nears the window";
    case "unavailable":
      return "The model could not summarise the run; nothing was changed";
    case "not_found":
      return "The run or its provider is gone";
    default:
      return errorTitle(code);
  }
}

/** The title of a summary that did not load, by error code only. */
export function summaryErrorTitle(code: string): string {
  return code === "not_found" ? "The summary is not stored with this run" : errorTitle(code);
}
