// Threads: replying to a finished run (a follow-up), forking it at one of
// its events, and showing the runs a run continues.
import type { ParentRun, RunStatus, RunSummaryView, ThreadRunView } from "../../bindings";
import { errorTitle } from "../ipc/errors";
import { isLive } from "./status";

/**
 * A run can be continued once nothing moves it any more: ended (any way)
 * or interrupted. The backend refuses the rest with `conflict`.
 */
export function canReply(status: RunStatus): boolean {
  return !isLive(status);
}

type KeyLike = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "isComposing">;

/** Ctrl+Enter (Cmd+Enter on macOS) sends; plain Enter starts a new line. */
export function isSendShortcut(e: KeyLike): boolean {
  return e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.isComposing;
}

/** How the send shortcut is written on this platform (`navigator.platform`). */
export function sendShortcutLabel(platform: string): string {
  return /mac|iphone|ipad/i.test(platform) ? "⌘+Enter" : "Ctrl+Enter";
}

/**
 * The title of a failed reply or fork, by error code only (the message
 * text is shown under it, never parsed).
 */
export function replyErrorTitle(code: string, fork: boolean): string {
  switch (code) {
    // Still in progress, or imported (read-only here): the message says which.
    case "conflict":
      return "This run cannot be continued";
    case "invalid_input":
      return fork ? "Cannot start this fork" : "Cannot send this reply";
    case "not_found":
      return "The run's workspace folder or provider is gone";
    default:
      return errorTitle(code);
  }
}

/** One line of a final answer for a collapsed thread entry, cut at a word. */
export function answerPreview(text: string | null, max = 140): string | null {
  if (text === null) return null;
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return null;
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** How a run continues the one before it: "forked at #N", "follow-up", or nothing (a thread's first run). */
export function threadRelation(entry: Pick<ThreadRunView, "forkedAt" | "run">): string | null {
  if (entry.forkedAt !== null) return `forked at #${entry.forkedAt}`;
  return entry.run.parentRunId !== null ? "follow-up" : null;
}

/** The same for the open run, from its projection's parent (known before the thread loads). */
export function parentRelation(parent: ParentRun): string {
  return parent.fork ? `forked at #${parent.through_seq}` : "follow-up";
}

/**
 * The runs before `runId` in its thread, oldest first. The backend puts
 * the run itself last; anything else in the list is shown as earlier.
 */
export function earlierRuns(thread: readonly ThreadRunView[], runId: string): ThreadRunView[] {
  return thread.filter((entry) => entry.run.runId !== runId);
}

export interface ThreadMarker {
  label: string;
  title: string;
}

/**
 * The run list's marker for a run that continues another, naming the
 * parent's goal when the list has it (a summary does not say whether it
 * is a fork: both are follow-ups of their parent).
 */
export function threadMarker(run: Pick<RunSummaryView, "parentRunId">, lookup: (runId: string) => RunSummaryView | undefined): ThreadMarker | null {
  if (run.parentRunId === null) return null;
  const parent = lookup(run.parentRunId);
  return {
    label: "↳ follow-up",
    title: parent ? `Continues the run “${parent.goal}”` : `Continues run ${run.parentRunId}`,
  };
}
