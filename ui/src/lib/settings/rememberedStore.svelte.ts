// Settings' "Remembered approvals": the rules kept beyond their runs, and
// forgetting one by its stable id (the list is read again after).
import { commands, type ApiError, type RememberedRuleView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

export interface RememberedApi {
  list(): Promise<Outcome<RememberedRuleView[]>>;
  /** Forgets the rule with this stable id (as listed). */
  forget(id: string): Promise<Outcome<null>>;
}

export const tauriRememberedApi: RememberedApi = {
  list: () => call(() => commands.rememberedRules()),
  forget: (id) => call(() => commands.forgetRule(id)),
};

export class RememberedStore {
  rules = $state.raw<RememberedRuleView[] | null>(null);
  error = $state.raw<ApiError | null>(null);
  /** The rule being removed (its id). */
  removing = $state<string | null>(null);

  readonly #api: RememberedApi;

  constructor(api: RememberedApi = tauriRememberedApi) {
    this.#api = api;
  }

  async load(): Promise<void> {
    const outcome = await this.#api.list();
    if (outcome.ok) this.rules = outcome.value;
    this.error = outcome.ok ? null : outcome.error;
  }

  async forget(id: string): Promise<void> {
    this.removing = id;
    try {
      const outcome = await this.#api.forget(id);
      await this.load();
      // A refusal stays shown over the reload's success.
      if (!outcome.ok) this.error = outcome.error;
    } finally {
      this.removing = null;
    }
  }
}
