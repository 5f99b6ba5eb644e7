// MCP servers in Settings: the form as edited <-> the backend's view, with
// the config's own checks (validate_server) run before anything is sent,
// and the profile's per-server/tool rules.
import type { ErrorCode, McpServerView, McpToolRecord, McpToolView, RuleDecision, SecretSourceView } from "../../bindings";
import { errorTitle } from "../ipc/errors";
import { parsePositiveInteger } from "../runs/budgets";

export type SecretKind = SecretSourceView["kind"];
export type BearerKind = SecretKind | "none";

/** Where one value comes from, as edited. `secret` is typed here only, sent to the keychain, never read back. */
export interface SecretForm<K extends string = SecretKind> {
  kind: K;
  /** literal */
  value: string;
  /** env */
  variable: string;
  /** keychain: a new value to store; empty keeps what is stored. */
  secret: string;
  /** keychain: stored already (under `storedAs`). */
  present: boolean;
}

export interface EnvRowForm {
  name: string;
  source: SecretForm;
  /** The name the stored keychain value belongs to (null: a new row). */
  storedAs: string | null;
}

export interface McpServerForm {
  name: string;
  enabled: boolean;
  transport: "stdio" | "http";
  command: string;
  /** One argument per line. */
  args: string;
  env: EnvRowForm[];
  url: string;
  bearer: SecretForm<BearerKind>;
  /** Empty: the backend's default. */
  startupTimeoutSecs: string;
  toolTimeoutSecs: string;
}

export type McpServerField = "name" | "command" | "url" | "bearer" | "startupTimeoutSecs" | "toolTimeoutSecs";

export type McpServerErrors = Partial<Record<McpServerField, string>> & {
  /** By env row index. */
  env?: Record<number, { name?: string; source?: string }>;
};

/** A keychain value to store once the server is saved: `name` is the env variable or "bearer_token". */
export interface McpSecret {
  name: string;
  value: string;
}

/** The keychain name of an HTTP server's token (entry `mcp:SERVER:bearer_token`). */
export const BEARER_TOKEN = "bearer_token";

/** Timeouts travel as u32 seconds. */
const MAX_TIMEOUT_SECS = 4_294_967_295;

export const SECRET_KINDS: { value: SecretKind; label: string }[] = [
  { value: "literal", label: "Value" },
  { value: "env", label: "Environment variable" },
  { value: "keychain", label: "OS keychain" },
];

const emptySecret = <K extends string>(kind: K): SecretForm<K> => ({ kind, value: "", variable: "", secret: "", present: false });

export function emptyEnvRow(): EnvRowForm {
  return { name: "", source: emptySecret("literal"), storedAs: null };
}

export function emptyMcpServerForm(): McpServerForm {
  return {
    name: "",
    enabled: true,
    transport: "stdio",
    command: "",
    args: "",
    env: [],
    url: "",
    bearer: emptySecret("none"),
    startupTimeoutSecs: "",
    toolTimeoutSecs: "",
  };
}

function secretToForm(s: SecretSourceView): SecretForm {
  return {
    kind: s.kind,
    value: s.kind === "literal" ? s.value : "",
    variable: s.kind === "env" ? s.variable : "",
    secret: "",
    present: s.kind === "keychain" && s.present,
  };
}

export function mcpServerToForm(s: McpServerView): McpServerForm {
  const form = emptyMcpServerForm();
  form.name = s.name;
  form.enabled = s.enabled;
  form.startupTimeoutSecs = s.startupTimeoutSecs === null ? "" : String(s.startupTimeoutSecs);
  form.toolTimeoutSecs = s.toolTimeoutSecs === null ? "" : String(s.toolTimeoutSecs);
  if (s.transport.kind === "stdio") {
    form.command = s.transport.command;
    form.args = s.transport.args.join("\n");
    form.env = s.transport.env.map((v) => ({ name: v.name, source: secretToForm(v.source), storedAs: v.name }));
  } else {
    form.transport = "http";
    form.url = s.transport.url;
    if (s.transport.bearer_token) form.bearer = secretToForm(s.transport.bearer_token);
  }
  return form;
}

/** Like the config: letters, digits, `-` and `_` (the name prefixes its tools' names). */
export function serverNameError(name: string): string | null {
  if (name === "") return "Give the server a name, e.g. everything or github.";
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return "Use letters, digits, '-' and '_' only: the name prefixes its tools' names.";
  return null;
}

export function isVariableName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

