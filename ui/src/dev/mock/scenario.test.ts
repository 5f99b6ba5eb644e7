import { describe, expect, it } from "vitest";
import type { ArtifactItem, EventEnvelope, FileDiffView, LiveUpdate, WorkspaceView } from "../../bindings";
import { MockRunEngine } from "./runEngine";
import { adoptCreated, DEMO_RECORDING, localise, playBack, type RecordedRun } from "./scenario";

const workspace: WorkspaceView = { id: "ws-7", path: "/tmp/bearagent-demo-03", name: "bearagent-demo-03", lastOpenedAt: "2025-03-14T09:30:00Z" };

function setup() {
  const pushed: LiveUpdate[] = [];
  const e = new MockRunEngine({ push: (u) => pushed.push(u), stepMs: 0, streamMs: 0, gateModelCalls: false, gateCommands: false, onWrite: () => {} });
  const created = DEMO_RECORDING.approved.events[0].payload;
  if (created.type !== "run_created") throw new Error("no run_created");
  const run = e.create({ workspace, goal: created.goal, provider: created.provider, model: created.model, profile: created.profile, approvalMode: created.approval_mode, budgets: created.budgets });
  const ids = { workspacePath: workspace.path, workspaceId: workspace.id, runId: run.id };
  const approved = localise(DEMO_RECORDING.approved, ids);
  const denied = localise(DEMO_RECORDING.denied, ids);
  adoptCreated(run, approved);
  const written: { path: string; content: string | null; item: ArtifactItem; diff: FileDiffView }[] = [];
  e.drive(run, () => playBack(e, run, approved, denied, { stepMs: 0, streamMs: 0, onArtifact: (_r, path, content, item, diff) => written.push({ path, content, item, diff }) }));
  return { e, run, pushed, approved, denied, written };
}

async function until(f: () => boolean) {
  for (let i = 0; i < 500 && !f(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(f()).toBe(true);
}

/** What a recorded run says, without the timestamps (the mock's are its clock's). */
const shape = (events: EventEnvelope[]) => events.map(({ seq, cause, payload, run_id }) => ({ seq, cause, payload, run_id }));

describe("the demo played back from the runtime's recording", () => {
  it("holds no placeholder once localised, and both recordings agree up to the approval", () => {
    const { approved, denied, run } = setup();
    const text = JSON.stringify([approved, denied]);
    for (const placeholder of Object.values(DEMO_RECORDING.placeholders)) expect(text).not.toContain(placeholder);
    expect(approved.events[0].payload).toMatchObject({ type: "run_created", workspace_path: workspace.path, workspace_id: workspace.id });
    expect(approved.events.every((e) => e.run_id === run.id)).toBe(true);
    const asked = approved.events.findIndex((e) => e.payload.type === "approval_requested");
    expect(asked).toBeGreaterThan(0);
    expect(shape(denied.events.slice(0, asked + 1))).toEqual(shape(approved.events.slice(0, asked + 1)));
  });

  it("approved: commits exactly the recorded events, streams each model call's text first, and records the write as the runtime listed and diffed it", async () => {
    const { e, run, pushed, approved, written } = setup();
    await until(() => run.projection.pending_approval !== null);
    const call = run.projection.pending_approval!.call_id;
    expect(e.decide(run.id, call, { approve: true, scope: "once", reason: null, allowPrefix: null })).toBe(true);
    await until(() => !run.active);
    expect(shape(run.events)).toEqual(shape(approved.events));
    expect(run.projection.status.kind).toBe("succeeded");
    // The text of each model call arrives live before its completion.
    const streamed = new Map<number, string>();
    for (const u of pushed) if (u.kind === "model_text") streamed.set(u.modelCall, (streamed.get(u.modelCall) ?? "") + u.text);
    for (const ev of approved.events) {
      if (ev.payload.type !== "model_call_completed" || !ev.payload.text) continue;
      expect(streamed.get(ev.cause!)).toBe(ev.payload.text);
    }
    expect(written).toHaveLength(1);
    expect(written[0].path).toBe("docs/plan.md");
    expect(written[0].content).toMatch(/^# Plan\n/);
    expect(written[0].item).toMatchObject({ path: "docs/plan.md", change: "added", state: "pending", beforeBytes: 0, lines: { added: 5, removed: 0 } });
    expect(written[0].diff).toMatchObject({ kind: "text", added: 5, removed: 0, stats_only: false });
    if (written[0].diff.kind !== "text") throw new Error("text diff expected");
    expect(written[0].diff.hunks[0]).toMatchObject({ oldStart: 1, oldLen: 0, newStart: 1, newLen: 5 });
    expect(written[0].diff.hunks[0].lines[0]).toEqual({ kind: "added", oldLine: null, newLine: 1, text: "# Plan" });
  });

  it("denied: the recorded denial with the user's scope and reason, and the demo's answer after it", async () => {
    const { e, run, denied, written } = setup();
    await until(() => run.projection.pending_approval !== null);
    const call = run.projection.pending_approval!.call_id;
    e.decide(run.id, call, { approve: false, scope: "once", reason: "not now", allowPrefix: null });
    await until(() => !run.active);
    const expected: RecordedRun["events"] = denied.events.map((ev) => {
      if (ev.payload.type === "approval_denied") return { ...ev, payload: { ...ev.payload, reason: "not now" } };
      if (ev.payload.type === "tool_call_failed") return { ...ev, payload: { ...ev.payload, result: { ...ev.payload.result, content: "the user denied this call: not now" } } };
      return ev;
    });
    expect(shape(run.events)).toEqual(shape(expected));
    expect(run.projection.final_answer).toMatch(/did not happen/);
    expect(written).toEqual([]);
  });

  it("interrupted at the approval and resumed: the rest follows the resume, causes shifted with it", async () => {
    const { e, run, approved } = setup();
    await until(() => run.projection.pending_approval !== null);
    const call = run.projection.pending_approval!.call_id;
    expect(e.interrupt(run.id)).toBe(true);
    e.decide(run.id, call, { approve: true, scope: "once", reason: null, allowPrefix: null });
    await until(() => !run.active);
    const types = run.events.map((ev) => ev.payload.type);
    expect(types).toContain("run_interrupted");
    expect(types).toContain("run_resumed");
    expect(types.at(-1)).toBe("run_succeeded");
    expect(run.events.length).toBe(approved.events.length + 2);
    const granted = run.events.find((ev) => ev.payload.type === "approval_granted")!;
    expect(run.events[granted.cause! - 1].payload.type).toBe("approval_requested");
  });

  it("cancelled while waiting: the run ends cancelled", async () => {
    const { e, run } = setup();
    await until(() => run.projection.pending_approval !== null);
    expect(e.cancel(run.id)).toBe(true);
    await until(() => !run.active);
    expect(run.projection.status.kind).toBe("cancelled");
  });
});
