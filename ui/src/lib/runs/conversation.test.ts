import { describe, expect, it } from "vitest";
import type { EventPayload } from "../../bindings";
import { ConversationFold, type ConversationItem, type ToolCardItem } from "./conversation";
import { envelope } from "./testSupport";

const created: EventPayload = {
  type: "run_created",
  goal: "Fix the failing test in calc.py",
  workspace_id: "ws-1",
  workspace_path: "/work/calc",
  profile: "default",
  budgets: { max_model_calls: 50, max_tool_calls: 100, max_input_tokens: 2_000_000, max_output_tokens: 200_000, max_wall_time_ms: 1_800_000 },
  approval_mode: "ask_writes",
  context_caps: { max_context_bytes: 1_000_000, max_tool_result_bytes: 16_384 },
  max_invalid_outputs: 2,
  provider: "openai",
  model: "gpt-4.1",
  config_versions: {},
};
const usage = { input: 100, output: 10 };
const call = (call_id: string, tool_name: string, args: Record<string, string>) => ({ call_id, tool_name, arguments: args });
const RUN = call("c1", "run_command", { command: "python3 test_calc.py" });
const EDIT = call("c2", "edit_file", { path: "calc.py", old_string: "    return a - b", new_string: "    return a + b" });

/** The three-step run: the test fails, the edit is approved, the test passes, the answer. */
const THREE_STEPS: EventPayload[] = [
  created,
  { type: "run_started" },
  { type: "model_call_requested", context_version: "v", context_bytes: 10, estimated_tokens: 900 },
  { type: "model_call_started", provider: "openai", model: "gpt-4.1" },
  { type: "model_call_completed", action: { type: "tool_calls", calls: [RUN] }, usage, stop_reason: "tool_use", text: "Running the test first." },
  { type: "tool_call_requested", call: RUN },
  { type: "tool_call_started", call_id: "c1" },
  { type: "command_started", call_id: "c1", command: "python3 test_calc.py", cwd: ".", sandboxed: true, network: false, rule: "rule → allow" },
  { type: "command_finished", call_id: "c1", exit_code: 1, signal: null, duration_ms: 40, output: "h", output_bytes: 30, output_truncated: false, timed_out: false, cancelled: false, changed_files: 0 },
  { type: "tool_call_failed", result: { call_id: "c1", content: "exit code 1", is_error: true } },
  { type: "model_call_requested", context_version: "v", context_bytes: 10 },
  { type: "model_call_started", provider: "openai", model: "gpt-4.1" },
  { type: "model_call_completed", action: { type: "tool_calls", calls: [EDIT] }, usage, stop_reason: "tool_use" },
  { type: "tool_call_requested", call: EDIT },
  { type: "approval_requested", call_id: "c2", tool_name: "edit_file", summary: "edit calc.py" },
  { type: "approval_granted", call_id: "c2", by: "user", scope: "once" },
  { type: "tool_call_started", call_id: "c2" },
  { type: "effect_intended", call_id: "c2", path: "calc.py", before_hash: "b1" },
  { type: "tool_call_completed", result: { call_id: "c2", content: "edited calc.py", is_error: false }, receipt: { path: "calc.py", before_hash: "b1", after_hash: "b2", bytes_written: 32 }, truncated: false, original_bytes: 14 },
  { type: "artifact_recorded", call_id: "c2", path: "calc.py", before_hash: "b1", after_hash: "b2" },
  { type: "model_call_requested", context_version: "v", context_bytes: 10 },
  { type: "model_call_started", provider: "openai", model: "gpt-4.1" },
  { type: "model_call_completed", action: { type: "final_answer", content: "Fixed add." }, usage, stop_reason: "end_turn", text: "Fixed add." },
  { type: "run_succeeded", answer: "Fixed add." },
];

function fold(payloads: EventPayload[]): ConversationFold {
  const f = new ConversationFold();
  payloads.forEach((p, i) => f.add(envelope(i + 1, p)));
  return f;
}

const kinds = (items: readonly ConversationItem[]) => items.map((i) => i.kind);
const card = (f: ConversationFold, callId: string) => f.items[f.cardIndex(callId) ?? -1] as ToolCardItem;