/** `null` when the URL is one the backend accepts (http:// or https://, with a host). */
export function mcpUrlError(text: string): string | null {
  if (text === "") return "Enter the server's URL, e.g. http://127.0.0.1:3001/mcp.";
  if (!/^https?:\/\//.test(text)) return "The URL must start with http:// or https://.";
  try {
    if (new URL(text).hostname === "") return "The URL needs a host name.";
  } catch {
    return "Enter a full URL, e.g. https://example.com/mcp.";
  }
  return null;
}

function timeoutError(text: string, what: string): string | null {
  if (text.trim() === "") return null;
  const secs = parsePositiveInteger(text);
  if (secs === null) return `${what} must be a whole number of seconds greater than 0, or empty for the default.`;
  if (secs > MAX_TIMEOUT_SECS) return `${what} is too long.`;
  return null;
}

/** What is wrong with a value's source, or null. `label` names the value in messages. */
function secretError(s: SecretForm<BearerKind>, label: string): string | null {
  if (s.kind === "env" && !isVariableName(s.variable.trim())) return `Enter the environment variable ${label} comes from, e.g. MY_TOKEN.`;
  // The config spells a keychain reference as the literal "keychain".
  if (s.kind === "literal" && s.value === "keychain") return `“keychain” as a value means the OS keychain: choose OS keychain for ${label} instead.`;
  return null;
}

function secretToView(s: SecretForm): SecretSourceView {
  if (s.kind === "env") return { kind: "env", variable: s.variable.trim() };
  if (s.kind === "keychain") return { kind: "keychain", present: s.present };
  return { kind: "literal", value: s.value };
}

const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter((l) => l !== "");

export function validateMcpServer(
  form: McpServerForm,
): { server: McpServerView; secrets: McpSecret[]; errors: null } | { server: null; secrets: null; errors: McpServerErrors } {
  const errors: McpServerErrors = {};
  const name = form.name.trim();
  const badName = serverNameError(name);
  if (badName) errors.name = badName;
  for (const [field, what] of [["startupTimeoutSecs", "Startup timeout"], ["toolTimeoutSecs", "Tool timeout"]] as const) {
    const bad = timeoutError(form[field], what);
    if (bad) errors[field] = bad;
  }
  const secrets: McpSecret[] = [];
  const keep = (secretName: string, s: SecretForm<BearerKind>) => {
    if (s.kind === "keychain" && s.secret.trim() !== "") secrets.push({ name: secretName, value: s.secret.trim() });
  };
  let transport: McpServerView["transport"];
  if (form.transport === "stdio") {
    const command = form.command.trim();
    if (command === "") errors.command = "Enter the program that starts the server, e.g. npx.";
    const seen = new Set<string>();
    form.env.forEach((row, i) => {
      const varName = row.name.trim();
      const rowErrors: { name?: string; source?: string } = {};
      if (!isVariableName(varName)) rowErrors.name = "A variable name: letters, digits and _, not starting with a digit.";
      else if (seen.has(varName)) rowErrors.name = `${varName} is given twice.`;
      seen.add(varName);
      const badSource = secretError(row.source, varName || "it");
      if (badSource) rowErrors.source = badSource;
      if (rowErrors.name || rowErrors.source) (errors.env ??= {})[i] = rowErrors;
      keep(varName, row.source);
    });
    const env = form.env.map((row) => ({ name: row.name.trim(), source: secretToView(row.source) }));
    transport = { kind: "stdio", command, args: lines(form.args), env };
  } else {
    const url = form.url.trim();
    const badUrl = mcpUrlError(url);
    if (badUrl) errors.url = badUrl;
    const badToken =
      form.bearer.kind === "none" ? null : form.bearer.kind === "literal" && form.bearer.value.trim() === "" ? "Enter the token, or choose None." : secretError(form.bearer, "the token");
    if (badToken) errors.bearer = badToken;
    keep(BEARER_TOKEN, form.bearer);
    const bearer = form.bearer;
    transport = { kind: "http", url, bearer_token: bearer.kind === "none" ? null : secretToView({ ...bearer, kind: bearer.kind }) };
  }
  if (Object.keys(errors).length > 0) return { server: null, secrets: null, errors };
  const timeout = (text: string) => (text.trim() === "" ? null : parsePositiveInteger(text));
  return {
    errors: null,
    secrets,
    server: {
      name,
      enabled: form.enabled,
      transport,
      startupTimeoutSecs: timeout(form.startupTimeoutSecs),
      toolTimeoutSecs: timeout(form.toolTimeoutSecs),
    },
  };
}

/** A keychain value's state in the form: a new one typed, stored, or missing. */
export function secretState(s: SecretForm<BearerKind>, storedUnder: boolean): "new" | "stored" | "not stored" {
  if (s.secret.trim() !== "") return "new";
  return s.present && storedUnder ? "stored" : "not stored";
}

// ---- presenting servers and tools ----------------------------------------

const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word));

