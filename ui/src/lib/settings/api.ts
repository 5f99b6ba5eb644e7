import { commands } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";
import type { ProfileSettings, ProviderInput, ProviderTestResult, SettingsView } from "./types";

/** What the settings screen needs from the backend. */
export interface SettingsApi {
  get(): Promise<Outcome<SettingsView>>;
  saveProvider(provider: ProviderInput): Promise<Outcome<null>>;
  deleteProvider(name: string): Promise<Outcome<null>>;
  /** Stores the key in the OS keychain; it is never read back. */
  setProviderKey(name: string, key: string): Promise<Outcome<null>>;
  testProvider(name: string): Promise<Outcome<ProviderTestResult>>;
  saveProfile(profile: ProfileSettings): Promise<Outcome<null>>;
  deleteProfile(name: string): Promise<Outcome<null>>;
}

/** The real implementation: the generated tauri-specta commands. */
export const tauriSettingsApi: SettingsApi = {
  get: () => call(() => commands.getSettings()),
  saveProvider: (provider) => call(() => commands.saveProvider(provider)),
  deleteProvider: (name) => call(() => commands.deleteProvider(name)),
  setProviderKey: (name, key) => call(() => commands.setProviderKey(name, key)),
  testProvider: (name) => call(() => commands.testProvider(name)),
  saveProfile: (profile) => call(() => commands.saveProfile(profile)),
  deleteProfile: (name) => call(() => commands.deleteProfile(name)),
};
