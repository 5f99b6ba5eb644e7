// A provider's context window and a profile's compaction setting, as the
// forms edit them, with the config file's checks (so a value the backend
// would refuse is caught next to its field).
import { DEFAULT_COMPACT_AT_PERMILLE } from "../runs/compaction";
import { parsePositiveInteger } from "../runs/budgets";

export { DEFAULT_COMPACT_AT_PERMILLE };

/** The config's bounds for `context_window`, in tokens. */
export const MIN_CONTEXT_WINDOW = 1_000;
export const MAX_CONTEXT_WINDOW = 10_000_000;

/** The config's bounds for `compact_at`, a share of the window. */
export const MIN_COMPACT_AT = 0.1;
export const MAX_COMPACT_AT = 0.99;

export type Parsed<T> = { value: T; error: null } | { value: null; error: string };

/** "" (the model family's default) or a stored window as typed. */
export function contextWindowToText(window: number | null | undefined): string {
  return window == null ? "" : String(window);
}

/**
 * The window from the form: empty is the model's default (null); else a
 * whole number of tokens from 1,000 to 10,000,000 ("32,000" accepted).
 */
export function parseContextWindow(text: string): Parsed<number | null> {
  if (text.trim() === "") return { value: null, error: null };
  const tokens = parsePositiveInteger(text);
  if (tokens === null || tokens < MIN_CONTEXT_WINDOW || tokens > MAX_CONTEXT_WINDOW) {
    return { value: null, error: "Context window must be a whole number of tokens from 1,000 to 10,000,000; leave it empty for the model's default." };
  }
  return { value: tokens, error: null };
}

/** 850 → "0.85": the share as the config file writes it. */
export function compactAtToText(permille: number): string {
  return String(permille / 1000);
}

/**
 * A share of the window as people type it ("0.85", ".9", "85%"), in per
 * mille like the backend stores it (rounded as the config rounds it).
 */
export function parseCompactAt(text: string): Parsed<number> {
  const cleaned = text.trim().replace(/\s+/g, "");
  const percent = cleaned.endsWith("%");
  const digits = percent ? cleaned.slice(0, -1) : cleaned;
  const error = "Compact at must be a share of the window from 0.1 to 0.99, e.g. 0.85.";
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(digits)) return { value: null, error };
  const share = Number(digits) / (percent ? 100 : 1);
  if (!Number.isFinite(share) || share < MIN_COMPACT_AT || share > MAX_COMPACT_AT) return { value: null, error };
  return { value: Math.round(share * 1000), error: null };
}

/** A profile's compaction as the form edits it: on or off, and where (kept while off, for turning it back on). */
export function compactionToForm(permille: number | null | undefined): { compaction: boolean; compactAt: string } {
  // Absent: the backend's default (compact at 0.85); null: compaction off.
  if (permille === null) return { compaction: false, compactAt: compactAtToText(DEFAULT_COMPACT_AT_PERMILLE) };
  return { compaction: true, compactAt: compactAtToText(permille ?? DEFAULT_COMPACT_AT_PERMILLE) };
}

/** The form's compaction for the profile: null when off (the share is then not checked). */
export function parseCompaction(form: { compaction: boolean; compactAt: string }): Parsed<number | null> {
  return form.compaction ? parseCompactAt(form.compactAt) : { value: null, error: null };
}

/** A provider card's line: "context window 32,000 tokens" or the default. */
export function contextWindowLabel(window: number | null | undefined): string {
  return window == null ? "context window: the model's default" : `context window ${window.toLocaleString("en-US")} tokens`;
}

/** A profile card's line: "compacts at 0.85 of the window" or "compaction off". */
export function compactionLabel(permille: number | null | undefined): string {
  if (permille === null) return "compaction off: a request over the window fails the run";
  return `compacts at ${compactAtToText(permille ?? DEFAULT_COMPACT_AT_PERMILLE)} of the window`;
}
