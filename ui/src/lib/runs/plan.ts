// Plan mode: a run that only reads and answers with a plan, approved by a
// follow-up that carries it out.
import type { EventPayload } from "../../bindings";

/** What "Approve plan" sends as the follow-up's message (as the CLI's --approve-plan does). */
export const PLAN_APPROVAL_MESSAGE = "The plan is approved. Carry it out now, step by step.";

/**
 * What approving a plan sends: the approval alone, or — when the person
 * edited the plan first — the approval with their version, which is the
 * plan carried out (the follow-up's message records the edit as theirs).
 */
export function planApprovalMessage(original: string, edited: string | null): string {
  if (edited === null || !planEdited(original, edited)) return PLAN_APPROVAL_MESSAGE;
  return `${PLAN_APPROVAL_MESSAGE}\n\nI edited the plan before approving it. Carry out my version below, not the one above:\n\n${edited.trim()}`;
}

/** Whether `edited` differs from the model's plan (beyond surrounding whitespace). */
export function planEdited(original: string, edited: string): boolean {
  return edited.trim() !== original.trim();
}

export const PLAN_FIRST_HINT = "The run only reads and ends with a plan for you to approve.";

/** Whether a run's `run_created` made it a plan-mode run. */
export function isPlanMode(created: EventPayload | null | undefined): boolean {
  return created?.type === "run_created" && created.plan_mode === true;
}

/** The Events row title of `run_created`: "Run created", "Run created · plan mode". */
export function createdTitle(created: Extract<EventPayload, { type: "run_created" }>): string {
  return created.plan_mode ? "Run created · plan mode" : "Run created";
}
