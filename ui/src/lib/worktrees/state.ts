import type { EventPayload, WorktreeStateView } from "../../bindings";
import type { StatusTone } from "../runs/format";

const STATES: Record<WorktreeStateView, { label: string; tone: StatusTone }> = {
  running: { label: "running", tone: "active" },
  waiting_for_approval: { label: "waiting for approval", tone: "attention" },
  ready_to_apply: { label: "ready to apply", tone: "active" },
  applied: { label: "applied", tone: "success" },
  discarded: { label: "discarded", tone: "neutral" },
  removed: { label: "removed", tone: "neutral" },
  missing: { label: "missing", tone: "danger" },
};

/** The state badge's words and colour; an unknown state as it comes, never green. */
export function worktreeStateInfo(state: string): { label: string; tone: StatusTone } {
  return Object.hasOwn(STATES, state) ? STATES[state as WorktreeStateView] : { label: state.replace(/_/g, " "), tone: "neutral" };
}

/** A run of the worktree is still going: apply and discard wait for it (the backend refuses too). */
export function worktreeBusy(state: WorktreeStateView): boolean {
  return state === "running" || state === "waiting_for_approval";
}

/** The backend applies only these (applying again after refusals or a new follow-up is allowed). */
export function canApply(state: WorktreeStateView): boolean {
  return state === "ready_to_apply" || state === "applied";
}

/** Discard removes the folder and branch: not while in use nor once gone. */
export function canDiscard(state: WorktreeStateView): boolean {
  return state === "ready_to_apply" || state === "applied";
}

/** The list shows worktrees not removed: a pruned one's runs list as plain runs. */
export function listedWorktree(state: WorktreeStateView): boolean {
  return state !== "removed";
}

// Events that can change a worktree's state (or size): a run made, its
// status moved, or the worktree applied or removed. Others leave the list.
const STATE_EVENTS: ReadonlySet<EventPayload["type"]> = new Set<EventPayload["type"]>([
  "run_created",
  "run_started",
  "run_resumed",
  "approval_requested",
  "approval_granted",
  "approval_denied",
  "artifact_recorded",
  "run_succeeded",
  "run_failed",
  "run_cancelled",
  "budget_exhausted",
  "run_interrupted",
  "worktree_applied",
  "worktree_removed",
  "worktree_step",
]);

/** Whether a committed event is worth listing the worktrees again for. */
export function changesWorktrees(type: EventPayload["type"]): boolean {
  return STATE_EVENTS.has(type);
}
