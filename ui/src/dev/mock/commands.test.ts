import { describe, expect, it } from "vitest";
import type { EventPayload } from "../../bindings";
import { envelope } from "../../lib/runs/testSupport";
import { DEFAULT_COMMANDS, commandSummary, modelText, verdictFor } from "./commands";
import { project } from "./projection";

describe("mock command rules", () => {
  const settings = { ...DEFAULT_COMMANDS, rules: [{ prefix: "cargo", decision: "allow" as const }, { prefix: "cargo publish", decision: "deny" as const }] };

  it("decides by word prefixes, the strictest match winning, run prefixes behind the profile's denies", () => {
    expect(verdictFor("cargo test", settings, [])).toEqual({ decision: "allow", rule: "rule `cargo` → allow", noRule: false });
    expect(verdictFor("cargo publish --dry-run", settings, []).rule).toBe("rule `cargo publish` → deny");
    expect(verdictFor("cargo publish", settings, ["cargo publish"]).decision).toBe("deny");
    expect(verdictFor("cargotest", settings, [])).toEqual({ decision: "ask", rule: "no rule matches `cargotest` → ask", noRule: true });
    expect(verdictFor("npm test", DEFAULT_COMMANDS, ["npm test"]).rule).toBe("rule `npm test` → allow");
  });

  it("writes the approval summary and the model's text like the backend", () => {
    expect(commandSummary("ls", ".", DEFAULT_COMMANDS, "no rule matches `ls` → ask")).toBe("run `ls` in . · sandboxed, no network · no rule matches `ls` → ask");
    expect(commandSummary("ls", "src", { ...DEFAULT_COMMANDS, sandbox: false }, "r")).toBe("run `ls` in src · NOT sandboxed (the sandbox is off in this profile) · r");
    expect(modelText(1, 1_840, "\x1b[31mFAILED\x1b[0m\n")).toBe("exit code 1, after 1.8 s\nFAILED\n");
  });
});

describe("mock reducer: commands", () => {
  const created: EventPayload = {
    type: "run_created", goal: "g", workspace_id: "ws-1", workspace_path: "/w", profile: "default",
    budgets: { max_model_calls: 5, max_tool_calls: 5, max_input_tokens: 1_000, max_output_tokens: 100, max_wall_time_ms: 60_000, max_cost_micro_usd: null },
    approval_mode: "ask_writes", context_caps: { max_context_bytes: 1_000, max_tool_result_bytes: 100 }, max_invalid_outputs: 2, provider: "p", model: "m", config_versions: {},
  };
  const started: EventPayload = { type: "command_started", call_id: "c1", command: "ls", cwd: ".", sandboxed: true, network: false, rule: "r" };
  const call = { call_id: "c1", tool_name: "run_command", arguments: { command: "ls" } };
  const run = (payloads: EventPayload[]) => project(payloads.map((p, i) => envelope(i + 1, p)));

  it("needs the tool call to be started, and changes nothing else", () => {
    const before = run([created, { type: "run_started" }, { type: "tool_call_requested", call }, { type: "tool_call_started", call_id: "c1" }]);
    const after = run([created, { type: "run_started" }, { type: "tool_call_requested", call }, { type: "tool_call_started", call_id: "c1" }, started]);
    expect({ ...after, last_seq: 0, updated_at: "" }).toEqual({ ...before, last_seq: 0, updated_at: "" });
    expect(after.open_tool_calls).toEqual({ c1: "started" });
    expect(() => run([created, { type: "run_started" }, { type: "tool_call_requested", call }, started])).toThrow(/tool call c1 is requested/);
  });
});
