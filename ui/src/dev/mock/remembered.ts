// Development-only: the approvals remembered beyond their runs (the user's
// config's `remembered_commands`), kept in memory: what Settings lists and
// removes, and what an approval with `remember` adds.
import type { DecisionInput, RememberedRuleView } from "../../bindings";
import { MockError } from "./settings";

type Rule = Omit<RememberedRuleView, "number">;

export class MockRemembered {
  #rules: Rule[] = [];

  /** Numbered from 1, as `forget_rule` takes them. */
  list(): RememberedRuleView[] {
    return this.#rules.map((rule, i) => ({ number: i + 1, ...rule }));
  }

  forget(number: number): null {
    if (!Number.isInteger(number) || number < 1 || number > this.#rules.length) {
      throw new MockError({ code: "not_found", message: `no remembered rule ${number}` });
    }
    this.#rules.splice(number - 1, 1);
    return null;
  }

  /** Keeps an approval's prefix when it asked to be remembered (once per prefix, network and place). */
  record(runId: string, workspacePath: string, decision: DecisionInput, at = new Date().toISOString()): void {
    if (!decision.approve || !decision.allowPrefix || !decision.remember) return;
    const rule: Rule = {
      prefix: decision.allowPrefix,
      network: decision.network ?? false,
      workspace: decision.remember === "workspace" ? workspacePath : null,
      fromRun: runId,
      at,
    };
    const known = this.#rules.some((r) => r.prefix === rule.prefix && r.network === rule.network && r.workspace === rule.workspace);
    if (!known) this.#rules.push(rule);
  }
}
