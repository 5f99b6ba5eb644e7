import { describe, expect, it } from "vitest";
import type { ApiError, WorkspaceView } from "../../bindings";
import { MockError } from "./errors";
import { MockRunEngine, type MockRun } from "./runEngine";
import { createdOf, localise, SCENARIOS } from "./scenario";
import { localIds, MockWorktreeSteps, worktreesFolder, type WorktreeRequest } from "./worktreeSteps";

const REPO = "/home/dev/projects/bear-demo";
const workspace: WorkspaceView = { id: "ws-1", path: REPO, name: "bear-demo", lastOpenedAt: "2025-03-14T09:30:00Z" };
const SCENARIO = SCENARIOS.worktrees;
const steps = (SCENARIO as unknown as { steps: { request: { cmd: string }; after: { list: unknown[] } }[] }).steps;

function setup() {
  const engine = new MockRunEngine({ push: () => {}, stepMs: 0, streamMs: 0, gateModelCalls: false, gateCommands: false });
  const folders = new Set([REPO]);
  const files = new Set<string>();
  const commit = (runId: string, payload: Parameters<MockRunEngine["commit"]>[1]) => void engine.commit(engine.runs.get(runId)!, payload, null, { silent: true });
  const trees = new MockWorktreeSteps({ engine, commit, repos: new Set([REPO]), folders, files });
  /** A finished run of the take recorded for `input`, as the mock plays it (its events committed at once). */
  const run = (input: { name?: string; base?: string; carryChanges?: boolean }): MockRun => {
    const started = trees.start(workspace, engine.nextId(), input);
    if (typeof started === "string") throw new Error(started);
    const created = createdOf(started.take.run);
    const r = engine.create({ workspace, goal: created.goal, provider: "openai", model: "gpt-4.1", profile: "default", approvalMode: "allow_all", budgets: created.budgets, worktree: started.worktree, recorded: created });
    Object.assign(r, { scenario: "worktrees", takes: [started.take] });
    folders.add(started.worktree.path);
    const local = localise(SCENARIO, started.take.run, localIds(r, [r.id]));
    for (const u of local.updates) if (u.kind === "run_event" && u.event.seq > 1) engine.commit(r, u.event.payload, null, { silent: true });
    return r;
  };
  return { trees, folders, files, run };
}

const errorOf = (f: () => unknown): ApiError | null => {
  try {
    f();
  } catch (e) {
    if (e instanceof MockError) return e.error;
    throw e;
  }
  return null;
};

describe("mock worktrees, played from the recording", () => {
  it("lists, applies, refuses, undoes, discards and prunes exactly as the runtime recorded it, its events on the runs", () => {
    const { trees, run, files } = setup();
    const a = run({ name: "report-a" });
    const b = run({ base: "main", carryChanges: true });
    expect(trees.list().map((w) => [w.branch, w.state])).toEqual([
      ["bearagent/run0002", "ready_to_apply"],
      ["bearagent/report-a", "ready_to_apply"],
    ]);
    const ids = { workspacePath: REPO, workspaceId: "ws-1", runs: [a.id, b.id], extra: [...localIds(a, []).extra!, ...localIds(b, []).extra!] };
    const requests: [MockRun | null, WorktreeRequest][] = [
      [a, { cmd: "apply_worktree", paths: [] }],
      [b, { cmd: "apply_worktree", paths: [] }],
      [a, { cmd: "undo_apply", force: false }],
      [b, { cmd: "discard_worktree" }],
    ];
    requests.forEach(([r, request], i) => {
      expect(steps[i].request.cmd).toBe(request.cmd);
      trees.play(r!.id, request);
      // The list the runtime gave after the same command, ids and folders as here.
      expect(trees.list()).toEqual(localise(SCENARIO, steps[i].after.list, ids));
    });
    expect(a.events.map((e) => e.payload.type).slice(-4)).toEqual(["worktree_step", "worktree_applied", "worktree_step", "worktree_step"]);
    const refused = b.events.find((e) => e.payload.type === "worktree_applied")?.payload;
    expect(refused).toMatchObject({ applied: [], refused: [{ path: "outputs/report.md", reason: "the main checkout changed the same lines since the worktree's start" }] });
    // Applied again from the first apply's state, then pruned.
    expect(trees.play(a.id, { cmd: "apply_worktree", paths: [] })).toEqual({ applied: ["outputs/report.md"], merged: [], refused: [] });
    expect(trees.prune()).toMatchObject([{ branch: "bearagent/report-a", state: "applied" }]);
    expect(trees.list()).toEqual(localise(SCENARIO, steps[4].after.list, ids));
    expect(files.has(`${REPO}/outputs/report.md`)).toBe(true);
  });

  it("refuses what was not recorded from the state it is in, saying so", () => {
    const { trees, run } = setup();
    const a = run({ name: "report-a" });
    trees.play(a.id, { cmd: "apply_worktree", paths: [] });
    // Applying again while applied was not recorded.
    expect(errorOf(() => trees.play(a.id, { cmd: "apply_worktree", paths: [] }))?.message).toMatch(/no recording of .*apply_worktree.*"state":"applied"/);
    expect(errorOf(() => trees.start(workspace, "run-9", { base: "v1.0" }))).toBeNull();
    expect(trees.start(workspace, "run-9", { base: "v1.0" })).toMatch(/no recording of a worktree run from v1\.0/);
  });

  it("refuses a start as the runtime did: a name whose folder exists, a folder that is no repository", () => {
    const { trees, run } = setup();
    run({ name: "taken" });
    expect(errorOf(() => trees.start(workspace, "run-9", { name: "taken" }))).toEqual({
      code: "conflict",
      message: `${worktreesFolder(REPO)}/taken exists already; choose another worktree name`,
    });
    const notes = { ...workspace, path: "/home/dev/projects/notes" };
    expect(errorOf(() => trees.start(notes, "run-9", {}))).toEqual({ code: "invalid_input", message: "/home/dev/projects/notes is not in a git repository; a worktree needs one" });
  });
});
