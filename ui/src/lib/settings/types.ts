import type {
  KeySourceView,
  ProfileView,
  ProtocolView,
  ProviderInput as GeneratedProviderInput,
  ProviderTestView,
  ProviderView,
  SettingsView as GeneratedSettingsView,
} from "../../bindings";

// The settings contract of the backend, as generated from Rust.

export type ProviderProtocol = ProtocolView;
export type KeySource = KeySourceView;
export type ProviderInput = GeneratedProviderInput;
/** `keyPresent`: a key is available from its source; the key itself never comes back. */
export type ProviderSettings = ProviderView;
/** `provider: null` — the profile leaves the provider to the run. */
export type ProfileSettings = ProfileView;
export type SettingsView = GeneratedSettingsView;
export type ProviderTestResult = ProviderTestView;

// Keyed by the generated enum: a protocol added in Rust is a type error
// here until it has its label and default endpoint.
const PROTOCOL_INFO: Record<ProviderProtocol, { label: string; baseUrl: string }> = {
  "openai-chat": { label: "OpenAI Chat Completions (or compatible)", baseUrl: "https://api.openai.com/v1" },
  "openai-responses": { label: "OpenAI Responses", baseUrl: "https://api.openai.com/v1" },
  anthropic: { label: "Anthropic Messages", baseUrl: "https://api.anthropic.com" },
  "ollama-chat": { label: "Ollama (its own API: sets the context window)", baseUrl: "http://127.0.0.1:11434" },
};

export const PROTOCOLS: { value: ProviderProtocol; label: string; baseUrl: string }[] = (
  Object.keys(PROTOCOL_INFO) as ProviderProtocol[]
).map((value) => ({ value, ...PROTOCOL_INFO[value] }));

export function isProtocol(value: string): value is ProviderProtocol {
  return PROTOCOLS.some((p) => p.value === value);
}
