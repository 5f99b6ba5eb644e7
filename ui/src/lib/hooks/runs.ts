// Hooks in a run (`hook_ran`, `hooks_not_trusted`): how a hook's run is
// titled, how loud its decision is, what it did to the run, and the notice
// for project hooks that did not run because nobody trusted them.
import type { EventPayload, HookDecision } from "../../bindings";

export type HookRan = Extract<EventPayload, { type: "hook_ran" }>;
export type HooksNotTrusted = Extract<EventPayload, { type: "hooks_not_trusted" }>;

/** A hook's run as a card or the conversation keeps it: the event and where it sits. */
export interface HookRunRef {
  seq: number;
  run: HookRan;
}

/**
 * A decision's badge: a refusal is loud like an error, a question or a
 * pass is neutral, "nothing to say" stays quiet. `tone` names app.css's
 * badge tones (`quiet`: no tone, muted text).
 */
export const HOOK_DECISION_TONES: Record<HookDecision, "danger" | "neutral" | "quiet"> = {
  deny: "danger",
  block: "danger",
  ask: "neutral",
  allow: "neutral",
  proceed: "quiet",
};

/** How the hook's command ended: "exit 2", "timed out", or "killed" (no exit code). */
export function hookEnded(run: Pick<HookRan, "exit_code" | "timed_out">): string {
  if (run.timed_out) return "timed out";
  return run.exit_code === null ? "killed" : `exit ${run.exit_code}`;
}

/** "PreToolUse hook (user): deny". */
export function hookTitle(run: Pick<HookRan, "hook" | "source" | "decision">): string {
  return `${run.hook} hook (${run.source}): ${run.decision}`;
}

/** Whether the hook changed the run's course (a refusal or a block): shown like an error. */
export function isLoudHook(run: Pick<HookRan, "decision">): boolean {
  return HOOK_DECISION_TONES[run.decision] === "danger";
}

/** The Events row's colour: loud for a refusal, amber when the hook itself went wrong, quiet when it said nothing. */
export function hookRowTone(run: Pick<HookRan, "decision" | "warning">): "danger" | "attention" | "plain" | "muted" {
  if (isLoudHook(run)) return "danger";
  if (run.warning) return "attention";
  return run.decision === "proceed" ? "muted" : "plain";
}

/** What the decision did to the run, in a few words (null: nothing). */
export function hookOutcome(run: Pick<HookRan, "hook" | "decision">): string | null {
  switch (`${run.hook}:${run.decision}`) {
    case "PreToolUse:deny":
      return "The call was refused; the reason went to the model.";
    case "PreToolUse:ask":
      return "The call waited for your approval.";
    case "PreToolUse:allow":
      return "The call ran without asking.";
    case "Stop:block":
      return "The run went on: the model was sent back to work.";
    case "UserPromptSubmit:block":
      return "The goal was blocked: it never reached the model.";
    case "PostToolUse:block":
      return "Its feedback went to the model.";
    default:
      return null;
  }
}

/** "1 command", "3 commands". */
export function commandCount(n: number): string {
  return n === 1 ? "1 command" : `${n} commands`;
}

/** The Events row's title of `hooks_not_trusted`. */
export function notTrustedTitle(p: Pick<HooksNotTrusted, "commands">): string {
  return `Project hooks not trusted: ${commandCount(p.commands.length)} did not run`;
}

/** The notice's sentence: why none of the workspace's project hooks ran. */
export function notTrustedText(p: Pick<HooksNotTrusted, "commands">): string {
  const n = p.commands.length;
  const none = n === 1 ? "its one command did not run" : `none of its ${n} commands ran`;
  return `This workspace's project hooks are not trusted (or changed since you trusted them), so ${none}.`;
}
