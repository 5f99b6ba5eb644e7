import { DEMO_PROVIDER } from "../../bindings";
import type { ApprovalMode, CommandRule, CommandSettings, Delegation, PriceView, RuleDecision, ToolModeView } from "../../bindings";
import { DEFAULT_BUDGETS, MAX_USD, budgetsToForm, parseBudgets, parsePositiveInteger, parseUsd, type BudgetErrors, type BudgetForm } from "../runs/budgets";
import { DEFAULT_COMPACT_AT_PERMILLE, compactionToForm, contextWindowToText, parseCompaction, parseContextWindow } from "./context";
import { mcpRulesToForm, validateMcpRules, type McpRuleForm } from "./mcp";
import { visionFromForm, visionToForm, type VisionChoice } from "./vision";
import { PROTOCOLS, isProtocol, type KeySource, type ProfileSettings, type ProviderInput, type ProviderProtocol, type ProviderSettings } from "./types";

/** Reserved: the offline demo model. */
const RESERVED_NAMES = new Set<string>([DEMO_PROVIDER]);

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
  /** Tokens; "" = the model family's default. */
  contextWindow: string;
  /** Whether the model reads images ("auto": as its model family). */
  vision: VisionChoice;
}

export type PriceField = "priceInput" | "priceOutput" | "priceCachedInput";

export type ProviderErrors = Partial<Record<"name" | "baseUrl" | "model" | "keyVariable" | "contextWindow" | PriceField, string>>;

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
    contextWindow: "",
    vision: "auto",
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
    contextWindow: contextWindowToText(p.contextWindow),
    vision: visionToForm(p.vision),
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
  const window = parseContextWindow(form.contextWindow);
  if (window.error !== null) errors.contextWindow = window.error;
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
      contextWindow: window.value,
      vision: visionFromForm(form.vision),
    },
  };
}

// ---- command settings --------------------------------------------------

/** Like the backend's defaults: sandboxed, no network, Rust / Node / Python caches readable. */
export const DEFAULT_COMMAND_SETTINGS: CommandSettings = {
  sandbox: true,
  network: false,
  max_timeout_secs: 600,
  toolchain_dirs: [".cargo", ".rustup", ".npm", ".cache/pip", ".local/lib", ".local/bin"],
  env: [],
  rules: [],
};

/** The longest command time a profile may allow (what one call may ask for, 24 h). */
export const MAX_COMMAND_SECS = 86_400;

export interface CommandRuleForm {
  prefix: string;
  decision: RuleDecision;
}

/** Command settings as edited: lists one entry per line, rules as rows. */
export interface CommandForm {
  sandbox: boolean;
  network: boolean;
  maxTimeoutSecs: string;
  toolchainDirs: string;
  env: string;
  rules: CommandRuleForm[];
}

export type CommandErrors = Partial<Record<"maxTimeoutSecs" | "toolchainDirs" | "env", string>> & {
  /** By row index. */
  rules?: Record<number, string>;
};

export function commandsToForm(c: CommandSettings): CommandForm {
  return {
    sandbox: c.sandbox,
    network: c.network,
    maxTimeoutSecs: String(c.max_timeout_secs),
    toolchainDirs: c.toolchain_dirs.join("\n"),
    env: c.env.join("\n"),
    rules: c.rules.map((r) => ({ prefix: r.prefix, decision: r.decision })),
  };
}

