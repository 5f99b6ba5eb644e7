import { commands, type AddedLocalProviderView, type LocalDetectionView, type LocalModelView, type LocalServerKindView, type LocalServerView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

// Local model servers (llama.cpp, Ollama, LM Studio, vLLM) as the backend
// finds them on the usual loopback ports, and what the UI says about them.

export type LocalDetection = LocalDetectionView;
export type LocalServer = LocalServerView;
export type LocalModel = LocalModelView;
export type LocalServerKind = LocalServerKindView;
export type AddedLocalProvider = AddedLocalProviderView;

/** What the Welcome screen and Settings need from the backend about local servers. */
export interface LocalServersApi {
  /** Probes the usual loopback ports at once (300 ms in all); never fails for a port nothing listens on. */
  detect(): Promise<Outcome<LocalDetection>>;
  /** Asks the server at `baseUrl` again and writes provider `name` for `model` (its first model when null). */
  add(name: string, baseUrl: string, model: string | null): Promise<Outcome<AddedLocalProvider>>;
}

/** The real implementation: the generated tauri-specta commands. */
export const tauriLocalServersApi: LocalServersApi = {
  detect: () => call(() => commands.detectLocalProviders()),
  add: (name, baseUrl, model) => call(() => commands.addLocalProvider(name, baseUrl, model)),
};

/** The ports probed, as detection's empty answer names them. */
export const LOCAL_PORTS: { port: number; server: string }[] = [
  { port: 8080, server: "llama.cpp" },
  { port: 11434, server: "Ollama" },
  { port: 1234, server: "LM Studio" },
  { port: 8000, server: "vLLM" },
];

// Keyed by the generated enum: a kind added in Rust is a type error here until it has a label.
const KIND_LABEL: Record<LocalServerKind, string> = {
  "llama.cpp": "llama.cpp",
  ollama: "Ollama",
  "lm-studio": "LM Studio",
  vllm: "vLLM",
  "openai-compatible": "OpenAI-compatible server",
};

export function serverKindLabel(kind: LocalServerKind): string {
  return KIND_LABEL[kind];
}

/** The base name of a provider made from a local server. */
export const LOCAL_PROVIDER_NAME = "local";

/** The first free name of `local`, `local-2`, `local-3`, … among the providers `taken`. */
export function localProviderName(taken: Iterable<string>): string {
  const names = new Set(taken);
  if (!names.has(LOCAL_PROVIDER_NAME)) return LOCAL_PROVIDER_NAME;
  for (let n = 2; ; n += 1) {
    const name = `${LOCAL_PROVIDER_NAME}-${n}`;
    if (!names.has(name)) return name;
  }
}

/** One server's model, as offered to become a provider. */
export interface LocalOffer {
  server: LocalServer;
  model: LocalModel;
}

/** What the Welcome screen offers: the first server listing a model, with its first model; none when nothing was found. */
export function firstOffer(detection: LocalDetection | null): LocalOffer | null {
  for (const server of detection?.servers ?? []) {
    const model = server.models[0];
    if (model) return { server, model };
  }
  return null;
}

export function offerText(offer: LocalOffer): string {
  return `Use the local model found at ${offer.server.baseUrl} (${offer.model.id})`;
}

/** Identifies one server's model (the same id may be served at two addresses). */
export function offerKey(server: LocalServer, model: LocalModel): string {
  return `${server.baseUrl} ${model.id}`;
}

const tokens = (n: number) => `${n.toLocaleString("en-US")} tokens`;

/** The window a model runs with, and what it was trained for when that differs. */
export function windowText(model: LocalModel): string {
  const { contextWindow: window, trainedWindow: trained } = model;
  if (window !== null) return trained !== null && trained !== window ? `window ${tokens(window)} (trained ${tokens(trained)})` : `window ${tokens(window)}`;
  return trained !== null ? `window unknown (trained ${tokens(trained)})` : "window unknown";
}

/** Whether its chat template takes tools; without them runs use JSON text. */
export function toolsText(model: LocalModel): string {
  if (model.tools === true) return "tools: yes";
  if (model.tools === false) return "tools: no (JSON-text mode)";
  return "tools: unknown (JSON-text mode)";
}

/** What a detection that found no server says. */
export function nothingFoundText(): string {
  const ports = LOCAL_PORTS.map((p) => `${p.port} (${p.server})`).join(", ");
  return `No local model server answered on ports ${ports}. Start one, then look again.`;
}
