// Settings' "Remembered approvals": the rules kept beyond their runs, and
// forgetting one (the list is read again after, as numbers shift).
import { commands, type ApiError, type RememberedRuleView } from "../../bindings";
import { call, type Outcome } from "../ipc/outcome";

export interface RememberedApi {
  list(): Promise<Outcome<RememberedRuleView[]>>;
  /** Forgets rule `number` (from 1, as listed). */
  forget(number: number): Promise<Outcome<null>>;
}

export const tauriRememberedApi: RememberedApi = {
  list: () => call(() => commands.rememberedRules()),
  forget: (number) => call(() => commands.forgetRule(number)),
};

export class RememberedStore {
  rules = $state.raw<RememberedRuleView[] | null>(null);
  error = $state.raw<ApiError | null>(null);
  /** The rule being removed (its number). */
  removing = $state<number | null>(null);

  readonly #api: RememberedApi;

  constructor(api: RememberedApi = tauriRememberedApi) {
    this.#api = api;
  }

  async load(): Promise<void> {
    const outcome = await this.#api.list();
    if (outcome.ok) this.rules = outcome.value;
    this.error = outcome.ok ? null : outcome.error;
  }

  async forget(number: number): Promise<void> {
    this.removing = number;
    try {
      const outcome = await this.#api.forget(number);
      await this.load();
      // A refusal stays shown over the reload's success.
      if (!outcome.ok) this.error = outcome.error;
    } finally {
      this.removing = null;
    }
  }
}