/** One line: "stdio: npx -y @modelcontextprotocol/server-everything" or "http: https://…". */
export function transportSummary(s: McpServerView): string {
  if (s.transport.kind === "http") return `http: ${s.transport.url}`;
  return `stdio: ${[s.transport.command, ...s.transport.args].map(shellWord).join(" ")}`;
}

/** The keychain values of a server that are not stored yet (it cannot start without them). */
export function missingSecrets(s: McpServerView): string[] {
  if (s.transport.kind === "http") {
    const token = s.transport.bearer_token;
    return token?.kind === "keychain" && !token.present ? [BEARER_TOKEN] : [];
  }
  return s.transport.env.filter((v) => v.source.kind === "keychain" && !v.source.present).map((v) => v.name);
}

/** A tool as both Test and the timeline show it. */
export interface McpToolInfo {
  exposedName: string;
  title: string | null;
  description: string;
  readOnlyHint: boolean | null;
  destructiveHint: boolean | null;
}

export const toolFromView = (t: McpToolView): McpToolInfo => t;

export function toolFromRecord(t: McpToolRecord): McpToolInfo {
  return { exposedName: t.name, title: t.title ?? null, description: t.description, readOnlyHint: t.read_only_hint ?? null, destructiveHint: t.destructive_hint ?? null };
}

export type ToolBadge = "read-only" | "writes" | "destructive";

/** Only `readOnlyHint: true` makes a read tool (the policy counts anything else as a write). */
export function toolBadges(t: Pick<McpToolInfo, "readOnlyHint" | "destructiveHint">): ToolBadge[] {
  if (t.readOnlyHint === true) return ["read-only"];
  return t.destructiveHint === true ? ["writes", "destructive"] : ["writes"];
}

/** MCP tools are called by their exposed name, `server__tool`. */
export function isMcpToolName(toolName: string): boolean {
  return toolName.includes("__");
}

const TEST_ERROR_TITLES: Partial<Record<ErrorCode, string>> = {
  unavailable: "The server did not start or answer",
  not_found: "No such server (save it first)",
  invalid_input: "The server's settings are incomplete",
};

/** The title of a failed Test, by the error's code (never its message). */
export function mcpTestErrorTitle(code: string): string {
  return Object.hasOwn(TEST_ERROR_TITLES, code) ? (TEST_ERROR_TITLES[code as ErrorCode] ?? errorTitle(code)) : errorTitle(code);
}

// ---- profile rules ---------------------------------------------------------

export interface McpRuleForm {
  /** `server` or `server.tool` (the server's own tool name). */
  key: string;
  decision: RuleDecision;
}

export function mcpRulesToForm(rules: Partial<Record<string, RuleDecision>>): McpRuleForm[] {
  return Object.entries(rules).flatMap(([key, decision]) => (decision ? [{ key, decision }] : []));
}

/** Like the config: a server name, or `server.tool` with a tool name after the dot. */
export function mcpRuleKeyError(key: string): string | null {
  if (key === "") return "Enter a server name, or server.tool for one tool, e.g. everything.echo.";
  const dot = key.indexOf(".");
  const server = dot < 0 ? key : key.slice(0, dot);
  if (!/^[A-Za-z0-9_-]+$/.test(server)) return `“${server || key}” is not a server name: letters, digits, '-' and '_'.`;
  if (dot >= 0 && dot === key.length - 1) return "Add the tool's name after the dot, or remove the dot for the whole server.";
  return null;
}

export function validateMcpRules(rows: McpRuleForm[]): { rules: Record<string, RuleDecision>; errors: null } | { rules: null; errors: Record<number, string> } {
  const errors: Record<number, string> = {};
  const rules: Record<string, RuleDecision> = {};
  rows.forEach((row, i) => {
    const key = row.key.trim();
    const bad = mcpRuleKeyError(key) ?? (Object.hasOwn(rules, key) ? `${key} has a rule already.` : null);
    if (bad) errors[i] = bad;
    else rules[key] = row.decision;
  });
  return Object.keys(errors).length > 0 ? { rules: null, errors } : { rules, errors: null };
}
