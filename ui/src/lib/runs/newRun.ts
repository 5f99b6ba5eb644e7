import type { ApprovalMode, StartRunRequest } from "../../bindings";
import { DEFAULT_BUDGETS, budgetsToForm, parseBudgets, type BudgetErrors, type BudgetForm } from "./budgets";

/** Provider name of the scripted, offline demo model. */
export const DEMO_PROVIDER = "demo";

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
}

export interface NewRunErrors {
  goal?: string;
  provider?: string;
  budgets?: BudgetErrors;
}

export function defaultNewRunForm(provider: string): NewRunForm {
  return { goal: "", provider, approvalMode: "ask_writes", budgets: budgetsToForm(DEFAULT_BUDGETS) };
}

/** Checks the form and builds the request, or says what is wrong with which field. */
export function buildStartRequest(
  workspaceId: string,
  form: NewRunForm,
): { request: StartRunRequest; errors: null } | { request: null; errors: NewRunErrors } {
  const errors: NewRunErrors = {};
  const goal = form.goal.trim();
  if (goal === "") errors.goal = "Describe what the agent should do.";
  if (form.provider.trim() === "") errors.provider = "Choose a provider.";
  const budgets = parseBudgets(form.budgets);
  if (budgets.errors) errors.budgets = budgets.errors;
  if (Object.keys(errors).length > 0 || budgets.budgets === null) return { request: null, errors };
  return {
    errors: null,
    request: {
      workspaceId,
      goal,
      provider: form.provider,
      approvalMode: form.approvalMode,
      budgets: budgets.budgets,
    },
  };
}

/** Label of a run's provider for people; the demo is always called out. */
export function providerLabel(provider: string, model: string): string {
  if (provider === DEMO_PROVIDER) return "Offline demo model (scripted)";
  return model ? `${provider} · ${model}` : provider;
}
