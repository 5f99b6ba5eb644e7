// The trust gate of a workspace's project hooks (`.bearagent/hooks.toml`):
// its state as Settings shows it, and the prompt's wording.
import type { ProjectHookView, ProjectHooksView } from "../../bindings";

export type HooksState = "trusted" | "untrusted" | "invalid";

/** An invalid file never runs, trusted or not; otherwise it runs only once trusted as it is now. */
export function hooksState(view: Pick<ProjectHooksView, "trusted" | "error">): HooksState {
  if (view.error !== null) return "invalid";
  return view.trusted ? "trusted" : "untrusted";
}

export const HOOKS_STATE_LABELS: Record<HooksState, string> = { trusted: "trusted", untrusted: "not trusted", invalid: "invalid" };

/** Badge tones (app.css) of each state. */
export const HOOKS_STATE_TONES: Record<HooksState, "success" | "attention" | "danger"> = { trusted: "success", untrusted: "attention", invalid: "danger" };

/** Whether the new-run form should say the workspace's hooks wait for a review. */
export function awaitsTrust(view: ProjectHooksView | null | undefined): boolean {
  return view != null && !view.trusted;
}

/** What a hook's matcher picks: "matcher run_command", or every one of its moment. */
export function matcherText(hook: Pick<ProjectHookView, "matcher">): string {
  return hook.matcher === null || hook.matcher === "" || hook.matcher === "*" ? "every time" : `matcher ${hook.matcher}`;
}

/** "timeout 60 s". */
export function timeoutText(secs: number): string {
  return `timeout ${secs} s`;
}

/** What the prompt says after a `conflict`: what it shows now is the file as it is. */
export const CHANGED_MESSAGE = "The file changed since you opened it — review it again.";

/** The prompt's plain statement of what trusting means. */
export const TRUST_EXPLAINED =
  "Trusting lets these commands run on this machine, with the workspace as their folder, at the moments listed, in every run here. Editing the file untrusts it until you review it again.";
