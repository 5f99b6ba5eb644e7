// Development-only: the approvals remembered beyond their runs (the user's
// config's `remembered_commands`), kept in memory: what Settings lists and
// removes, and what an approval with `remember` adds.
import type { DecisionInput, RememberedRuleView } from "../../bindings";
import { MockError } from "./settings";

type Rule = Omit<RememberedRuleView, "number">;

export class MockRemembered {
  #rules: Rule[] = [];
  #made = 0;

  /** Numbered from 1 for display; `forget_rule` takes the stable id. */
  list(): RememberedRuleView[] {
    return this.#rules.map((rule, i) => ({ number: i + 1, ...rule }));
  }

  forget(id: string): null {
    const at = this.#rules.findIndex((r) => r.id === id);
    if (at < 0) throw new MockError({ code: "not_found", message: `no remembered rule ${id}` });
    this.#rules.splice(at, 1);
    return null;
  }

  /** Keeps an approval's prefix when it asked to be remembered (once per prefix, network and place). */
  record(runId: string, workspacePath: string, decision: DecisionInput, at = new Date().toISOString()): void {
    if (!decision.approve || !decision.allowPrefix || !decision.remember) return;
    const rule: Rule = {
      id: (this.#made + 1).toString(16).padStart(12, "0"),
      prefix: decision.allowPrefix,
      network: decision.network ?? false,
      workspace: decision.remember === "workspace" ? workspacePath : null,
      fromRun: runId,
      at,
    };
    const known = this.#rules.some((r) => r.prefix === rule.prefix && r.network === rule.network && r.workspace === rule.workspace);
    if (!known) {
      this.#made += 1;
      this.#rules.push(rule);
    }
  }
}
