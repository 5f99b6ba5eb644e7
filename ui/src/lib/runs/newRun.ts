import { DEMO_PROVIDER } from "../../bindings";
import type { ApprovalMode, ImageUpload, StartRunRequest } from "../../bindings";
import { defaultWorktreeForm, worktreeInput, worktreeNameError, type WorktreeForm } from "../worktrees/input";
import { DEFAULT_BUDGETS, budgetsToForm, parseBudgets, type BudgetErrors, type BudgetForm } from "./budgets";

/** Provider name of the scripted, offline demo model (from Rust). */
export { DEMO_PROVIDER };

export const APPROVAL_MODES: { value: ApprovalMode; label: string; hint: string }[] = [
  { value: "ask_writes", label: "Ask for every write", hint: "Reads run without asking; every change is asked." },
  { value: "ask_all", label: "Ask for everything", hint: "Every tool call waits for your approval." },
  { value: "allow_all", label: "Allow all", hint: "Nothing is asked; hard denials still apply." },
];

export interface NewRunForm {
  goal: string;
  provider: string;
  approvalMode: ApprovalMode;
  budgets: BudgetForm;
  /** "In a new worktree" and its fields. */
  worktree: WorktreeForm;
  /** "Plan first": the run only reads and ends with a plan to approve. */
  planMode: boolean;
  /** "Helpers": the run may hand work to read-only child runs (the `task` tool). */
  delegate: boolean;
}

export const HELPERS_HINT = "The run may hand parts of the work to read-only helper runs; their approvals are asked here.";

export interface NewRunErrors {
  goal?: string;
  provider?: string;
  budgets?: BudgetErrors;
  worktreeName?: string;
}

export function defaultNewRunForm(provider: string): NewRunForm {
  return { goal: "", provider, approvalMode: "ask_writes", budgets: budgetsToForm(DEFAULT_BUDGETS), worktree: defaultWorktreeForm(), planMode: false, delegate: false };
}

/** The cost field's hint when the chosen provider has no price. */
export function unpricedCostHint(provider: string): string {
  const who = provider === DEMO_PROVIDER ? "The demo model" : provider;
  return `${who} has no price: cost shows as unknown and no limit can be set.`;
}

/** Why a cost limit cannot be used with this provider (the backend refuses the run too). */
export function unpricedCostLimitError(provider: string): string {
  return provider === DEMO_PROVIDER
    ? "The offline demo model has no price, so a cost limit cannot be checked. Leave this empty."
    : `${provider} has no price, so a cost limit cannot be checked. Add its price in Settings, or leave this empty.`;
}

/**
 * Checks the form and builds the request, or says what is wrong with which
 * field. `priced`: whether the chosen provider has a price (a cost limit
 * needs one); `images`: those attached to the goal.
 */
export function buildStartRequest(
  workspaceId: string,
  form: NewRunForm,
  priced = true,
  images: ImageUpload[] = [],
): { request: StartRunRequest; errors: null } | { request: null; errors: NewRunErrors } {
  const errors: NewRunErrors = {};
  const goal = form.goal.trim();
  if (goal === "") errors.goal = "Describe what the agent should do.";
  if (form.provider.trim() === "") errors.provider = "Choose a provider.";
  const budgets = parseBudgets(form.budgets);
  if (budgets.errors) errors.budgets = budgets.errors;
  else if (budgets.budgets.max_cost_micro_usd != null && !priced) {
    errors.budgets = { maxCostUsd: unpricedCostLimitError(form.provider) };
  }
  const nameError = form.worktree.enabled ? worktreeNameError(form.worktree.name) : null;
  if (nameError) errors.worktreeName = nameError;
  if (Object.keys(errors).length > 0 || budgets.budgets === null) return { request: null, errors };
  return {
    errors: null,
    request: {
      workspaceId,
      goal,
      provider: form.provider,
      approvalMode: form.approvalMode,
      budgets: budgets.budgets,
      images,
      worktree: worktreeInput(form.worktree),
      ...(form.planMode ? { planMode: true } : {}),
      ...(form.delegate ? { delegate: true } : {}),
    },
  };
}

/** Label of a run's provider for people; the demo is always called out. */
export function providerLabel(provider: string, model: string): string {
  if (provider === DEMO_PROVIDER) return "Offline demo model (scripted)";
  return model ? `${provider} · ${model}` : provider;
}
