import { describe, expect, it } from "vitest";
import type { EventEnvelope, EventPayload } from "../../bindings";
import { liveText } from "./commandOutput.svelte";
import { RunViewStore } from "./runView.svelte";
import { envelope, fakeRunsApi, projection } from "./testSupport";

const created = (): EventEnvelope =>
  envelope(1, {
    type: "run_created",
    goal: "g",
    workspace_id: "ws-1",
    workspace_path: "/w",
    profile: "default",
    budgets: projection().budgets,
    approval_mode: "ask_writes",
    context_caps: { max_context_bytes: 1, max_tool_result_bytes: 1 },
    max_invalid_outputs: 2,
    provider: "openai",
    model: "m",
    config_versions: {},
  }, null);

const call = { call_id: "c1", tool_name: "run_command", arguments: { command: "cargo test", cwd: "." } };
const commandStarted: EventPayload = { type: "command_started", call_id: "c1", command: "cargo test", cwd: ".", sandboxed: true, network: false, rule: "rule `cargo test` → allow" };
const commandFinished: EventPayload = {
  type: "command_finished", call_id: "c1", exit_code: 1, signal: null, duration_ms: 1_200, output: "ab12", output_bytes: 9,
  output_truncated: false, timed_out: false, cancelled: false, changed_files: 0, unrevertable_files: 0,
};
const upToStart = () => [
  created(),
  envelope(2),
  envelope(3, { type: "tool_call_requested", call }),
  envelope(4, { type: "tool_call_started", call_id: "c1" }),
];

describe("RunViewStore: commands", () => {
  it("streams a command's live output, then finds its start and end by call", async () => {
    const fake = fakeRunsApi(upToStart());
    const store = new RunViewStore(fake.api, "run-1", { commandOutput: { flushMs: 0 } });
    await store.open();
    expect(fake.api.onCommandOutput).toHaveBeenCalledOnce();

    const started = envelope(5, commandStarted);
    fake.store(started);
    fake.push(started);
    expect(store.commandStartOf("c1")?.command).toBe("cargo test");
    fake.output("c1", "test a ... ok\n");
    fake.output("c1", "oops\n", "run-2");
    store.outputs.flush();
    expect(liveText(store.outputs.live.get("c1")!)).toBe("test a ... ok\n");
    expect(store.outputs.live.get("c1")?.fromStart).toBe(true);
    expect(store.commandEndOf("c1")).toBeNull();

    fake.output("c1", "FAILED\n");
    const finished = envelope(6, commandFinished);
    fake.store(finished);
    fake.push(finished);
    expect(store.commandEndOf("c1")).toEqual({ seq: 6, finished: commandFinished });
    // What arrived before the end is kept; anything later is stale.
    expect(liveText(store.outputs.live.get("c1")!)).toBe("test a ... ok\nFAILED\n");
    fake.output("c1", "late\n");
    store.outputs.flush();
    expect(liveText(store.outputs.live.get("c1")!)).toBe("test a ... ok\nFAILED\n");
    store.close();
  });

  it("does not take a command read from the log for one streamed from its start", async () => {
    const fake = fakeRunsApi([...upToStart(), envelope(5, commandStarted)]);
    const store = new RunViewStore(fake.api, "run-1", { commandOutput: { flushMs: 0 } });
    await store.open();
    fake.output("c1", "tail of it\n");
    store.outputs.flush();
    expect(store.outputs.live.get("c1")?.fromStart).toBe(false);
    store.close();
  });

  it("fetches a finished command's stored output from the backend", async () => {
    const fake = fakeRunsApi([...upToStart(), envelope(5, commandStarted), envelope(6, commandFinished)]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    await store.outputs.load("c1");
    expect(fake.api.commandOutput).toHaveBeenCalledWith("run-1", "c1");
    expect(store.outputs.stored.get("c1")).toEqual({ kind: "ready", text: "stored output\n" });
    store.close();
  });

  it("approves a command and allows commands starting with a prefix for the rest of the run", async () => {
    const fake = fakeRunsApi([
      ...upToStart().slice(0, 3),
      envelope(4, { type: "approval_requested", call_id: "c1", tool_name: "run_command", summary: "run `cargo test` in . · sandboxed, no network · no rule matches `cargo test` → ask" }),
    ]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    await expect(store.decide("c1", "allow_prefix", "", "  cargo   test ")).resolves.toBe(true);
    expect(fake.api.decide).toHaveBeenCalledWith("run-1", "c1", { approve: true, scope: "once", reason: null, allowPrefix: "cargo test" });
    store.close();
  });

  it("shows an MCP tool's progress while it runs, and drops later lines once its result is in", async () => {
    const mcpCall = { call_id: "m1", tool_name: "everything__trigger-long-running-operation", arguments: { duration: 2, steps: 4 } };
    const fake = fakeRunsApi([created(), envelope(2), envelope(3, { type: "tool_call_requested", call: mcpCall })]);
    const store = new RunViewStore(fake.api, "run-1", { commandOutput: { flushMs: 0 } });
    await store.open();
    expect(store.isToolCallRunning("m1")).toBe(false); // requested, not started
    const started = envelope(4, { type: "tool_call_started", call_id: "m1" });
    fake.store(started);
    fake.push(started);
    expect(store.isToolCallRunning("m1")).toBe(true);
    fake.output("m1", "[1/4] step 1 of 4\n");
    fake.output("m1", "[2/4] step 2 of 4\n");
    store.outputs.flush();
    expect(liveText(store.outputs.live.get("m1")!)).toBe("[1/4] step 1 of 4\n[2/4] step 2 of 4\n");

    const done = envelope(5, { type: "tool_call_completed", result: { call_id: "m1", content: "Long running operation completed.", is_error: false }, receipt: null, truncated: false, original_bytes: 33 });
    fake.store(done);
    fake.push(done);
    expect(store.isToolCallRunning("m1")).toBe(false);
    fake.output("m1", "[4/4] late\n");
    store.outputs.flush();
    expect(liveText(store.outputs.live.get("m1")!)).not.toMatch(/late/);
    store.close();
  });

  it("does not count a started call of an ended run as running", async () => {
    const fake = fakeRunsApi([...upToStart(), envelope(5, { type: "run_cancelled", reason: null })]);
    const store = new RunViewStore(fake.api, "run-1");
    await store.open();
    expect(store.isToolCallRunning("c1")).toBe(false);
    store.close();
  });
});
