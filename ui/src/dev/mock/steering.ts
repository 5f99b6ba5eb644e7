// Development-only: scripted runs for plan mode and the todo list, which no
// recording covers yet. A plan-mode run reads and answers with a Markdown
// plan; its approved follow-up updates its todo list twice around a
// command approval (so a test sees the list change and can remember the
// command's prefix).
import type { DecisionInput, EventPayload, TodoItem, TodoStatus } from "../../bindings";
import type { MockRun, MockRunEngine, NewRun } from "./runEngine";
import { commitScript, modelTurn } from "./script";

export const MOCK_PLAN = [
  "## Plan",
  "",
  "1. Read `src/parser.rs` and its tests to find where empty input fails.",
  "2. Add a test for empty input.",
  "3. Return an empty document for empty input.",
  "4. Run `cargo test`.",
].join("\n");

const STEPS = ["Add a test for empty input", "Return an empty document for empty input", "Run cargo test"];
const COMMAND = "cargo test";
const CALL_ID = "call-plan-1";

function todo(...statuses: TodoStatus[]): EventPayload {
  const items: TodoItem[] = STEPS.map((step, i) => ({ step, status: statuses[i] }));
  return { type: "todo_updated", items };
}

export class MockSteering {
  /** Plan-mode runs scripted here: their follow-ups are too. */
  readonly #plans = new Set<string>();

  constructor(
    readonly engine: MockRunEngine,
    readonly stepMs: number,
  ) {}

  /** A plan-mode run: it reads, then answers with the plan. */
  startPlan(spec: NewRun): { runId: string } {
    const run = this.engine.create({ ...spec, planMode: true });
    this.#plans.add(run.id);
    this.engine.drive(run, async () => void (await this.#script(run, [{ type: "run_started" }, ...this.#answer(MOCK_PLAN)])));
    return { runId: run.id };
  }

  /** Whether a reply to this run is scripted here (a follow-up of a plan-mode run). */
  continues(parentRunId: string, atSeq: number | null): boolean {
    return atSeq === null && this.#plans.has(parentRunId);
  }

  /** The plan carried out: todo list, a command to approve, the list done. */
  followUp(spec: NewRun): { runId: string } {
    const run = this.engine.create(spec);
    this.engine.drive(run, () => this.#carryOut(run));
    return { runId: run.id };
  }

  async #carryOut(run: MockRun): Promise<void> {
    const summary = `run \`${COMMAND}\` in . · sandboxed, no network · rule: ask (default)`;
    const asked: EventPayload[] = [
      { type: "run_started" },
      todo("completed", "in_progress", "pending"),
      { type: "tool_call_requested", call: { call_id: CALL_ID, tool_name: "run_command", arguments: { command: COMMAND } } },
      { type: "approval_requested", call_id: CALL_ID, tool_name: "run_command", summary },
    ];
    if (!(await this.#script(run, asked))) return;
    const decision = await new Promise<DecisionInput | "cancel">((resolve) => (run.waiting = resolve));
    if (decision === "cancel") {
      this.engine.commit(run, { type: "run_cancelled", reason: "cancelled while waiting for approval" });
      return;
    }
    run.decided.push(decision);
    await this.#script(run, decision.approve ? this.#ran(decision) : this.#denied(decision));
  }

  #ran(decision: DecisionInput): EventPayload[] {
    return [
      { type: "approval_granted", call_id: CALL_ID, by: "user", scope: decision.scope, allowed_prefix: decision.allowPrefix ?? null, network: decision.network ?? false },
      { type: "tool_call_started", call_id: CALL_ID },
      { type: "tool_call_completed", result: { call_id: CALL_ID, content: "test result: ok. 12 passed; 0 failed", is_error: false }, receipt: null, truncated: false, original_bytes: 37 },
      todo("completed", "completed", "completed"),
      ...this.#answer("Done: empty input now gives an empty document, and `cargo test` passes."),
    ];
  }

  #denied(decision: DecisionInput): EventPayload[] {
    return [
      { type: "approval_denied", call_id: CALL_ID, by: "user", scope: decision.scope, reason: decision.reason },
      ...this.#answer("Stopped before running the tests, as you asked."),
    ];
  }

  /** A model turn answering `content`, and the run's success. */
  #answer(content: string): EventPayload[] {
    return [...modelTurn({ type: "final_answer", content }, content), { type: "run_succeeded", answer: content }];
  }

  /** Commits `payloads` a step apart; false when the run was cancelled (then it ends so). */
  #script(run: MockRun, payloads: EventPayload[]): Promise<boolean> {
    return commitScript(this.engine, run, payloads, this.stepMs);
  }
}
