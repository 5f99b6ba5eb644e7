import type { RunStatusKind } from "../../bindings";

export type StatusTone = "neutral" | "active" | "attention" | "success" | "danger";

const STATUS: Record<RunStatusKind, { label: string; tone: StatusTone }> = {
  created: { label: "Created", tone: "neutral" },
  running: { label: "Running", tone: "active" },
  awaiting_approval: { label: "Awaiting approval", tone: "attention" },
  succeeded: { label: "Succeeded", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  cancelled: { label: "Cancelled", tone: "neutral" },
  budget_exhausted: { label: "Budget exhausted", tone: "attention" },
  interrupted: { label: "Interrupted", tone: "danger" },
};

/** Label and colour tone of a run status; unknown statuses are shown as-is, never as success. */
export function statusInfo(status: string): { label: string; tone: StatusTone } {
  return Object.hasOwn(STATUS, status)
    ? STATUS[status as RunStatusKind]
    : { label: status, tone: "neutral" };
}

// Making an Intl formatter costs far more than using one (≈ 1 ms each in
// WebKit on a slow machine; the runs list made four per row, 200 rows at
// start): they are made once per locale and options, then reused.
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function cached<F>(cache: Map<string, F>, locale: string | undefined, options: object, make: () => F): F {
  const key = `${locale ?? ""}|${JSON.stringify(options)}`;
  let formatter = cache.get(key);
  if (formatter === undefined) {
    formatter = make();
    cache.set(key, formatter);
  }
  return formatter;
}

/** An `Intl.NumberFormat`, made once for each locale and options. */
export function numberFormat(locale?: string, options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  return cached(numberFormats, locale, options, () => new Intl.NumberFormat(locale, options));
}

/** An `Intl.DateTimeFormat`, made once for each locale and options. */
export function dateFormat(locale?: string, options: Intl.DateTimeFormatOptions = {}): Intl.DateTimeFormat {
  return cached(dateFormats, locale, options, () => new Intl.DateTimeFormat(locale, options));
}

/** A whole number with grouping: "12,345" (the user's locale unless one is given). */
export function formatCount(n: number, locale?: string): string {
  return numberFormat(locale).format(n);
}

/** "1,234" below ten thousand, then "12.3k", "4.5M". */
export function formatTokens(count: number, locale?: string): string {
  if (!Number.isFinite(count) || count < 0) return "—";
  if (count < 10_000) return numberFormat(locale).format(count);
  const [value, unit] = count < 1_000_000 ? [count / 1_000, "k"] : [count / 1_000_000, "M"];
  return `${numberFormat(locale, { maximumFractionDigits: 1 }).format(value)}${unit}`;
}

/**
 * A micro-USD amount for people, as the CLI prints it: "$0.00", "<$0.0001",
 * "$0.0123" below a dollar, "$1.50" from there. `null` (no price) is
 * "unknown", never "$0.00".
 */
export function formatUsd(microUsd: number | null | undefined): string {
  if (microUsd === null || microUsd === undefined || !Number.isFinite(microUsd) || microUsd < 0) return "unknown";
  if (microUsd === 0) return "$0.00";
  if (microUsd < 100) return "<$0.0001";
  const usd = microUsd / 1_000_000;
  return usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** A price per million tokens as typed in the config, e.g. "$3" or "$0.075". */
export function formatUsdPerMtok(usd: number): string {
  return `$${numberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 6 }).format(usd)}`;
}

/** A readable local date and time for an RFC 3339 timestamp; the raw text if it does not parse. */
export function formatTimestamp(rfc3339: string, locale?: string, timeZone?: string): string {
  const date = new Date(rfc3339);
  if (Number.isNaN(date.getTime())) return rfc3339;
  return dateFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(date);
}

/** "850 ms", "42 s", "3 min 05 s", "2 h 04 min" — for durations and elapsed time. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const totalSeconds = Math.floor(ms / 1_000);
  if (totalSeconds < 60) return `${totalSeconds} s`;
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  if (minutes < 60) return `${minutes} min ${String(seconds).padStart(2, "0")} s`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** "512 B", "2.0 KB", "1.5 MB" (binary units, one decimal). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Milliseconds between two RFC 3339 timestamps (or `now`), `null` if either does not parse. */
export function millisBetween(from: string, to: string | number): number | null {
  const start = Date.parse(from);
  const end = typeof to === "number" ? to : Date.parse(to);
  if (Number.isNaN(start) || Number.isNaN(end)) return null;
  return Math.max(0, end - start);
}
