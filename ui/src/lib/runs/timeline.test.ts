import { describe, expect, it } from "vitest";
import type { EventPayload } from "../../bindings";
import { envelope } from "./testSupport";
import { actionSummary, argumentsSummary, argumentsText, byteLength, instructionsLine, modelErrorLabel, resultPreview, rowInfo } from "./timeline";
import { TimelineIndex } from "./timelineIndex";

describe("resultPreview", () => {
  it("keeps small results whole and collapses large ones", () => {
    expect(resultPreview("hello")).toEqual({ preview: "hello", bytes: 5, collapsible: false });
    const big = Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n");
    const preview = resultPreview(big);
    expect(preview.collapsible).toBe(true);
    expect(preview.bytes).toBe(byteLength(big));
    expect(preview.preview.length).toBeLessThanOrEqual(600);
    expect(big.startsWith(preview.preview)).toBe(true);
    expect(preview.preview.endsWith("\n")).toBe(false);
  });

  it("counts bytes, not characters", () => {
    expect(byteLength("é")).toBe(2);
    expect(resultPreview("é".repeat(1100)).collapsible).toBe(true);
  });
});

describe("arguments", () => {
  it("shows multi-line strings as blocks and summarises on one line", () => {
    const args = { path: "docs/plan.md", content: "# Plan\n\n1. Do it\n", force: true };
    expect(argumentsText(args)).toBe('path: "docs/plan.md"\ncontent: |\n  # Plan\n  \n  1. Do it\nforce: true');
    expect(argumentsSummary(args)).toBe('path: "docs/plan.md", content: "# Plan\\n\\n1. Do it\\n", force: true');
    expect(argumentsSummary({ text: "x".repeat(300) }, 40).length).toBe(40);
  });
});

