import type { Budgets, RunProjection } from "../../bindings";
import { formatDuration, formatTokens, formatUsd } from "./format";

/** Defaults of a new run: generous, never unbounded. */
export const DEFAULT_BUDGETS: Budgets = {
  max_model_calls: 50,
  max_tool_calls: 100,
  max_input_tokens: 2_000_000,
  max_output_tokens: 200_000,
  max_wall_time_ms: 30 * 60_000,
  max_cost_micro_usd: null,
};

/** Budgets as the user edits them: text fields, wall time in minutes. */
export interface BudgetForm {
  modelCalls: string;
  toolCalls: string;
  inputTokens: string;
  outputTokens: string;
  wallTimeMinutes: string;
  /** USD; "" = no cost limit. */
  maxCostUsd: string;
}

export type BudgetField = keyof BudgetForm;
/** The whole-number budgets (the cost limit is an optional USD amount). */
export type CountBudgetField = Exclude<BudgetField, "maxCostUsd">;

export const BUDGET_FIELDS: { field: CountBudgetField; label: string; unit?: string }[] = [
  { field: "modelCalls", label: "Model calls" },
  { field: "toolCalls", label: "Tool calls" },
  { field: "inputTokens", label: "Input tokens" },
  { field: "outputTokens", label: "Output tokens" },
  { field: "wallTimeMinutes", label: "Time", unit: "min" },
];

export function budgetsToForm(b: Budgets): BudgetForm {
  return {
    modelCalls: String(b.max_model_calls),
    toolCalls: String(b.max_tool_calls),
    inputTokens: String(b.max_input_tokens),
    outputTokens: String(b.max_output_tokens),
    wallTimeMinutes: String(Math.max(1, Math.round(b.max_wall_time_ms / 60_000))),
    maxCostUsd: b.max_cost_micro_usd == null ? "" : String(b.max_cost_micro_usd / 1_000_000),
  };
}

/** A whole number > 0 ("2,000,000" and "2 000 000" are accepted); `null` otherwise. */
export function parsePositiveInteger(text: string): number | null {
  const cleaned = text.trim().replace(/[,_\s]/g, "");
  if (!/^\d+$/.test(cleaned)) return null;
  const value = Number(cleaned);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** The most any USD amount may be (the backend refuses more). */
export const MAX_USD = 1_000_000;

/**
 * A USD amount as people type it ("0.50", "$2", "2.5", ".5"), `null` when it
 * is not a plain non-negative number. Commas are refused rather than guessed
 * at: "2,5" could mean 2.5 or 25.
 */
export function parseUsd(text: string): number | null {
  const cleaned = text.trim().replace(/^\$\s*/, "").replace(/\s*usd$/i, "");
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(cleaned)) return null;
  const usd = Number(cleaned);
  return Number.isFinite(usd) ? usd : null;
}

/** An optional spend limit: "" is no limit, else a positive USD amount in micro-USD. */
export function parseMaxCost(text: string): { micro: number | null; error: null } | { micro: null; error: string } {
  if (text.trim() === "") return { micro: null, error: null };
  const usd = parseUsd(text);
  if (usd === null) {
    const loose = Number(text.replace(/[$\s]/g, ""));
    return Number.isFinite(loose) && loose <= 0
      ? { micro: null, error: "Max cost must be more than $0; leave it empty for no cost limit." }
      : { micro: null, error: "Enter an amount in USD, e.g. 0.50, or leave it empty for no cost limit." };
  }
  if (usd > MAX_USD) return { micro: null, error: "Max cost must be at most $1,000,000." };
  const micro = Math.round(usd * 1_000_000);
  if (micro <= 0) return { micro: null, error: "Max cost must be more than $0; leave it empty for no cost limit." };
  return { micro, error: null };
}

export type BudgetErrors = Partial<Record<BudgetField, string>>;

export function parseBudgets(form: BudgetForm): { budgets: Budgets; errors: null } | { budgets: null; errors: BudgetErrors } {
  const errors: BudgetErrors = {};
  const values = {} as Record<CountBudgetField, number>;
  for (const { field, label } of BUDGET_FIELDS) {
    const value = parsePositiveInteger(form[field]);
    if (value === null) errors[field] = `${label} must be a whole number greater than 0.`;
    else values[field] = value;
  }
  const cost = parseMaxCost(form.maxCostUsd);
  if (cost.error !== null) errors.maxCostUsd = cost.error;
  if (Object.keys(errors).length > 0) return { budgets: null, errors };
  return {
    errors: null,
    budgets: {
      max_model_calls: values.modelCalls,
      max_tool_calls: values.toolCalls,
      max_input_tokens: values.inputTokens,
      max_output_tokens: values.outputTokens,
      max_wall_time_ms: values.wallTimeMinutes * 60_000,
      max_cost_micro_usd: cost.micro,
    },
  };
}

export interface Meter {
  key: string;
  label: string;
  used: number;
  limit: number;
  /** used / limit, clamped to [0, 1]. */
  fraction: number;
  text: string;
  level: "ok" | "high" | "full";
}

function meter(key: string, label: string, used: number, limit: number, show: (n: number) => string): Meter {
  const fraction = limit > 0 ? Math.min(1, Math.max(0, used / limit)) : 1;
  return {
    key,
    label,
    used,
    limit,
    fraction,
    text: `${show(used)} / ${show(limit)}`,
    level: fraction >= 1 ? "full" : fraction >= 0.8 ? "high" : "ok",
  };
}

/** Live usage against each budget of a run; a cost meter only when the run has a cost limit. */
export function budgetMeters(
  p: Pick<RunProjection, "budgets" | "model_calls" | "tool_calls" | "usage" | "cost_micro_usd">,
  elapsedMs: number,
): Meter[] {
  const count = (n: number) => String(n);
  const meters = [
    meter("model_calls", "Model calls", p.model_calls, p.budgets.max_model_calls, count),
    meter("tool_calls", "Tool calls", p.tool_calls, p.budgets.max_tool_calls, count),
    meter("input_tokens", "Input tokens", p.usage.input, p.budgets.max_input_tokens, (n) => formatTokens(n)),
    meter("output_tokens", "Output tokens", p.usage.output, p.budgets.max_output_tokens, (n) => formatTokens(n)),
    meter("wall_time", "Time", elapsedMs, p.budgets.max_wall_time_ms, formatDuration),
  ];
  const limit = p.budgets.max_cost_micro_usd;
  if (limit != null) {
    const spent = p.cost_micro_usd ?? null;
    const cost = meter("cost", "Cost", spent ?? 0, limit, formatUsd);
    // A limit without a known spend cannot happen (the run is refused at start); never show it as $0.
    meters.push(spent === null ? { ...cost, text: `unknown / ${formatUsd(limit)}` } : cost);
  }
  return meters;
}
