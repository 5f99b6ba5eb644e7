import { SvelteMap } from "svelte/reactivity";
import type { ApiError, McpServerTestView, McpServerView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { SettingsApi } from "./api";
import { tauriLocalServersApi, type LocalServersApi } from "./local";
import { LocalServersStore } from "./localStore.svelte";
import type { SandboxViewState } from "./sandbox";
import { validateMcpServer, type McpServerErrors, type McpServerForm } from "./mcp";
import type { ProfileSettings, ProviderSettings, ProviderTestResult, SettingsView } from "./types";
import { validateProfile, validateProvider, type ProfileErrors, type ProfileForm, type ProviderErrors, type ProviderForm } from "./validation";

export type SettingsState =
  | { kind: "loading" }
  | { kind: "loaded"; settings: SettingsView }
  | { kind: "failed"; error: ApiError };

/** The result of submitting a form: field errors found here, or the backend's error. */
export type SubmitResult<E> = { ok: true } | { ok: false; fields: E | null; error: ApiError | null };

export type TestState = { kind: "testing" } | { kind: "done"; result: ProviderTestResult } | { kind: "failed"; error: ApiError };

export type McpTestState = { kind: "testing" } | { kind: "done"; result: McpServerTestView } | { kind: "failed"; error: ApiError };

/**
 * Providers, profiles and MCP servers as the backend has them. Forms are validated here
 * before anything is sent; the backend's `invalid_input` (which names the
 * field) comes back to the form that caused it.
 */
export class SettingsStore {
  state = $state.raw<SettingsState>({ kind: "loading" });
  readonly tests = new SvelteMap<string, TestState>();
  readonly mcpTests = new SvelteMap<string, McpTestState>();
  /** What a command of the profile last asked about sees ("What a command sees"). */
  sandbox = $state.raw<SandboxViewState>({ kind: "idle" });
  /** Local model servers found on this machine, each model one click from being a provider. */
  readonly local: LocalServersStore;
  readonly #api: SettingsApi;

  constructor(api: SettingsApi, localApi: LocalServersApi = tauriLocalServersApi) {
    this.#api = api;
    this.local = new LocalServersStore(localApi, this);
  }

  get providers(): ProviderSettings[] {
    return this.state.kind === "loaded" ? this.state.settings.providers : [];
  }

  get profiles(): ProfileSettings[] {
    return this.state.kind === "loaded" ? this.state.settings.profiles : [];
  }

  get mcpServers(): McpServerView[] {
    return this.state.kind === "loaded" ? this.state.settings.mcpServers : [];
  }

  /** Loaded and no provider configured: first launch. */
  get noProviders(): boolean {
    return this.state.kind !== "loading" && this.providers.length === 0;
  }

  async load(): Promise<void> {
    const outcome = await this.#api.get();
    this.state = outcome.ok ? { kind: "loaded", settings: outcome.value } : { kind: "failed", error: outcome.error };
  }

  async saveProvider(form: ProviderForm): Promise<SubmitResult<ProviderErrors>> {
    const checked = validateProvider(form);
    if (checked.errors) return { ok: false, fields: checked.errors, error: null };
    return this.#submit(() => this.#api.saveProvider(checked.input));
  }

  async setKey(name: string, key: string): Promise<SubmitResult<{ key?: string }>> {
    if (key.trim() === "") return { ok: false, fields: { key: "Paste the API key first." }, error: null };
    return this.#submit(() => this.#api.setProviderKey(name, key.trim()));
  }

  async deleteProvider(name: string): Promise<SubmitResult<never>> {
    this.tests.delete(name);
    return this.#submit(() => this.#api.deleteProvider(name));
  }

  async test(name: string): Promise<void> {
    this.tests.set(name, { kind: "testing" });
    const outcome = await this.#api.testProvider(name);
    this.tests.set(name, outcome.ok ? { kind: "done", result: outcome.value } : { kind: "failed", error: outcome.error });
  }

  async saveProfile(form: ProfileForm): Promise<SubmitResult<ProfileErrors>> {
    const checked = validateProfile(form);
    if (checked.errors) return { ok: false, fields: checked.errors, error: null };
    const result = await this.#submit<ProfileErrors>(() => this.#api.saveProfile(checked.profile));
    if (result.ok) await this.#reloadSandboxView(checked.profile.name);
    return result;
  }

  async deleteProfile(name: string): Promise<SubmitResult<never>> {
    return this.#submit(() => this.#api.deleteProfile(name));
  }

  /** Asks what a command of `profile` sees; an answer for a profile asked about before is dropped. */
  async loadSandboxView(profile: string): Promise<void> {
    this.sandbox = { kind: "loading", profile };
    const outcome = await this.#api.sandboxView(profile);
    if (this.sandbox.kind !== "loading" || this.sandbox.profile !== profile) return;
    this.sandbox = outcome.ok ? { kind: "loaded", view: outcome.value } : { kind: "failed", profile, error: outcome.error };
  }

  /** The profile shown changed on disk: show it as it is now. */
  async #reloadSandboxView(profile: string): Promise<void> {
    const shown = this.sandbox.kind === "loaded" ? this.sandbox.view.profile : this.sandbox.kind === "idle" ? null : this.sandbox.profile;
    if (shown === profile) await this.loadSandboxView(profile);
  }

  /**
   * Saves the server, then stores each keychain value typed in the form
   * (the backend only takes one for a server whose entry names it).
   */
  async saveMcpServer(form: McpServerForm): Promise<SubmitResult<McpServerErrors>> {
    const checked = validateMcpServer(form);
    if (checked.errors) return { ok: false, fields: checked.errors, error: null };
    const saved = await this.#api.saveMcpServer(checked.server);
    if (!saved.ok) return { ok: false, fields: null, error: saved.error };
    this.mcpTests.delete(checked.server.name);
    for (const secret of checked.secrets) {
      const stored = await this.#api.setMcpSecret(checked.server.name, secret.name, secret.value);
      if (!stored.ok) {
        await this.load();
        return { ok: false, fields: null, error: stored.error };
      }
    }
    await this.load();
    return { ok: true };
  }

  /** Turns a saved server on or off, everything else as it is. */
  async setMcpEnabled(server: McpServerView, enabled: boolean): Promise<SubmitResult<never>> {
    return this.#submit(() => this.#api.saveMcpServer({ ...server, enabled }));
  }

  async deleteMcpServer(name: string): Promise<SubmitResult<never>> {
    const result = await this.#submit<never>(() => this.#api.deleteMcpServer(name));
    if (result.ok) this.mcpTests.delete(name);
    return result;
  }

  async testMcpServer(name: string): Promise<void> {
    this.mcpTests.set(name, { kind: "testing" });
    const outcome = await this.#api.testMcpServer(name);
    this.mcpTests.set(name, outcome.ok ? { kind: "done", result: outcome.value } : { kind: "failed", error: outcome.error });
  }

  async #submit<E>(request: () => Promise<Outcome<null>>): Promise<SubmitResult<E>> {
    const outcome = await request();
    if (!outcome.ok) return { ok: false, fields: null, error: outcome.error };
    await this.load();
    return { ok: true };
  }
}
