import type { ApiError, ModelContextView } from "../../bindings";
import type { CommandOutputOptions } from "./commandOutput.svelte";

/** Resolves after pending rendering work had a chance to run. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** The backend's page size for `listEvents`. */
export const EVENT_PAGE_SIZE = 500;

export type ContextPanel =
  | { kind: "loading"; requestedSeq: number }
  | { kind: "ready"; requestedSeq: number; context: ModelContextView }
  | { kind: "failed"; requestedSeq: number; error: ApiError };

export interface RunViewOptions {
  pageSize?: number;
  /** Coalesce projection refreshes after live events by this much. */
  refreshDelayMs?: number;
  commandOutput?: CommandOutputOptions;
}
