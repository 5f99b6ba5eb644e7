// Plan mode: a run that only reads and answers with a plan, approved by a
// follow-up that carries it out.
import type { EventPayload } from "../../bindings";

/** What "Approve plan" sends as the follow-up's message (as the CLI's --approve-plan does). */
export const PLAN_APPROVAL_MESSAGE = "The plan is approved. Carry it out now, step by step.";

export const PLAN_FIRST_HINT = "The run only reads and ends with a plan for you to approve.";

/** Whether a run's `run_created` made it a plan-mode run. */
export function isPlanMode(created: EventPayload | null | undefined): boolean {
  return created?.type === "run_created" && created.plan_mode === true;
}

/** The Events row title of `run_created`: "Run created", "Run created · plan mode". */
export function createdTitle(created: Extract<EventPayload, { type: "run_created" }>): string {
  return created.plan_mode ? "Run created · plan mode" : "Run created";
}