/** Characters that make a prefix shell syntax rather than plain words. */
const SHELL_SYNTAX = /[;|&$`()<>]/;
/** Characters a plain word cannot hold (quoting, escapes, globs, comments, home). */
const NOT_PLAIN = /['"\\*?[\]{}~#!]/;

/**
 * `null` when a command prefix is plain words (`cargo test`), else what is
 * wrong: the backend matches rules word by word and refuses shell syntax.
 */
export function prefixError(prefix: string): string | null {
  const trimmed = prefix.trim();
  if (trimmed === "") return "Enter the words a command starts with, e.g. cargo test.";
  const syntax = SHELL_SYNTAX.exec(trimmed);
  if (syntax) return `Use plain words only: “${syntax[0]}” is shell syntax.`;
  const odd = NOT_PLAIN.exec(trimmed);
  if (odd) return `Use plain words only: no quotes, escapes or wildcards (“${odd[0]}”).`;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(trimmed)) return "Start with the command, not a variable assignment.";
  return null;
}

/** `null` when a toolchain folder is a plain folder under the home folder (`.cargo`, `.cache/pip`). */
export function toolchainDirError(dir: string): string | null {
  if (dir.startsWith("/")) return `“${dir}” is an absolute path: give a folder under your home folder, like .cargo.`;
  if (dir.startsWith("~")) return `“${dir}”: leave out ~/, folders are already under your home folder.`;
  const parts = dir.replace(/\/+$/, "").split("/");
  if (parts.some((p) => p === ".." || p === ".")) return `“${dir}” must not contain “..” or “.”: give a folder under your home folder, like .cargo.`;
  if (parts.some((p) => p === "")) return `“${dir}” has an empty part (“//”).`;
  return null;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter((l) => l !== "");

export function validateCommands(form: CommandForm): { commands: CommandSettings; errors: null } | { commands: null; errors: CommandErrors } {
  const errors: CommandErrors = {};
  const timeout = parsePositiveInteger(form.maxTimeoutSecs);
  if (timeout === null) errors.maxTimeoutSecs = "Max command time must be a whole number of seconds greater than 0.";
  else if (timeout > MAX_COMMAND_SECS) errors.maxTimeoutSecs = `Max command time must be at most ${MAX_COMMAND_SECS.toLocaleString("en-US")} seconds (24 hours).`;
  const dirs = lines(form.toolchainDirs);
  const badDir = dirs.map(toolchainDirError).find((e) => e !== null);
  if (badDir) errors.toolchainDirs = badDir;
  const env = lines(form.env);
  const badEnv = env.find((name) => !ENV_NAME.test(name));
  if (badEnv !== undefined) errors.env = `“${badEnv}” is not a variable name: letters, digits and _, not starting with a digit.`;
  const rules: CommandRule[] = [];
  form.rules.forEach((rule, i) => {
    const bad = prefixError(rule.prefix);
    if (bad) (errors.rules ??= {})[i] = bad;
    else rules.push({ prefix: rule.prefix.trim().split(/\s+/).join(" "), decision: rule.decision });
  });
  if (Object.keys(errors).length > 0 || timeout === null) return { commands: null, errors };
  return { errors: null, commands: { sandbox: form.sandbox, network: form.network, max_timeout_secs: timeout, toolchain_dirs: dirs, env, rules } };
}

// ---- profiles ------------------------------------------------------------

export interface ProfileForm {
  name: string;
  /** "" = leave the provider to each run. */
  provider: string;
  approvalMode: ApprovalMode;
  budgets: BudgetForm;
  maxContextBytes: string;
  maxToolResultBytes: string;
  /** Off: a request over the model's window fails the run instead. */
  compaction: boolean;
  /** A share of the window, e.g. "0.85" (kept while compaction is off). */
  compactAt: string;
  commands: CommandForm;
  /** Per MCP server or `server.tool`: allow / ask / deny. */
  mcpRules: McpRuleForm[];
  /** The profile's helpers (config `delegate`), kept as they are: the form does not edit them. */
  delegation?: Delegation | null;
}

export type ProfileErrors = Partial<Record<"name" | "maxContextBytes" | "maxToolResultBytes" | "compactAt", string>> & {
  budgets?: BudgetErrors;
  commands?: CommandErrors;
  /** By rule row index. */
  mcpRules?: Record<number, string>;
};

export const DEFAULT_CONTEXT_CAPS = { max_context_bytes: 400_000, max_tool_result_bytes: 16_384, compact_at_permille: DEFAULT_COMPACT_AT_PERMILLE };

export function emptyProfileForm(provider = ""): ProfileForm {
  return {
    name: "",
    provider,
    approvalMode: "ask_writes",
    budgets: budgetsToForm(DEFAULT_BUDGETS),
    maxContextBytes: String(DEFAULT_CONTEXT_CAPS.max_context_bytes),
    maxToolResultBytes: String(DEFAULT_CONTEXT_CAPS.max_tool_result_bytes),
    ...compactionToForm(DEFAULT_CONTEXT_CAPS.compact_at_permille),
    commands: commandsToForm(DEFAULT_COMMAND_SETTINGS),
    mcpRules: [],
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
    ...compactionToForm(p.contextCaps.compact_at_permille),
    commands: commandsToForm(p.commands),
    mcpRules: mcpRulesToForm(p.mcpRules),
    delegation: p.delegation ?? null,
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
  const compaction = parseCompaction(form);
  if (compaction.error !== null) errors.compactAt = compaction.error;
  const commands = validateCommands(form.commands);
  if (commands.errors) errors.commands = commands.errors;
  const mcpRules = validateMcpRules(form.mcpRules);
  if (mcpRules.errors) errors.mcpRules = mcpRules.errors;
  if (Object.keys(errors).length > 0 || budgets.budgets === null || contextBytes === null || toolBytes === null || commands.commands === null || mcpRules.rules === null) {
    return { profile: null, errors };
  }
  return {
    errors: null,
    profile: {
      name: form.name.trim(),
      provider: form.provider.trim() === "" ? null : form.provider.trim(),
      approvalMode: form.approvalMode,
      budgets: budgets.budgets,
      contextCaps: { max_context_bytes: contextBytes, max_tool_result_bytes: toolBytes, compact_at_permille: compaction.value },
      commands: commands.commands,
      mcpRules: mcpRules.rules,
      ...(form.delegation ? { delegation: form.delegation } : {}),
    },
  };
}
