import type { Budgets, RunProjection } from "../../bindings";
import { formatDuration, formatTokens } from "./format";

/** Defaults of a new run: generous, never unbounded. */
export const DEFAULT_BUDGETS: Budgets = {
  max_model_calls: 50,
  max_tool_calls: 100,
  max_input_tokens: 2_000_000,
  max_output_tokens: 200_000,
  max_wall_time_ms: 30 * 60_000,
};

/** Budgets as the user edits them: text fields, wall time in minutes. */
export interface BudgetForm {
  modelCalls: string;
  toolCalls: string;
  inputTokens: string;
  outputTokens: string;
  wallTimeMinutes: string;
}

export type BudgetField = keyof BudgetForm;

export const BUDGET_FIELDS: { field: BudgetField; label: string; unit?: string }[] = [
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
  };
}

/** A whole number > 0 ("2,000,000" and "2 000 000" are accepted); `null` otherwise. */
export function parsePositiveInteger(text: string): number | null {
  const cleaned = text.trim().replace(/[,_\s]/g, "");
  if (!/^\d+$/.test(cleaned)) return null;
  const value = Number(cleaned);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

export type BudgetErrors = Partial<Record<BudgetField, string>>;

export function parseBudgets(form: BudgetForm): { budgets: Budgets; errors: null } | { budgets: null; errors: BudgetErrors } {
  const errors: BudgetErrors = {};
  const values = {} as Record<BudgetField, number>;
  for (const { field, label } of BUDGET_FIELDS) {
    const value = parsePositiveInteger(form[field]);
    if (value === null) errors[field] = `${label} must be a whole number greater than 0.`;
    else values[field] = value;
  }
  if (Object.keys(errors).length > 0) return { budgets: null, errors };
  return {
    errors: null,
    budgets: {
      max_model_calls: values.modelCalls,
      max_tool_calls: values.toolCalls,
      max_input_tokens: values.inputTokens,
      max_output_tokens: values.outputTokens,
      max_wall_time_ms: values.wallTimeMinutes * 60_000,
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

/** Live usage against each budget of a run. */
export function budgetMeters(
  p: Pick<RunProjection, "budgets" | "model_calls" | "tool_calls" | "usage">,
  elapsedMs: number,
): Meter[] {
  const count = (n: number) => String(n);
  return [
    meter("model_calls", "Model calls", p.model_calls, p.budgets.max_model_calls, count),
    meter("tool_calls", "Tool calls", p.tool_calls, p.budgets.max_tool_calls, count),
    meter("input_tokens", "Input tokens", p.usage.input, p.budgets.max_input_tokens, (n) => formatTokens(n)),
    meter("output_tokens", "Output tokens", p.usage.output, p.budgets.max_output_tokens, (n) => formatTokens(n)),
    meter("wall_time", "Time", elapsedMs, p.budgets.max_wall_time_ms, formatDuration),
  ];
}
