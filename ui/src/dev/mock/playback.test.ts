import { describe, expect, it } from "vitest";
import type { DecisionInput, LiveUpdate, WorkspaceView } from "../../bindings";
import { playBack } from "./playback";
import { MockRunEngine, type MockRun } from "./runEngine";
import { createdOf, localise, SCENARIOS, takesFor, takeToContinue, type Take } from "./scenario";

const workspace: WorkspaceView = { id: "ws-1", path: "/w", name: "w", lastOpenedAt: "2025-03-14T09:30:00Z" };

function setup(name: keyof typeof SCENARIOS, options: { gateCommands?: boolean } = {}) {
  const pushed: LiveUpdate[] = [];
  const engine = new MockRunEngine({ push: (u) => pushed.push(u), stepMs: 0, streamMs: 0, gateModelCalls: false, gateCommands: options.gateCommands ?? false });
  const scenario = SCENARIOS[name];
  const recorded = createdOf(scenario.takes[0].run);
  const run = engine.create({ workspace, goal: recorded.goal, provider: "openai", model: "gpt-4.1", profile: "default", approvalMode: recorded.approval_mode, budgets: recorded.budgets, recorded });
  const local = (t: Take) => localise(scenario, t.run, { workspacePath: workspace.path, workspaceId: workspace.id, runs: [run.id] });
  // Played as the backend plays a run: in progress until its loop ends.
  const done = new Promise<void>((resolve) => engine.drive(run, () => playBack(engine, run, scenario.takes, local, { stepMs: 0, streamMs: 0, onArtifact: () => {} }).finally(resolve)));
  return { engine, run, pushed, done, scenario };
}

async function until(check: () => boolean) {
  const end = Date.now() + 10_000;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 1));
  expect(check()).toBe(true);
}

const types = (run: MockRun) => run.events.map((e) => e.payload.type);
const recordedTypes = (take: Take) => take.run.updates.flatMap((u) => (u.kind === "run_event" ? [u.event.payload.type] : []));

describe("playing a recorded run back", { timeout: 20_000 }, () => {
  it("commits what the runtime recorded, in order, as the user decides", async () => {
    const { engine, run, done, scenario } = setup("commands");
    const [take] = scenario.takes;
    for (const decision of take.decisions) {
      await until(() => run.waiting !== null);
      engine.decide(run.id, run.projection.pending_approval!.call_id, decision);
    }
    await done;
    expect(types(run)).toEqual(recordedTypes(take));
    expect(run.projection.status.kind).toBe("succeeded");
    // What the window asks afterwards is what the runtime answered.
    expect(run.outputs.get("call_1")).toBe(take.run.outputs.call_1);
    expect(run.contexts.size).toBe(Object.keys(take.run.contexts).length);
  });

  it("holds a command after its output until released, with the gate on", async () => {
    const { engine, run, pushed, done, scenario } = setup("commands", { gateCommands: true });
    await until(() => run.waiting !== null);
    engine.decide(run.id, "call_1", scenario.takes[0].decisions[0]);
    await until(() => pushed.some((u) => u.kind === "command_output"));
    await new Promise((r) => setTimeout(r, 20));
    expect(types(run)).not.toContain("command_finished");
    engine.releaseCommand();
    await until(() => types(run).includes("command_finished"));
    expect(engine.cancel(run.id)).toBe(true);
    await done;
    expect(run.projection.status.kind).toBe("cancelled");
  });

  it("refuses a decision no take recorded, and says so on the run", async () => {
    const { engine, run, done } = setup("commands");
    await until(() => run.waiting !== null);
    const unrecorded: DecisionInput = { approve: true, scope: "once", reason: null, allowPrefix: "make" };
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (e: unknown) => errors.push(e);
    try {
      engine.decide(run.id, "call_1", unrecorded);
      await done;
    } finally {
      console.error = original;
    }
    expect(run.projection.status.kind).toBe("failed");
    expect(run.projection.last_error).toMatch(/no recording of this decision/);
    expect(errors).toHaveLength(1);
  });

  it("finds the takes recorded for a request, or says which settings differ", () => {
    const provider = SCENARIOS.provider;
    const created = createdOf(provider.takes[0].run);
    const shape = { approvalMode: "ask_writes", budgets: created.budgets, price: null, instructions: false, contextWindow: null, untrustedHooks: false, planMode: false };
    const found = takesFor(provider, shape);
    expect(Array.isArray(found) && found.map((t) => t.name)).toEqual(["ask_writes: the write approved", "ask_writes: the write denied"]);
    const none = takesFor(provider, { ...shape, budgets: { ...created.budgets, max_model_calls: 7 } });
    expect(none).toMatch(/no recording of this run.*"max_model_calls":50/);
  });

  it("continues a run stopped before its question as if nothing was written", () => {
    const takes = SCENARIOS.demo.takes;
    expect(takeToContinue(takes, 0)?.decisions[0].approve).toBe(false);
    expect(takeToContinue([takes[0]], 1)).toBe(takes[0]);
  });
});
