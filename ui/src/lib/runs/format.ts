import type { RunStatusKind } from "../../bindings";

export type StatusTone = "neutral" | "active" | "attention" | "success" | "danger";

const STATUS: Record<RunStatusKind, { label: string; tone: StatusTone }> = {
  created: { label: "Created", tone: "neutral" },
  running: { label: "Running", tone: "active" },
  awaitingApproval: { label: "Awaiting approval", tone: "attention" },
  succeeded: { label: "Succeeded", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  cancelled: { label: "Cancelled", tone: "neutral" },
  budgetExhausted: { label: "Budget exhausted", tone: "attention" },
  interrupted: { label: "Interrupted", tone: "danger" },
};

/** Label and colour tone of a run status; unknown statuses are shown as-is, never as success. */
export function statusInfo(status: string): { label: string; tone: StatusTone } {
  return Object.hasOwn(STATUS, status)
    ? STATUS[status as RunStatusKind]
    : { label: status, tone: "neutral" };
}

/** "1,234" below ten thousand, then "12.3k", "4.5M". */
export function formatTokens(count: number, locale?: string): string {
  if (!Number.isFinite(count) || count < 0) return "—";
  if (count < 10_000) return new Intl.NumberFormat(locale).format(count);
  const [value, unit] = count < 1_000_000 ? [count / 1_000, "k"] : [count / 1_000_000, "M"];
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(value)}${unit}`;
}

/** A readable local date and time for an RFC 3339 timestamp; the raw text if it does not parse. */
export function formatTimestamp(rfc3339: string, locale?: string, timeZone?: string): string {
  const date = new Date(rfc3339);
  if (Number.isNaN(date.getTime())) return rfc3339;
  return new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone,
  }).format(date);
}
