// Approvals remembered beyond their runs, as Settings lists them, and the
// "Remember" choice next to an approval's command prefix.
import type { RememberedRuleView, RememberScopeView } from "../../bindings";
import { formatTimestamp } from "../runs/format";

export const REMEMBER_CHOICES: { value: RememberScopeView | null; label: string }[] = [
  { value: null, label: "this run only" },
  { value: "workspace", label: "this workspace" },
  { value: "everywhere", label: "every workspace" },
];

/** The select's value for a choice ("" is this run only). */
export function rememberValue(scope: RememberScopeView | null): string {
  return scope ?? "";
}

export function rememberFromValue(value: string): RememberScopeView | null {
  return value === "workspace" || value === "everywhere" ? value : null;
}

/** Where a rule holds: "in /path" or "in every workspace". */
export function ruleWhere(rule: RememberedRuleView): string {
  return rule.workspace === null ? "in every workspace" : `in ${rule.workspace}`;
}

/** Where it came from: "from run run-0001, Mar 14, 2025 …". */
export function ruleOrigin(rule: RememberedRuleView): string {
  return `from run ${rule.fromRun}, ${formatTimestamp(rule.at)}`;
}
