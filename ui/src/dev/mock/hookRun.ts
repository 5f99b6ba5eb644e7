// Development-only: a scripted run with hooks, which no recording covers
// yet (a goal mentioning curl starts it). The workspace's untrusted project
// hooks are reported first; a user SessionStart hook passes, a
// UserPromptSubmit hook times out (a warning; the run goes on); a
// PreToolUse hook refuses the model's `curl` command; a Stop hook sends the
// model back once before the run ends.
import type { EventPayload } from "../../bindings";
import type { HookRan, HooksNotTrusted } from "../../lib/hooks/runs";
import type { MockRun, MockRunEngine, NewRun } from "./runEngine";
import { commitScript, modelTurn } from "./script";

/** Goals this script answers. */
export const HOOKS_GOAL = /\bcurl\b/i;

export const CURL_CALL_ID = "call-hooks-1";
export const CURL_COMMAND = "curl -sL https://example.com";
export const DENY_REASON = "curl is not allowed here: use the fetch tool";
export const STOP_REASON = "say in one line which tool would work instead";

type HookFields = Omit<HookRan, "type" | "source" | "stdout" | "stderr" | "exit_code" | "duration_ms"> & Partial<Pick<HookRan, "stdout" | "stderr" | "exit_code" | "duration_ms">>;

function hook(fields: HookFields): HookRan {
  return { type: "hook_ran", source: "user", exit_code: 0, duration_ms: 12, stdout: "", stderr: "", ...fields };
}

/** The run's events after `run_started` (and `hooks_not_trusted`, when the workspace's hooks are not trusted). */
export function hookRunScript(untrusted: HooksNotTrusted | null): EventPayload[] {
  const finalAnswer = (content: string) => modelTurn({ type: "final_answer", content }, content);
  const answer = "curl is refused by a hook here; the fetch tool would work instead.";
  return [
    { type: "run_started" },
    ...(untrusted ? [untrusted] : []),
    hook({ hook: "SessionStart", command: "git status --short", decision: "proceed", for_model: " M calc.py", stdout: " M calc.py\n" }),
    hook({
      hook: "UserPromptSubmit",
      command: "~/.config/bearagent/hooks/audit-prompt.sh --log ~/.local/share/bearagent/prompts.log",
      exit_code: null,
      timed_out: true,
      duration_ms: 10_000,
      decision: "proceed",
      warning: "timed out after 10 s and was stopped; the run went on",
    }),
    ...modelTurn({ type: "tool_calls", calls: [{ call_id: CURL_CALL_ID, tool_name: "run_command", arguments: { command: CURL_COMMAND } }] }, "Let me fetch the page."),
    { type: "tool_call_requested", call: { call_id: CURL_CALL_ID, tool_name: "run_command", arguments: { command: CURL_COMMAND } } },
    hook({ hook: "PreToolUse", command: "python3 ~/.config/bearagent/hooks/no-curl.py", call_id: CURL_CALL_ID, exit_code: 2, decision: "deny", reason: DENY_REASON, stderr: DENY_REASON }),
    { type: "tool_call_failed", result: { call_id: CURL_CALL_ID, content: `refused by a PreToolUse hook: ${DENY_REASON}`, is_error: true } },
    ...finalAnswer("I could not fetch the page."),
    hook({ hook: "Stop", command: "./scripts/check-done.sh", exit_code: 2, decision: "block", reason: STOP_REASON, for_model: STOP_REASON, stderr: STOP_REASON }),
    ...finalAnswer(answer),
    { type: "run_succeeded", answer },
  ];
}

/** Starts the scripted run on `spec`; `untrusted`: the workspace's hooks file nobody trusted, if any. */
export function startHookRun(engine: MockRunEngine, spec: NewRun, untrusted: HooksNotTrusted | null, stepMs: number): { runId: string } {
  const run: MockRun = engine.create(spec);
  engine.drive(run, async () => void (await commitScript(engine, run, hookRunScript(untrusted), stepMs)));
  return { runId: run.id };
}