describe("row presentation", () => {
  it("summarises a turn of one or several calls", () => {
    const call = (name: string) => ({ call_id: name, tool_name: name, arguments: {} });
    expect(actionSummary({ type: "tool_calls", calls: [call("read_file")] })).toBe("Tool call: read_file");
    expect(actionSummary({ type: "tool_calls", calls: [call("read_file"), call("list_dir")] })).toBe("2 tool calls: read_file, list_dir");
    expect(actionSummary({ type: "final_answer", content: "x" })).toBe("Final answer");
  });

  it("names error classes", () => {
    expect(modelErrorLabel({ provider: { retryable: true } })).toBe("Provider error (retryable)");
    expect(modelErrorLabel("invalid_output")).toBe("Invalid model output");
    expect(modelErrorLabel("truncated_stream")).toBe("Truncated stream");
  });

  it("never colours failures, interruptions or unknown effects as success", () => {
    const bad: EventPayload[] = [
      { type: "run_failed", reason: "x" },
      { type: "run_interrupted", reason: "x" },
      { type: "effect_unknown", call_id: "c", path: "p", detail: "d" },
      { type: "model_call_failed", class: "invalid_output", message: "m", usage: { input: 0, output: 0 } },
      { type: "tool_call_failed", result: { call_id: "c", content: "no", is_error: true } },
      { type: "budget_exhausted", which: "wall_time" },
      { type: "budget_exhausted", which: "cost" },
      { type: "run_cancelled", reason: null },
      { type: "loop_detected", call_id: "c", tool_name: "read_file", repeats: 3 },
      { type: "mcp_server_unavailable", server: "broken", reason: "command `nope` not found" },
    ];
    for (const p of bad) expect(rowInfo(p).tone).not.toBe("success");
    expect(rowInfo({ type: "run_succeeded", answer: "a" }).tone).toBe("success");
    expect(rowInfo({ type: "budget_exhausted", which: "cost" }).title).toBe("Cost limit reached");
    expect(rowInfo({ type: "budget_exhausted", which: "wall_time" }).title).toBe("Budget exhausted");
    expect(rowInfo({ type: "loop_detected", call_id: "c", tool_name: "read_file", repeats: 3 }).title).toMatch(/read_file repeated 3× .* not run/);
    expect(rowInfo({ type: "tool_call_completed", result: { call_id: "c", content: "e", is_error: true }, receipt: null, truncated: false, original_bytes: 1 }).tone).toBe("danger");
  });

  it("says when a tool call was printed as text and when the tool mode switched", () => {
    const call = { call_id: "text_4_0", tool_name: "read_file", arguments: { path: "a.txt" } };
    expect(rowInfo({ type: "tool_call_requested", call, parsed_from_text: "fenced_json" }).title).toBe("Tool call requested: read_file (printed as text, fenced json)");
    expect(rowInfo({ type: "tool_call_requested", call }).title).toBe("Tool call requested: read_file");
    const switched = rowInfo({ type: "tool_mode_switched", from: "native", to: "json-text", reason: "2 replies printed their tool call as text" });
    expect(switched.title).toBe("Tool mode switched: native → json-text (2 replies printed their tool call as text)");
    expect(switched.tone).toBe("attention");
  });

  it("titles MCP server rows with the server and its tool count", () => {
    const tool = { name: "everything__echo", tool: "echo", description: "Echoes", input_schema: {}, read_only_hint: true };
    const started = (tools: (typeof tool)[]): EventPayload => ({ type: "mcp_server_started", server: "everything", server_name: "mcp-servers/everything", server_version: "2.0.0", protocol_version: "2025-06-18", startup_ms: 120, tools });
    expect(rowInfo(started([tool, { ...tool, name: "everything__get-sum" }]))).toEqual({ title: "MCP server everything started · 2 tools", tone: "info", compact: false });
    expect(rowInfo(started([tool])).title).toBe("MCP server everything started · 1 tool");
    expect(rowInfo({ type: "mcp_server_unavailable", server: "broken", reason: "r" })).toEqual({ title: "MCP server broken unavailable", tone: "danger", compact: false });
  });

  it("shows a compaction with its tokens before and after", () => {
    const compacted = { type: "context_compacted" as const, summary: "h", replaced_through_seq: 40, tokens_before: 171_000, tokens_after: 12_500, usage: { input: 171_000, output: 900 }, cost_micro_usd: null };
    expect(rowInfo(compacted)).toEqual({ title: "Context compacted: ~171,000 → ~12,500 tokens", tone: "info", compact: false });
  });

  it("names the instructions file, its size and whether it was cut", () => {
    const loaded = { type: "instructions_loaded" as const, path: "AGENTS.md", blob: "h", bytes: 2150, truncated: false };
    expect(rowInfo(loaded)).toEqual({ title: "Instructions: AGENTS.md, 2.1 KB", tone: "muted", compact: true });
    expect(rowInfo({ ...loaded, path: "src/AGENTS.md", bytes: 40_000, truncated: true }).title).toBe("Instructions: src/AGENTS.md, 39.1 KB (cut to fit)");
  });

  it("counts a todo list's finished steps", () => {
    const items = [{ step: "fix add", status: "completed" as const }, { step: "run the tests", status: "in_progress" as const }];
    expect(rowInfo({ type: "todo_updated", items })).toEqual({ title: "Todo list: 1 of 2 done", tone: "muted", compact: true });
  });

  it("titles a worktree's apply with its report and its removal by why", () => {
    const refused = [{ path: "notes.md", reason: "the main checkout changed the same lines since the worktree's start" }];
    expect(rowInfo({ type: "worktree_applied", applied: ["calc.py", "a.py"], merged: [], refused: [] })).toEqual({ title: "Applied 2 files to the main checkout", tone: "success", compact: true });
    expect(rowInfo({ type: "worktree_applied", applied: [], merged: [], refused })).toEqual({
      title: "Applied nothing to the main checkout; refused notes.md (the main checkout changed the same lines since the worktree's start)",
      tone: "attention",
      compact: true,
    });
    expect(rowInfo({ type: "worktree_removed", discarded: true })).toEqual({ title: "Worktree discarded", tone: "attention", compact: true });
    expect(rowInfo({ type: "worktree_removed", discarded: false })).toMatchObject({ title: "Worktree removed after it was applied", tone: "muted" });
  });

  it("shows a command's start in full and its end by how it exited", () => {
    expect(rowInfo({ type: "command_started", call_id: "c", command: "ls", cwd: ".", sandboxed: true, network: false, rule: "r" })).toMatchObject({ compact: false });
    const end = { type: "command_finished" as const, call_id: "c", exit_code: 0 as number | null, signal: null, duration_ms: 5, output: null, output_bytes: 0, output_truncated: false, timed_out: false, cancelled: false, changed_files: 0 };
    expect(rowInfo(end)).toEqual({ title: "Command succeeded", tone: "success", compact: true });
    expect(rowInfo({ ...end, exit_code: 2 })).toMatchObject({ title: "Command failed (exit 2)", tone: "danger" });
    expect(rowInfo({ ...end, exit_code: null, timed_out: true })).toMatchObject({ title: "Command timed out", tone: "attention" });
  });
});

