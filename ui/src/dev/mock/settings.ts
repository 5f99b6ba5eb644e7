// Development-only: settings kept in memory, with the backend's checks and
// error codes (invalid_input names the field; conflict; not_found).
import type { AddedLocalProviderView, CommandSandboxView, LocalDetectionView, LocalServerView, McpServerView } from "../../bindings";
import type { ProfileSettings, ProviderInput, ProviderSettings, ProviderTestResult, SettingsView } from "../../lib/settings/types";
import { DEFAULT_COMMAND_SETTINGS } from "../../lib/settings/validation";
import { fail } from "./errors";
import sandboxViews from "./fixtures/sandbox-views.json";
import { MockMcpServers } from "./mcp";

export { MockError } from "./errors";

/** What `sandbox_view` answered for a made-up home (written by src-tauri/src/scenarios/sandbox.rs). */
const SANDBOX_VIEWS = sandboxViews as unknown as Record<"network_off" | "network_on" | "sandbox_off", CommandSandboxView>;

/** What `detect_local_providers` finds unless a test seeds otherwise: one llama.cpp server, as the Rust probe reports it. */
export const DEFAULT_LOCAL_SERVERS: LocalServerView[] = [
  {
    kind: "llama.cpp",
    baseUrl: "http://127.0.0.1:8080",
    models: [{ id: "qwen2.5-coder-7b-instruct", contextWindow: 16_384, trainedWindow: 32_768, tools: true, notLearned: [] }],
  },
];

/** Names the config refuses for a provider (the demo, the protocols). */
const RESERVED_NAMES = ["demo", "openai-chat", "openai-responses", "anthropic"];

/** What `MockSettings.answer` returns for a command that is not about settings. */
export const NOT_SETTINGS = Symbol("not a settings command");

export class MockSettings {
  #providers: ProviderSettings[];
  #profiles: ProfileSettings[];
  readonly #keys = new Set<string>();
  /** MCP servers and their keychain secrets. */
  readonly mcp: MockMcpServers;
  /** The local model servers "listening" on this machine. */
  readonly #localServers: LocalServerView[];

