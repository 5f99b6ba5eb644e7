import type {
  KeySourceView,
  ProfileView,
  ProviderInput as GeneratedProviderInput,
  ProviderTestView,
  ProviderView,
  SettingsView as GeneratedSettingsView,
} from "../../bindings";

// The settings contract of the backend, as generated from Rust.

export type ProviderProtocol = "openai-chat" | "openai-responses" | "anthropic";
export type KeySource = KeySourceView;
export type ProviderInput = GeneratedProviderInput;
/** `keyPresent`: a key is available from its source; the key itself never comes back. */
export type ProviderSettings = ProviderView;
/** `provider: null` — the profile leaves the provider to the run. */
export type ProfileSettings = ProfileView;
export type SettingsView = GeneratedSettingsView;
export type ProviderTestResult = ProviderTestView;

export const PROTOCOLS: { value: ProviderProtocol; label: string; baseUrl: string }[] = [
  { value: "openai-chat", label: "OpenAI Chat Completions (or compatible)", baseUrl: "https://api.openai.com/v1" },
  { value: "openai-responses", label: "OpenAI Responses", baseUrl: "https://api.openai.com/v1" },
  { value: "anthropic", label: "Anthropic Messages", baseUrl: "https://api.anthropic.com" },
];

export function isProtocol(value: string): value is ProviderProtocol {
  return PROTOCOLS.some((p) => p.value === value);
}
