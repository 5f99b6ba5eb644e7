import { commands, type CommandSandboxView, type McpServerTestView, type McpServerView } from "../../bindings";
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
  /** What a command of the profile sees of this machine (folders, configuration, credentials hidden, PATH, network). */
  sandboxView(profile: string): Promise<Outcome<CommandSandboxView>>;
  saveMcpServer(server: McpServerView): Promise<Outcome<null>>;
  deleteMcpServer(name: string): Promise<Outcome<null>>;
  /** Stores an env value or bearer token whose source is the keychain; never read back. */
  setMcpSecret(server: string, name: string, value: string): Promise<Outcome<null>>;
  /** Starts the server, lists its tools and stops it. */
  testMcpServer(name: string): Promise<Outcome<McpServerTestView>>;
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
  sandboxView: (profile) => call(() => commands.sandboxView(profile)),
  saveMcpServer: (server) => call(() => commands.saveMcpServer(server)),
  deleteMcpServer: (name) => call(() => commands.deleteMcpServer(name)),
  setMcpSecret: (server, name, value) => call(() => commands.setMcpSecret(server, name, value)),
  testMcpServer: (name) => call(() => commands.testMcpServer(name)),
};
