import type { BudgetKind, RunProjection, RunStatus, RunStatusKind } from "../../bindings";
import { formatUsd, statusInfo, type StatusTone } from "./format";

/** A projection's status kind, as the run list spells it (one spelling across IPC). */
export function statusKind(status: RunStatus): RunStatusKind {
  return status.kind;
}

/** A run that will not change again by itself. Interrupted is not terminal: it can resume. */
export function isTerminal(status: RunStatus): boolean {
  return (
    status.kind === "succeeded" ||
    status.kind === "failed" ||
    status.kind === "cancelled" ||
    status.kind === "budget_exhausted"
  );
}

/** Still moving (or waiting for the user) in this process. */
export function isLive(status: RunStatus): boolean {
  return status.kind === "created" || status.kind === "running" || status.kind === "awaiting_approval";
}

export interface RunVerdict {
  kind: RunStatusKind;
  label: string;
  tone: StatusTone;
  /** One sentence for the banner; never claims success while anything is unproven. */
  detail: string | null;
}

const BUDGET_NAMES: Record<BudgetKind, string> = {
  model_calls: "model calls",
  tool_calls: "tool calls",
  input_tokens: "input tokens",
  output_tokens: "output tokens",
  wall_time: "wall time",
  cost: "cost",
};

/** A budget's name for people ("wall time"); unknown kinds as they come. */
export function budgetName(which: string): string {
  return Object.hasOwn(BUDGET_NAMES, which) ? BUDGET_NAMES[which as BudgetKind] : which.replace(/_/g, " ");
}

/**
 * Why a run stopped on a budget. The cost limit is checked before each
 * call against what it could cost at most, so it stops a run below the
 * limit: say so, or "ran out" reads as a bug.
 */
function budgetStopText(which: string, maxCostMicroUsd: number | null | undefined): string {
  if (which === "cost") {
    const limit = maxCostMicroUsd == null ? "" : ` (${formatUsd(maxCostMicroUsd)})`;
    return `Stopped before the next model call: it could have taken the cost past the limit${limit}.`;
  }
  return `Stopped: the ${budgetName(which)} budget ran out.`;
}

/**
 * How a run's outcome is shown. A success with side effects of unknown
 * outcome is downgraded to "attention", and interruptions and failures are
 * "danger": only a clean success is ever green.
 */
export function verdict(p: Pick<RunProjection, "status" | "unknown_effects" | "pending_approval" | "last_error" | "budgets">): RunVerdict {
  const kind = statusKind(p.status);
  const base = statusInfo(kind);
  const unknown =
    p.unknown_effects > 0
      ? `${p.unknown_effects} side effect${p.unknown_effects === 1 ? "" : "s"} with unknown outcome — check the files before trusting the result.`
      : null;
  switch (p.status.kind) {
    case "succeeded":
      return unknown
        ? { kind, label: "Succeeded · effects unknown", tone: "attention", detail: unknown }
        : { kind, label: base.label, tone: "success", detail: null };
    case "failed":
      return { kind, label: base.label, tone: "danger", detail: p.status.reason };
    case "budget_exhausted":
      return {
        kind,
        label: p.status.which === "cost" ? "Cost limit reached" : base.label,
        tone: "attention",
        detail: budgetStopText(p.status.which, p.budgets.max_cost_micro_usd),
      };
    case "cancelled":
      return { kind, label: base.label, tone: "neutral", detail: unknown };
    case "interrupted": {
      const resume = p.pending_approval
        ? "The app stopped while this run waited for approval. Answer the request below to resume it."
        : "The app stopped while this run was in progress; it did not finish.";
      return { kind, label: "Interrupted", tone: "danger", detail: unknown ? `${resume} ${unknown}` : resume };
    }
    default:
      return { kind, label: base.label, tone: base.tone, detail: unknown };
  }
}
