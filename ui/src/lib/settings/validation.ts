import type { ApprovalMode, PriceView, ToolModeView } from "../../bindings";
import { DEFAULT_BUDGETS, MAX_USD, budgetsToForm, parseBudgets, parsePositiveInteger, parseUsd, type BudgetErrors, type BudgetForm } from "../runs/budgets";
import { PROTOCOLS, isProtocol, type KeySource, type ProfileSettings, type ProviderInput, type ProviderProtocol, type ProviderSettings } from "./types";

/** Reserved: the offline demo model. */
const RESERVED_NAMES = new Set(["demo"]);

export interface ProviderForm {
  name: string;
  protocol: ProviderProtocol;
  baseUrl: string;
  model: string;
  keyKind: KeySource["kind"];
  keyVariable: string;
  /** "json-text" for models without native tool calling. */
  toolMode: ToolModeView;
  /** USD per million tokens; all three empty = no price (cost unknown). */
  priceInput: string;
  priceOutput: string;
  /** Optional: cached input costs as much as other input without it. */
  priceCachedInput: string;
}

export type PriceField = "priceInput" | "priceOutput" | "priceCachedInput";

export type ProviderErrors = Partial<Record<"name" | "baseUrl" | "model" | "keyVariable" | PriceField, string>>;

export function emptyProviderForm(): ProviderForm {
  return {
    name: "",
    protocol: "openai-chat",
    baseUrl: PROTOCOLS[0].baseUrl,
    model: "",
    keyKind: "keychain",
    keyVariable: "",
    toolMode: "native",
    priceInput: "",
    priceOutput: "",
    priceCachedInput: "",
  };
}

const priceText = (usd: number | null | undefined) => (usd == null ? "" : String(usd));

export function providerToForm(p: ProviderSettings): ProviderForm {
  return {
    name: p.name,
    protocol: isProtocol(p.protocol) ? p.protocol : "openai-chat",
    baseUrl: p.baseUrl,
    model: p.model,
    keyKind: p.keySource.kind,
    keyVariable: p.keySource.kind === "env" ? p.keySource.variable : "",
    toolMode: p.toolMode,
    priceInput: priceText(p.price?.inputPerMtok),
    priceOutput: priceText(p.price?.outputPerMtok),
    priceCachedInput: priceText(p.price?.cachedInputPerMtok),
  };
}

const PRICE_LABELS: Record<PriceField, string> = {
  priceInput: "Input price",
  priceOutput: "Output price",
  priceCachedInput: "Cached input price",
};

/**
 * The provider's price from the form: `null` when all three fields are
 * empty (cost unknown); input and output are both needed once any is given.
 */
export function parsePrice(form: Pick<ProviderForm, PriceField>): { price: PriceView | null; errors: null } | { price: null; errors: ProviderErrors } {
  const errors: ProviderErrors = {};
  const fields: PriceField[] = ["priceInput", "priceOutput", "priceCachedInput"];
  if (fields.every((f) => form[f].trim() === "")) return { price: null, errors: null };
  const values: Partial<Record<PriceField, number>> = {};
  for (const field of fields) {
    const text = form[field].trim();
    if (text === "") {
      if (field !== "priceCachedInput") errors[field] = `${PRICE_LABELS[field]} is needed too, or clear all prices.`;
      continue;
    }
    const usd = parseUsd(text);
    if (usd === null) errors[field] = `${PRICE_LABELS[field]} must be a number of USD, 0 or more, e.g. 2.50.`;
    else if (usd > MAX_USD) errors[field] = `${PRICE_LABELS[field]} must be at most $1,000,000 per million tokens.`;
    else values[field] = usd;
  }
  if (Object.keys(errors).length > 0 || values.priceInput === undefined || values.priceOutput === undefined) return { price: null, errors };
  return {
    errors: null,
    price: { inputPerMtok: values.priceInput, outputPerMtok: values.priceOutput, cachedInputPerMtok: values.priceCachedInput ?? null },
  };
}

function nameError(name: string, what: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed === "") return `Give the ${what} a name.`;
  if (trimmed.length > 64) return "Use at most 64 characters.";
  if (!/^[\w.-][\w .-]*$/.test(trimmed)) return "Use letters, digits, spaces, '.', '-' or '_'.";
  return undefined;
}