  constructor(seed: Partial<SettingsView> = {}, localServers: LocalServerView[] = DEFAULT_LOCAL_SERVERS) {
    this.#localServers = structuredClone(localServers);
    this.#providers = (seed.providers ?? []).map((p) => ({ ...p }));
    // Like the backend, every profile has command settings and MCP rules (a seed may leave them out).
    this.#profiles = (seed.profiles ?? []).map((p) => ({ ...p, commands: structuredClone(p.commands ?? DEFAULT_COMMAND_SETTINGS), mcpRules: { ...p.mcpRules } }));
    this.mcp = new MockMcpServers(seed.mcpServers ?? []);
    for (const p of this.#providers) if (p.keyPresent && p.keySource.kind === "keychain") this.#keys.add(p.name);
  }

  view(): SettingsView {
    return {
      configPath: "/home/dev/.config/bearagent/config.toml",
      providers: this.#providers.map((p) => ({ ...p, keyPresent: this.#keyPresent(p) })),
      profiles: this.#profiles.map((p) => structuredClone(p)),
      mcpServers: this.mcp.views(),
    };
  }

  hasProvider(name: string): boolean {
    return this.#providers.some((p) => p.name === name);
  }

  saveProvider(input: ProviderInput): null {
    if (!input?.name?.trim()) fail("invalid_input", "name: must not be empty");
    if (!/^https?:\/\//.test(input.baseUrl)) fail("invalid_input", "base_url: must be an http(s) URL");
    if (/\s/.test(input.model)) fail("invalid_input", `model: "${input.model}" must not contain spaces`);
    // Like the config's price check: USD per MTok, finite, 0 to 1,000,000.
    const price = input.price;
    const fields = price ? ([["input_per_mtok", price.inputPerMtok], ["output_per_mtok", price.outputPerMtok], ["cached_input_per_mtok", price.cachedInputPerMtok ?? 0]] as const) : [];
    for (const [field, usd] of fields) {
      if (usd === null || !Number.isFinite(usd) || usd < 0 || usd > 1_000_000) {
        fail("invalid_input", `price: ${field} must be a number of USD per million tokens, 0 or more (got ${usd})`);
      }
    }
    // Like the config: a window of 1,000 to 10,000,000 tokens, or none (the model family's).
    const window = input.contextWindow;
    if (window != null && (!Number.isInteger(window) || window < 1_000 || window > 10_000_000)) {
      fail("invalid_input", `context_window: must be between 1000 and 10000000 tokens, got ${window}`);
    }
    const next: ProviderSettings = { ...input, contextWindow: window ?? null, vision: input.vision ?? null, keyPresent: false };
    const at = this.#providers.findIndex((p) => p.name === input.name);
    if (at >= 0) this.#providers[at] = next;
    else this.#providers.push(next);
    return null;
  }

  deleteProvider(name: string): null {
    if (!this.hasProvider(name)) fail("not_found", `provider not found: ${name}`);
    if (this.#profiles.some((p) => p.provider === name)) fail("conflict", `a profile still uses provider "${name}"`);
    this.#providers = this.#providers.filter((p) => p.name !== name);
    this.#keys.delete(name);
    return null;
  }

  setKey(name: string, key: string): null {
    if (!this.hasProvider(name)) fail("not_found", `provider not found: ${name}`);
    if (!key) fail("invalid_input", "key: must not be empty");
    this.#keys.add(name);
    return null;
  }

  test(name: string): ProviderTestResult {
    const provider = this.#providers.find((p) => p.name === name) ?? fail("not_found", `provider not found: ${name}`);
    if (provider.keySource.kind !== "none" && !this.#keyPresent(provider)) {
      return { ok: false, latencyMs: null, errorClass: "auth", message: "No API key is available for this provider." };
    }
    if (/localhost:9\b|127\.0\.0\.1:9\b/.test(provider.baseUrl)) {
      return { ok: false, latencyMs: null, errorClass: "provider", message: "connection refused (transport error, retryable)" };
    }
    return { ok: true, latencyMs: 142, errorClass: null, message: `${provider.model} answered.` };
  }

  saveProfile(profile: ProfileSettings): null {
    if (!profile?.name?.trim()) fail("invalid_input", "name: must not be empty");
    const maxCost = profile.budgets.max_cost_micro_usd;
    if (maxCost != null && (!Number.isInteger(maxCost) || maxCost <= 0)) fail("invalid_input", "max_cost: must be more than 0 USD; leave it out for no cost limit");
    if (profile.provider !== null && profile.provider !== "demo" && !this.hasProvider(profile.provider)) {
      fail("invalid_input", `provider: no provider named "${profile.provider}"`);
    }
    // Like the config's compact_at: 0.1 to 0.99 of the window (per mille here); null turns compaction off.
    const compactAt = profile.contextCaps.compact_at_permille;
    if (compactAt != null && (!Number.isInteger(compactAt) || compactAt < 100 || compactAt > 990)) {
      fail("invalid_input", `compact_at: must be between 0.1 and 0.99 of the window, got ${compactAt / 1000}`);
    }
    checkCommands(profile.commands);
    checkMcpRules(profile.mcpRules);
    const at = this.#profiles.findIndex((p) => p.name === profile.name);
    if (at >= 0) this.#profiles[at] = structuredClone(profile);
    else this.#profiles.push(structuredClone(profile));
    return null;
  }

  deleteProfile(name: string): null {
    if (!this.#profiles.some((p) => p.name === name)) fail("not_found", `profile not found: ${name}`);
    this.#profiles = this.#profiles.filter((p) => p.name !== name);
    return null;
  }

  /** Like `sandbox_view`: the recorded view of a profile with the same sandbox and network settings ("default" exists unconfigured). */
  /** Answers a settings command as the shell does (`unknown command` is the caller's to say: `NOT_SETTINGS`). */
  answer(cmd: string, input: Record<string, unknown>): unknown {
    const name = String(input.name);
    switch (cmd) {
      case "get_settings":
        return this.view();
      case "save_provider":
        return this.saveProvider(input.provider as ProviderInput);
      case "delete_provider":
        return this.deleteProvider(name);
      case "set_provider_key":
        return this.setKey(name, String(input.key ?? ""));
      case "test_provider":
        return this.test(name);
      case "save_profile":
        return this.saveProfile(input.profile as ProfileSettings);
      case "delete_profile":
        return this.deleteProfile(name);
      case "sandbox_view":
        return this.sandboxView(String(input.profile));
      case "save_mcp_server":
        return this.mcp.save(input.server as McpServerView);
      case "delete_mcp_server":
        return this.mcp.delete(name);
      case "set_mcp_secret":
        return this.mcp.setSecret(String(input.server), name, String(input.value ?? ""));
      case "test_mcp_server":
        return this.mcp.test(name);
      case "detect_local_providers":
        return this.detectLocal();
      case "add_local_provider":
        return this.addLocal(name, String(input.baseUrl ?? ""), input.model == null ? null : String(input.model));
      default:
        return NOT_SETTINGS;
    }
  }

  /** Like `detect_local_providers`: the seeded servers; a port nothing listens on is not a failure. */
  detectLocal(): LocalDetectionView {
    return { servers: structuredClone(this.#localServers), failures: [], elapsedMs: this.#localServers.length > 0 ? 6 : 2 };
  }

  /** Like `add_local_provider`: the server at `baseUrl` asked again, its model written as provider `name` (never replacing one). */
  addLocal(name: string, baseUrl: string, model: string | null): AddedLocalProviderView {
    name = name.trim();
    if (name === "" || RESERVED_NAMES.includes(name)) fail("invalid_input", `${JSON.stringify(name)} cannot name a provider (blank, "demo" or a protocol name)`);
    const url = baseUrl.trim().replace(/\/+$/, "");
    const server = this.#localServers.find((s) => s.baseUrl === url) ?? fail("invalid_input", `no local model server was found (looked at ports [] and ${JSON.stringify([url])})`);
    const found = model === null ? server.models[0] : server.models.find((m) => m.id === model);
    if (!found && model === null) return fail("invalid_input", `the server at ${url} lists no models`);
    if (!found) return fail("invalid_input", `no server found offers model ${model} (they offer: ${server.models.map((m) => m.id).join(", ")})`);
    if (this.hasProvider(name)) fail("invalid_input", `a provider named ${name} exists already: choose another name or remove it first`);
    const toolMode = found.tools === true ? "native" : "json-text";
    this.#providers.push({ name, protocol: "openai-chat", baseUrl: server.baseUrl, model: found.id, keySource: { kind: "none" }, keyPresent: false, toolMode, price: null, contextWindow: found.contextWindow, vision: null });
    return { name, kind: server.kind, baseUrl: server.baseUrl, model: found.id, contextWindow: found.contextWindow, toolMode };
  }

  sandboxView(name: string): CommandSandboxView {
    const profile = this.#profiles.find((p) => p.name === name);
    if (!profile && name !== "default") fail("not_found", `profile not found: ${name}`);
    const commands = profile?.commands ?? DEFAULT_COMMAND_SETTINGS;
    const recorded = SANDBOX_VIEWS[!commands.sandbox ? "sandbox_off" : commands.network ? "network_on" : "network_off"];
    return { ...structuredClone(recorded), profile: name, network: commands.network };
  }

  #keyPresent(p: ProviderSettings): boolean {
    if (p.keySource.kind === "keychain") return this.#keys.has(p.name);
    if (p.keySource.kind === "env") return p.keySource.variable === "OPENAI_API_KEY";
    return false;
  }
}

/** Like the config's `validate_commands`: a timeout above 0, plain relative folders, variable names, rules with a prefix. */
function checkCommands(c: ProfileSettings["commands"] | undefined): void {
  if (!c) return fail("invalid_input", "commands: missing");
  if (!Number.isInteger(c.max_timeout_secs) || c.max_timeout_secs <= 0) fail("invalid_input", "command_timeout_secs: must be greater than 0");
  for (const dir of c.toolchain_dirs) {
    const plain = dir.trim() !== "" && !dir.startsWith("/") && dir.split("/").every((part) => part !== ".." && part !== ".");
    if (!plain) fail("invalid_input", `toolchain_dirs: ${JSON.stringify(dir)} must be a folder under the home folder, like ".cargo"`);
  }
  for (const name of c.env) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) fail("invalid_input", `command_env: ${JSON.stringify(name)} is not a variable name`);
  }
  for (const rule of c.rules) {
    if (rule.prefix.trim() === "") fail("invalid_input", "command_rules: a rule needs a non-empty prefix");
  }
}

/** Like the config: each MCP rule key is `server` or `server.tool`. */
function checkMcpRules(rules: ProfileSettings["mcpRules"] | undefined): void {
  for (const key of Object.keys(rules ?? {})) {
    const dot = key.indexOf(".");
    const server = dot < 0 ? key : key.slice(0, dot);
    if (!/^[A-Za-z0-9_-]+$/.test(server) || dot === key.length - 1) fail("invalid_input", `mcp_rules: ${JSON.stringify(key)} must be a server name or "server.tool"`);
  }
}
