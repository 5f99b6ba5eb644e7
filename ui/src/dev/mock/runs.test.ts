import { describe, expect, it } from "vitest";
import type { RunFilterInput, WorkspaceView } from "../../bindings";
import { MockRunEngine } from "./runEngine";
import { search } from "./runs";

const here: WorkspaceView = { id: "ws-1", path: "/w", name: "w", lastOpenedAt: "2025-03-14T09:30:00Z" };
const elsewhere: WorkspaceView = { id: "ws-elsewhere:/home/alex/src/calc", path: "/home/alex/src/calc", name: "calc", lastOpenedAt: "2025-03-01T12:00:00Z" };
const budgets = { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000, max_cost_micro_usd: null };

function engine() {
  const e = new MockRunEngine({ push: () => {}, stepMs: 0, streamMs: 0, gateModelCalls: false, gateCommands: false });
  const add = (workspace: WorkspaceView, id: string, at: string) =>
    e.create({ workspace, goal: `goal of ${id}`, provider: "openai", model: "gpt-4.1", profile: "default", approvalMode: "allow_all", budgets }, at, id);
  add(here, "made-here", "2025-03-14T09:00:00Z");
  add(elsewhere, "imported-old", "2025-03-01T09:00:00Z");
  add(elsewhere, "imported-new", "2025-03-02T09:00:00Z");
  add(elsewhere, "not-imported", "2025-03-03T09:00:00Z");
  return e;
}

const imported = (runId: string) => (runId.startsWith("imported") ? `${runId}.bearagent-run` : null);
const filter = (more: Partial<RunFilterInput> = {}): RunFilterInput => ({ workspaceId: null, status: null, text: null, limit: null, ...more });

describe("mock search_runs", () => {
  it("importedOnly lists the imported runs only, of any workspace, newest first, each naming its file", () => {
    const runs = search(engine(), filter({ importedOnly: true }), imported);
    expect(runs.map((r) => [r.runId, r.importedFrom])).toEqual([
      ["imported-new", "imported-new.bearagent-run"],
      ["imported-old", "imported-old.bearagent-run"],
    ]);
    // With a workspace too, like the store's filter: both hold.
    expect(search(engine(), filter({ importedOnly: true, workspaceId: here.id }), imported)).toEqual([]);
  });

  it("without importedOnly, every run of the workspace (or all), imported ones marked", () => {
    const e = engine();
    expect(search(e, filter({ workspaceId: here.id }), imported).map((r) => r.runId)).toEqual(["made-here"]);
    const all = search(e, filter({ importedOnly: false }), imported);
    expect(all.map((r) => r.runId)).toEqual(["made-here", "not-imported", "imported-new", "imported-old"]);
    expect(all.find((r) => r.runId === "made-here")).not.toHaveProperty("importedFrom");
  });
});
