import { SvelteMap } from "svelte/reactivity";
import type { ApiError } from "../../bindings";
import { firstOffer, localProviderName, offerKey, type AddedLocalProvider, type LocalDetection, type LocalModel, type LocalOffer, type LocalServer, type LocalServersApi } from "./local";

export type DetectState = { kind: "idle" } | { kind: "detecting" } | { kind: "done"; detection: LocalDetection } | { kind: "failed"; error: ApiError };

/** What the local servers' store needs of the settings: the names taken, and a reload once one is added. */
export interface ProviderNames {
  readonly providers: readonly { name: string }[];
  load(): Promise<void>;
}

/**
 * The local model servers found (shared by the Welcome screen and Settings),
 * and turning one's model into a provider in one step: named `local`
 * (`local-2`, … when taken), then chosen for new runs.
 */
export class LocalServersStore {
  state = $state.raw<DetectState>({ kind: "idle" });
  /** The offer being added (`offerKey`), if any: one at a time. */
  adding = $state<string | null>(null);
  /** Why the last add failed, and for which offer. */
  addError = $state.raw<{ key: string; error: ApiError } | null>(null);
  /** The provider each offer became, by `offerKey`. */
  readonly added = new SvelteMap<string, AddedLocalProvider>();
  /** The provider added last: new runs start with it chosen. */
  chosen = $state<string | null>(null);
  readonly #api: LocalServersApi;
  readonly #settings: ProviderNames;

  constructor(api: LocalServersApi, settings: ProviderNames) {
    this.#api = api;
    this.#settings = settings;
  }

  /** The first server's first model, once a detection found one. */
  get offer(): LocalOffer | null {
    return this.state.kind === "done" ? firstOffer(this.state.detection) : null;
  }

  /** Probes once more; an answer to an earlier probe is replaced. */
  async detect(): Promise<void> {
    this.state = { kind: "detecting" };
    const outcome = await this.#api.detect();
    this.state = outcome.ok ? { kind: "done", detection: outcome.value } : { kind: "failed", error: outcome.error };
  }

  /** Probes unless a probe ran or runs already (the Welcome screen asks once). */
  async detectOnce(): Promise<void> {
    if (this.state.kind === "idle") await this.detect();
  }

  /** Adds `model` of `server` as a provider with the first free local name; the settings reload and it is chosen. */
  async add(server: LocalServer, model: LocalModel): Promise<AddedLocalProvider | null> {
    if (this.adding !== null) return null;
    const key = offerKey(server, model);
    this.adding = key;
    this.addError = null;
    try {
      const name = localProviderName(this.#settings.providers.map((p) => p.name));
      const outcome = await this.#api.add(name, server.baseUrl, model.id);
      if (!outcome.ok) {
        this.addError = { key, error: outcome.error };
        return null;
      }
      this.added.set(key, outcome.value);
      this.chosen = outcome.value.name;
      await this.#settings.load();
      return outcome.value;
    } finally {
      this.adding = null;
    }
  }
}
