import type { RunDetailView, RunOwnerView } from "../../bindings";
import { isTerminal } from "./status";

/** Another live BearAgent process (the CLI, a second window) that executes a run. */
export type OtherOwner = Extract<RunOwnerView, { kind: "elsewhere" }>;

/**
 * The process that steers this run when it is not this one: its approvals
 * and cancel are answered there. A run that has ended is steered by nobody,
 * whatever the backend last said about its owner.
 */
export function otherOwnerOf(detail: RunDetailView | null): OtherOwner | null {
  if (!detail || detail.owner.kind !== "elsewhere") return null;
  return isTerminal(detail.projection.status) ? null : detail.owner;
}

/** The sentence shown above a run that another process executes. */
export function otherOwnerNotice(owner: OtherOwner): string {
  return `Running in another BearAgent process (${owner.program}, pid ${owner.pid}). Approvals and cancel happen there.`;
}