describe("TimelineIndex", () => {
  it("links tool and model call events", () => {
    const index = new TimelineIndex();
    const events = [
      envelope(1),
      envelope(2, { type: "model_call_requested", context_version: "c", context_bytes: 1 }),
      envelope(3, { type: "model_call_started", provider: "p", model: "m" }, 2),
      envelope(4, { type: "model_call_completed", action: { type: "tool_calls", calls: [{ call_id: "c1", tool_name: "t", arguments: {} }] }, usage: { input: 1, output: 1 }, stop_reason: "tool_use" }, 3),
      envelope(5, { type: "tool_call_requested", call: { call_id: "c1", tool_name: "t", arguments: {} } }, 4),
      envelope(6, { type: "approval_requested", call_id: "c1", tool_name: "t", summary: "s" }, 5),
      envelope(7, { type: "approval_granted", call_id: "c1", by: "user", scope: "once" }, 6),
      envelope(8, { type: "tool_call_started", call_id: "c1" }, 7),
      envelope(9, { type: "tool_call_completed", result: { call_id: "c1", content: "ok", is_error: false }, receipt: null, truncated: false, original_bytes: 2 }, 8),
      envelope(10, { type: "run_interrupted", reason: "r" }),
    ];
    events.forEach((e) => index.add(e));
    expect(index.calls.get("c1")).toEqual({ requested: 5, approval: 6, decision: 7, started: 8, end: 9 });
    index.add(envelope(13, { type: "command_started", call_id: "c2", command: "ls", cwd: ".", sandboxed: true, network: false, rule: "r" }));
    index.add(envelope(14, { type: "command_finished", call_id: "c2", exit_code: 0, signal: null, duration_ms: 1, output: null, output_bytes: 0, output_truncated: false, timed_out: false, cancelled: false, changed_files: 0 }));
    expect(index.calls.get("c2")).toEqual({ command: 13, commandEnd: 14 });
    expect(index.modelCalls.get(3)).toEqual({ requested: 2, end: 4 });
    expect(index.requestedSeqOf(events[1])).toBe(2);
    expect(index.requestedSeqOf(events[2])).toBe(2);
    expect(index.requestedSeqOf(events[3])).toBe(2);
    expect(index.requestedSeqOf(events[4])).toBeNull();
    expect(index.interruptedAt).toBe(10);
    index.add(envelope(11, { type: "run_resumed" }));
    expect(index.interruptedAt).toBeNull();
    index.add(envelope(12, { type: "run_succeeded", answer: "a" }));
    expect(index.endedAt).toBe(12);
  });
});

describe("project instructions", () => {
  const loaded = (seq: number, path: string, bytes: number, truncated = false): EventPayload => ({ type: "instructions_loaded", path, blob: `b${seq}`, bytes, truncated });

  it("titles the row and the header line with each file's size", () => {
    expect(rowInfo(loaded(3, "AGENTS.md", 2150)).title).toBe("Instructions: AGENTS.md, 2.1 KB");
    expect(rowInfo(loaded(3, "AGENTS.md", 40_000, true)).title).toBe("Instructions: AGENTS.md, 39.1 KB (cut to fit)");
    expect(instructionsLine([])).toBeNull();
    expect(
      instructionsLine([
        { path: "docs/AGENTS.md", bytes: 512, truncated: false, seq: 9 },
        { path: "AGENTS.md", bytes: 2150, truncated: false, seq: 3 },
        { path: "docs/AGENTS.md", bytes: 600, truncated: false, seq: 20 },
      ]),
    ).toBe("Instructions: AGENTS.md, 2.1 KB · docs/AGENTS.md, 600 B");
  });

  it("the index keeps the latest load of each file", () => {
    const index = new TimelineIndex();
    index.add(envelope(3, loaded(3, "AGENTS.md", 100)));
    index.add(envelope(8, loaded(8, "src/AGENTS.md", 50)));
    index.add(envelope(12, loaded(12, "AGENTS.md", 120)));
    expect([...index.instructions.values()]).toEqual([
      { path: "AGENTS.md", bytes: 120, truncated: false, seq: 12 },
      { path: "src/AGENTS.md", bytes: 50, truncated: false, seq: 8 },
    ]);
    index.reset();
    expect(index.instructions.size).toBe(0);
  });
});
