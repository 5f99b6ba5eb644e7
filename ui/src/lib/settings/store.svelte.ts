import { SvelteMap } from "svelte/reactivity";
import type { ApiError } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import type { SettingsApi } from "./api";
import type { ProfileSettings, ProviderSettings, ProviderTestResult, SettingsView } from "./types";
import { validateProfile, validateProvider, type ProfileErrors, type ProfileForm, type ProviderErrors, type ProviderForm } from "./validation";

export type SettingsState =
  | { kind: "loading" }
  | { kind: "loaded"; settings: SettingsView }
  | { kind: "failed"; error: ApiError };

/** The result of submitting a form: field errors found here, or the backend's error. */
export type SubmitResult<E> = { ok: true } | { ok: false; fields: E | null; error: ApiError | null };

export type TestState = { kind: "testing" } | { kind: "done"; result: ProviderTestResult } | { kind: "failed"; error: ApiError };

/**
 * Providers and profiles as the backend has them. Forms are validated here
 * before anything is sent; the backend's `invalid_input` (which names the
 * field) comes back to the form that caused it.
 */
export class SettingsStore {
  state = $state.raw<SettingsState>({ kind: "loading" });
  readonly tests = new SvelteMap<string, TestState>();
  readonly #api: SettingsApi;

  constructor(api: SettingsApi) {
    this.#api = api;
  }

  get providers(): ProviderSettings[] {
    return this.state.kind === "loaded" ? this.state.settings.providers : [];
  }

  get profiles(): ProfileSettings[] {
    return this.state.kind === "loaded" ? this.state.settings.profiles : [];
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
    return this.#submit(() => this.#api.saveProfile(checked.profile));
  }

  async deleteProfile(name: string): Promise<SubmitResult<never>> {
    return this.#submit(() => this.#api.deleteProfile(name));
  }

  async #submit<E>(request: () => Promise<Outcome<null>>): Promise<SubmitResult<E>> {
    const outcome = await request();
    if (!outcome.ok) return { ok: false, fields: null, error: outcome.error };
    await this.load();
    return { ok: true };
  }
}
