import type { DecisionInput, RememberScopeView } from "../../bindings";

/** The keys an approval row answers to (when it, not a text field, has focus). */
export interface ApprovalKey {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/**
 * `allow_prefix`: approve, and allow commands starting with the given words
 * for the rest of the run; `approve_network`: approve this command with the
 * network in the sandbox (the profile keeps it off).
 */
export type ApprovalChoice = "approve" | "approve_network" | "always" | "allow_prefix" | "deny" | "deny_rest";

/** A → approve once, Shift+A → always for this run, D → deny; anything else → null. */
export function choiceForKey(event: ApprovalKey): ApprovalChoice | null {
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  const key = event.key.toLowerCase();
  if (key === "a") return event.shiftKey ? "always" : "approve";
  if (key === "d" && !event.shiftKey) return "deny";
  return null;
}

/**
 * The decision sent for a choice; a denial carries the reason (blank →
 * none), an `allow_prefix` approval the command prefix (and, with
 * `network`, the network for the commands it allows; with `remember`,
 * kept beyond the run for the workspace or every workspace).
 */
export function decisionFor(choice: ApprovalChoice, reason = "", prefix = "", network = false, remember: RememberScopeView | null = null): DecisionInput {
  switch (choice) {
    case "approve":
      return { approve: true, scope: "once", reason: null };
    case "approve_network":
      return { approve: true, scope: "once", reason: null, network: true };
    case "allow_prefix":
      return { approve: true, scope: "once", reason: null, allowPrefix: prefix.trim().split(/\s+/).join(" "), ...(network ? { network: true } : {}), ...(remember ? { remember } : {}) };
    case "always":
      return { approve: true, scope: "tool_for_run", reason: null };
    case "deny":
    case "deny_rest": {
      const trimmed = reason.trim();
      return { approve: false, scope: choice === "deny" ? "once" : "rest_of_turn", reason: trimmed === "" ? null : trimmed };
    }
  }
}

/** What the user sees while a decision is on its way or after it failed. */
export type DecisionState =
  | { kind: "sending"; choice: ApprovalChoice }
  | { kind: "sent"; choice: ApprovalChoice }
  | { kind: "failed"; choice: ApprovalChoice; code: string; message: string };
