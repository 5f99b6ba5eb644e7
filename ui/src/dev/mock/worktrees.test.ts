import { describe, expect, it } from "vitest";
import type { WorkspaceView, Worktree } from "../../bindings";
import { MockError } from "./errors";
import { MockRunEngine, type MockRun } from "./runEngine";
import { MockWorktrees, SAME_LINES } from "./worktrees";

const REPO = "/home/dev/projects/bear-demo";
const workspace: WorkspaceView = { id: "ws-1", path: REPO, name: "bear-demo", lastOpenedAt: "2025-03-14T09:30:00Z" };
const budgets = { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null };

function setup() {
  const engine = new MockRunEngine({ push: () => {}, stepMs: 0, streamMs: 0, gateModelCalls: false, gateCommands: false });
  const folders = new Set([REPO]);
  const files = new Set<string>();
  const trees = new MockWorktrees({
    engine,
    commit: (runId, payload) => void engine.commit(engine.runs.get(runId)!, payload, null, { silent: true }),
    repos: new Set([REPO]),
    folders,
    files,
  });
  /** A worktree run that wrote `path` and ended (or is left at `status`). */
  const run = (name: string | null, path: string | null, end: "succeeded" | "running" = "succeeded", worktree?: Worktree): MockRun => {
    const tree = worktree ?? trees.make(workspace, engine.nextId(), { name, base: null, carryChanges: false });
    const r = engine.create({ workspace, goal: "write it", provider: "openai", model: "gpt-4.1", profile: "default", approvalMode: "allow_all", budgets, worktree: tree });
    engine.commit(r, { type: "run_started" }, 1, { silent: true });
    if (path) engine.commit(r, { type: "artifact_recorded", call_id: "c1", path, before_hash: null, after_hash: "ab".repeat(32) }, null, { silent: true });
    if (end === "succeeded") engine.commit(r, { type: "run_succeeded", answer: "done" }, null, { silent: true });
    return r;
  };
  return { engine, trees, folders, files, run };
}

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof MockError ? e.error.code : "thrown";
  }
  return "ok";
};

describe("mock worktrees", () => {
  it("makes a worktree on bearagent/NAME outside the repository, the run working there under the main checkout's workspace", () => {
    const { run, folders } = setup();
    const r = run(null, null);
    const created = r.events[0].payload;
    expect(created.type === "run_created" && created.worktree).toMatchObject({ repo: REPO, branch: "bearagent/run0001", carried_changes: false });
    expect(r.projection.workspace_id).toBe("ws-1");
    expect(r.projection.workspace_path).toMatch(/^\/home\/dev\/\.local\/share\/bearagent\/worktrees\/bear-demo-[0-9a-f]{8}\/run0001$/);
    expect(folders.has(r.projection.workspace_path)).toBe(true);
  });

  it("refuses a folder that is not a repository's top, a bad or taken name", () => {
    const { trees, run } = setup();
    run("fix", null);
    const at = (path: string) => ({ ...workspace, path });
    expect(codeOf(() => trees.make(at("/home/dev/projects/notes"), "run-9", {}))).toBe("invalid_input");
    expect(codeOf(() => trees.make(at(`${REPO}/src`), "run-9", {}))).toBe("invalid_input");
    expect(codeOf(() => trees.make(workspace, "run-9", { name: "a b" }))).toBe("invalid_input");
    expect(codeOf(() => trees.make(workspace, "run-9", { name: "fix" }))).toBe("conflict");
  });

  it("lists each worktree with its runs and state, newest first; a follow-up joins its worktree", () => {
    const { trees, run } = setup();
    const first = run("one", "a.txt");
    const other = run("two", null, "running");
    const tree = first.events[0].payload.type === "run_created" ? first.events[0].payload.worktree! : undefined;
    const followUp = run(null, "b.txt", "succeeded", tree);
    expect(trees.list().map((w) => [w.branch, w.state, w.runs])).toEqual([
      ["bearagent/two", "running", [other.id]],
      ["bearagent/one", "ready_to_apply", [first.id, followUp.id]],
    ]);
  });

  it("applies a worktree's files to the main checkout, and refuses by name a file another worktree landed first", () => {
    const { trees, run, files } = setup();
    const a = run("a", "outputs/report.md");
    const b = run("b", "outputs/report.md");
    expect(trees.apply(a.id, [])).toEqual({ applied: ["outputs/report.md"], merged: [], refused: [] });
    expect(files.has(`${REPO}/outputs/report.md`)).toBe(true);
    expect(trees.apply(b.id, [])).toEqual({ applied: [], merged: [], refused: [{ path: "outputs/report.md", reason: SAME_LINES }] });
    expect(trees.apply(b.id, ["nope.txt"]).refused).toEqual([{ path: "nope.txt", reason: "the worktree did not change it" }]);
    // Recorded on the run; a refusal leaves it ready to apply again.
    expect(a.events.at(-1)?.payload).toEqual({ type: "worktree_applied", applied: ["outputs/report.md"], merged: [], refused: [] });
    expect(trees.list().map((w) => w.state)).toEqual(["ready_to_apply", "applied"]);
  });

  it("waits for runs in progress, discards after, prunes the applied ones", () => {
    const { trees, run, folders } = setup();
    const live = run("live", "x.txt", "running");
    expect(codeOf(() => trees.apply(live.id, []))).toBe("conflict");
    expect(codeOf(() => trees.discard(live.id))).toBe("conflict");
    const done = run("done", "y.txt");
    trees.apply(done.id, []);
    const dropped = run("dropped", "z.txt");
    trees.discard(dropped.id);
    expect(folders.has(dropped.projection.workspace_path)).toBe(false);
    expect(codeOf(() => trees.apply(dropped.id, []))).toBe("conflict");
    expect(trees.prune().map((w) => w.branch)).toEqual(["bearagent/done"]);
    expect(done.events.at(-1)?.payload).toEqual({ type: "worktree_removed", discarded: false });
    expect(trees.list().map((w) => [w.branch, w.state, w.sizeBytes > 0])).toEqual([
      ["bearagent/dropped", "discarded", false],
      ["bearagent/done", "removed", false],
      ["bearagent/live", "running", true],
    ]);
  });

  it("refuses a run that did not run in a worktree", () => {
    const { trees, engine } = setup();
    const plain = engine.create({ workspace, goal: "g", provider: "openai", model: "m", profile: "default", approvalMode: "allow_all", budgets });
    expect(codeOf(() => trees.apply(plain.id, []))).toBe("invalid_input");
  });
});
