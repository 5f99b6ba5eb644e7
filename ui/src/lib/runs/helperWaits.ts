// Which helpers of the open run wait for the user's approval, what the
// run's header says about them, and which one the run's approve / deny
// keys answer (only when that is unambiguous).
import type { HelperRunView } from "../../bindings";
import { cardKeyAction, type KeyLike, type KeyTarget } from "./conversationKeys";

/** How a helper is named to the user: its `task` description, else its goal. */
export function helperName(helper: HelperRunView): string {
  return helper.run.delegatedBy?.description ?? helper.run.goal;
}

/**
 * The helpers (any depth, in the tree's order) whose approval can be
 * answered now: one already being answered no longer waits for the user.
 */
export function waitingHelpers(helpers: readonly HelperRunView[], answerable: (helper: HelperRunView) => boolean): HelperRunView[] {
  return helpers.filter((h) => h.pendingApproval !== null && answerable(h));
}

/** The header's line about the waiting helpers; null when none waits. */
export function helperWaitsText(waiting: readonly HelperRunView[]): string | null {
  if (waiting.length === 0) return null;
  if (waiting.length === 1) return `helper "${helperName(waiting[0])}" waits for your approval`;
  return `${waiting.length} helpers wait for your approval`;
}

/**
 * The helper the run's approve / deny keys answer: the only one waiting,
 * and only while the open run has no question of its own (the keys are
 * that question's first).
 */
export function helperToAnswer(waiting: readonly HelperRunView[], ownPending: boolean): HelperRunView | null {
  return !ownPending && waiting.length === 1 ? waiting[0] : null;
}

/** What an approve / deny key press does to a helper; null when it is not one or is not the helper's. */
export function helperShortcut(
  event: KeyLike,
  target: KeyTarget,
  waiting: readonly HelperRunView[],
  ownPending: boolean,
): { helper: HelperRunView; choice: "approve" | "deny" } | null {
  const action = cardKeyAction(event, target);
  if (action !== "approve" && action !== "deny") return null;
  const helper = helperToAnswer(waiting, ownPending);
  return helper ? { helper, choice: action } : null;
}

/**
 * The open run's `task` call under whose card `helper` is nested (its own
 * for a direct helper, its ancestor's for a deeper one); null when the
 * chain does not reach the open run.
 */
export function rootCallOf(helpers: readonly HelperRunView[], helper: HelperRunView, openRunId: string): string | null {
  const byId = new Map(helpers.map((h) => [h.run.runId, h]));
  const seen = new Set<string>();
  let current: HelperRunView | undefined = helper;
  while (current && !seen.has(current.run.runId)) {
    seen.add(current.run.runId);
    const parent = current.run.delegatedBy;
    if (!parent) return null;
    if (parent.runId === openRunId) return parent.callId;
    current = byId.get(parent.runId);
  }
  return null;
}
