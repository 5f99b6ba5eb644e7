// Development-only: what the mock's scripted runs (steering.ts, hookRun.ts)
// share — committing their events a step apart, and a model turn.
import type { Action, EventPayload } from "../../bindings";
import { sleep } from "./playback";
import type { MockRun, MockRunEngine } from "./runEngine";

/** Commits `payloads` a step apart; false when the run was cancelled (then it ends so). */
export async function commitScript(engine: MockRunEngine, run: MockRun, payloads: EventPayload[], stepMs: number): Promise<boolean> {
  for (const payload of payloads) {
    await sleep(stepMs);
    if (run.cancelled) {
      engine.commit(run, { type: "run_cancelled", reason: "cancelled by the user" });
      return false;
    }
    engine.commit(run, payload);
  }
  return true;
}

/** One model call that answered with `action` (and wrote `text` first). */
export function modelTurn(action: Action, text: string): EventPayload[] {
  return [
    { type: "model_call_started", provider: "demo", model: "demo-script" },
    { type: "model_call_completed", action, usage: { input: 1200, output: 160 }, stop_reason: action.type === "final_answer" ? "end_turn" : "tool_use", text },
  ];
}