/** `null` when the text is an absolute http(s) URL, else what is wrong. */
export function urlError(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === "") return "Enter the base URL, e.g. https://api.openai.com/v1.";
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return "Enter a full URL starting with http:// or https://.";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "The URL must start with http:// or https://.";
  if (url.hostname === "") return "The URL needs a host name.";
  return null;
}

export function validateProvider(form: ProviderForm): { input: ProviderInput; errors: null } | { input: null; errors: ProviderErrors } {
  const errors: ProviderErrors = {};
  const name = form.name.trim();
  const badName = nameError(name, "provider");
  if (badName) errors.name = badName;
  else if (RESERVED_NAMES.has(name.toLowerCase())) errors.name = `"${name}" is reserved for the offline demo model.`;
  const badUrl = urlError(form.baseUrl);
  if (badUrl) errors.baseUrl = badUrl;
  if (form.model.trim() === "") errors.model = "Enter the model name, e.g. gpt-4.1 or claude-sonnet-4.";
  const variable = form.keyVariable.trim();
  if (form.keyKind === "env" && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) {
    errors.keyVariable = "Enter an environment variable name, e.g. OPENAI_API_KEY.";
  }
  const price = parsePrice(form);
  if (price.errors) Object.assign(errors, price.errors);
  if (Object.keys(errors).length > 0) return { input: null, errors };
  const keySource: KeySource = form.keyKind === "env" ? { kind: "env", variable } : { kind: form.keyKind };
  return {
    errors: null,
    input: {
      name,
      protocol: form.protocol,
      baseUrl: form.baseUrl.trim(),
      model: form.model.trim(),
      keySource,
      toolMode: form.toolMode,
      price: price.price,
    },
  };
}

export interface ProfileForm {
  name: string;
  /** "" = leave the provider to each run. */
  provider: string;
  approvalMode: ApprovalMode;
  budgets: BudgetForm;
  maxContextBytes: string;
  maxToolResultBytes: string;
}

export type ProfileErrors = Partial<Record<"name" | "maxContextBytes" | "maxToolResultBytes", string>> & {
  budgets?: BudgetErrors;
};

export const DEFAULT_CONTEXT_CAPS = { max_context_bytes: 400_000, max_tool_result_bytes: 16_384 };

export function emptyProfileForm(provider = ""): ProfileForm {
  return {
    name: "",
    provider,
    approvalMode: "ask_writes",
    budgets: budgetsToForm(DEFAULT_BUDGETS),
    maxContextBytes: String(DEFAULT_CONTEXT_CAPS.max_context_bytes),
    maxToolResultBytes: String(DEFAULT_CONTEXT_CAPS.max_tool_result_bytes),
  };
}

export function profileToForm(p: ProfileSettings): ProfileForm {
  return {
    name: p.name,
    provider: p.provider ?? "",
    approvalMode: p.approvalMode,
    budgets: budgetsToForm(p.budgets),
    maxContextBytes: String(p.contextCaps.max_context_bytes),
    maxToolResultBytes: String(p.contextCaps.max_tool_result_bytes),
  };
}

export function validateProfile(form: ProfileForm): { profile: ProfileSettings; errors: null } | { profile: null; errors: ProfileErrors } {
  const errors: ProfileErrors = {};
  const badName = nameError(form.name, "profile");
  if (badName) errors.name = badName;
  const budgets = parseBudgets(form.budgets);
  if (budgets.errors) errors.budgets = budgets.errors;
  const contextBytes = parsePositiveInteger(form.maxContextBytes);
  if (contextBytes === null) errors.maxContextBytes = "Context size must be a whole number of bytes greater than 0.";
  const toolBytes = parsePositiveInteger(form.maxToolResultBytes);
  if (toolBytes === null) errors.maxToolResultBytes = "Tool result size must be a whole number of bytes greater than 0.";
  if (Object.keys(errors).length > 0 || budgets.budgets === null || contextBytes === null || toolBytes === null) {
    return { profile: null, errors };
  }
  return {
    errors: null,
    profile: {
      name: form.name.trim(),
      provider: form.provider.trim() === "" ? null : form.provider.trim(),
      approvalMode: form.approvalMode,
      budgets: budgets.budgets,
      contextCaps: { max_context_bytes: contextBytes, max_tool_result_bytes: toolBytes },
    },
  };
}