describe("ConversationFold", () => {
  it("reads the three-step run as the goal, the model's turns and one card per call", () => {
    const f = fold(THREE_STEPS);
    expect(kinds(f.items)).toEqual(["user", "model", "tool", "model", "tool", "model", "notice"]);
    expect(f.items[0]).toMatchObject({ kind: "user", text: "Fix the failing test in calc.py", parent: null, images: [] });
    expect(f.items[1]).toMatchObject({ kind: "model", startedSeq: 4, requestedSeq: 3, estimatedTokens: 900, text: "Running the test first.", endSeq: 5 });
    expect(f.items[5]).toMatchObject({ kind: "model", text: "Fixed add.", answer: true });
    expect(f.items[6]).toMatchObject({ kind: "notice", title: "Run succeeded", tone: "success", outcome: true });
  });

  it("keeps the goal's images on the user's message and a tool's images on its card's result", () => {
    const shot = { blob: "ab".repeat(32), media_type: "png" as const, bytes: 70, name: "error.png" };
    const plot = { blob: "cd".repeat(32), media_type: "webp" as const, bytes: 900, name: "plot.webp" };
    const withImages = THREE_STEPS.map((p): EventPayload => {
      if (p.type === "run_created") return { ...p, images: [shot] };
      if (p.type === "tool_call_failed") return { ...p, result: { ...p.result, images: [plot] } };
      return p;
    });
    const f = fold(withImages);
    expect(f.items[0]).toMatchObject({ kind: "user", images: [shot] });
    expect(card(f, "c1").result?.images).toEqual([plot]);
  });

  it("folds a call's events into its card, with the range of events it covers", () => {
    const f = fold(THREE_STEPS);
    expect(card(f, "c1")).toMatchObject({ firstSeq: 6, lastSeq: 10, failed: true, commandSeq: 8 });
    expect(card(f, "c1").commandEnd?.exit_code).toBe(1);
    const edit = card(f, "c2");
    expect(edit).toMatchObject({ firstSeq: 14, lastSeq: 20, approvalSeq: 15, created: false, paths: ["calc.py"] });
    expect(edit.decision).toMatchObject({ approved: true, seq: 16, by: "user" });
    expect(f.soleChange("calc.py", "c2")).toBe(true);
  });

  it("tells which calls changed a file: a review leaves the writers, another call shares them", () => {
    const f = fold([...THREE_STEPS, { type: "artifact_reverted", path: "calc.py", restored_hash: "b1", replaced_hash: "b2", forced: false }]);
    expect(f.changedBy("calc.py", "c2")).toBe("alone");
    expect(f.soleChange("calc.py", "c2")).toBe(false);
    expect(f.changedBy("calc.py", "c1")).toBeNull();
    f.add(envelope(THREE_STEPS.length + 2, { type: "artifact_recorded", call_id: "c1", path: "calc.py", before_hash: "b2", after_hash: "b3" }));
    expect(f.changedBy("calc.py", "c2")).toBe("shared");
    expect(f.changedBy("calc.py", "c1")).toBe("shared");
    expect(f.changedBy("other.py", "c2")).toBeNull();
  });

  it("replaces a changed item instead of mutating it, and leaves the others alone", () => {
    const f = fold(THREE_STEPS.slice(0, 7));
    const before = card(f, "c1");
    const goal = f.items[0];
    f.add(envelope(8, THREE_STEPS[7]));
    expect(card(f, "c1")).not.toBe(before);
    expect(before.command).toBeNull();
    expect(f.items[0]).toBe(goal);
  });

  it("keeps a retry and a model failure on the model turn", () => {
    const f = fold([
      created,
      { type: "model_call_started", provider: "p", model: "m" },
      { type: "model_call_retry_scheduled", attempt: 1, delay_ms: 2000, class: { provider: { retryable: true } }, message: "overloaded" },
      { type: "model_call_failed", class: "invalid_output", message: "not JSON", usage },
    ]);
    expect(f.items[1]).toMatchObject({ kind: "model", retries: ["Provider error (retryable): overloaded"], failure: "Invalid model output: not JSON", endSeq: 4 });
  });

  it("turns bookkeeping into quiet notes and failures into loud notices", () => {
    const f = fold([
      created,
      { type: "instructions_loaded", path: "AGENTS.md", blob: "b", bytes: 2100, truncated: false },
      { type: "context_compacted", summary: "s", replaced_through_seq: 1, tokens_before: 9000, tokens_after: 1000, usage },
      { type: "external_change_observed", path: "a.txt", hash: null },
      { type: "mcp_server_unavailable", server: "docs", reason: "exited" },
      { type: "run_failed", reason: "gave up" },
    ]);
    expect(f.items.slice(1).map((i) => (i.kind === "note" ? [i.kind, i.tone, i.text] : i.kind === "notice" ? [i.kind, i.tone, i.title, i.detail] : [i.kind]))).toEqual([
      ["note", "muted", "Instructions: AGENTS.md, 2.1 KB"],
      ["note", "muted", "Context compacted: ~9,000 → ~1,000 tokens"],
      ["note", "attention", "Changed outside the run"],
      ["notice", "danger", "MCP server docs unavailable", "exited"],
      ["notice", "danger", "Run failed", "gave up"],
    ]);
  });

  it("notes a worktree applied or removed after the answer, louder when files were refused", () => {
    const f = fold([
      created,
      { type: "run_succeeded", answer: "done" },
      { type: "worktree_applied", applied: ["calc.py"], merged: [], refused: [] },
      { type: "worktree_applied", applied: ["calc.py"], merged: ["README.md"], refused: [{ path: "notes.md", reason: "the main checkout changed the same lines since the worktree's start" }] },
      { type: "worktree_removed", discarded: true },
    ]);
    expect(f.items.slice(2).map((i) => (i.kind === "note" ? [i.tone, i.text] : [i.kind]))).toEqual([
      ["muted", "Applied 1 file to the main checkout"],
      ["attention", "Applied 2 files to the main checkout; merged README.md; refused notes.md (the main checkout changed the same lines since the worktree's start)"],
      ["muted", "Worktree discarded"],
    ]);
  });

  it("marks a denial, a loop and a write's new file on the card", () => {
    const write = call("c3", "write_file", { path: "new.txt", content: "hi\n" });
    const f = fold([
      created,
      { type: "tool_call_requested", call: EDIT },
      { type: "approval_requested", call_id: "c2", tool_name: "edit_file", summary: "edit" },
      { type: "approval_denied", call_id: "c2", by: "user", scope: "once", reason: "not yet" },
      { type: "tool_call_failed", result: { call_id: "c2", content: "the user denied this call: not yet", is_error: true } },
      { type: "tool_call_requested", call: RUN },
      { type: "loop_detected", call_id: "c1", tool_name: "run_command", repeats: 3 },
      { type: "tool_call_requested", call: write },
      { type: "effect_intended", call_id: "c3", path: "new.txt", before_hash: null },
    ]);
    expect(card(f, "c2").decision).toMatchObject({ approved: false, reason: "not yet" });
    expect(card(f, "c1").loopRepeats).toBe(3);
    expect(card(f, "c3").created).toBe(true);
  });

  it("names a follow-up's message and forgets everything on reset", () => {
    const f = fold([{ ...created, parent: { run_id: "r0", through_seq: 9, fork: false } } as EventPayload]);
    expect(f.items[0]).toMatchObject({ kind: "user", parent: { run_id: "r0", fork: false } });
    f.reset();
    expect(f.size).toBe(0);
    expect(f.cardIndex("c1")).toBeUndefined();
  });

  it("folds 20 000 events in well under a second", () => {
    const many: EventPayload[] = [created];
    for (let i = 0; many.length < 20_000; i++) {
      const c = call(`c${i}`, "read_file", { path: `f${i}.txt` });
      many.push(
        { type: "model_call_started", provider: "p", model: "m" },
        { type: "model_call_completed", action: { type: "tool_calls", calls: [c] }, usage, stop_reason: "tool_use" },
        { type: "tool_call_requested", call: c },
        { type: "tool_call_started", call_id: c.call_id },
        { type: "tool_call_completed", result: { call_id: c.call_id, content: "x\n", is_error: false }, receipt: null, truncated: false, original_bytes: 2 },
      );
    }
    const started = performance.now();
    const f = fold(many);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(f.size).toBe(1 + ((many.length - 1) / 5) * 2);
  });
});
