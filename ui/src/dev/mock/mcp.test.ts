import { describe, expect, it } from "vitest";
import type { EventPayload, McpServerView, SecretSourceView } from "../../bindings";
import { envelope } from "../../lib/runs/testSupport";
import { MockError } from "./errors";
import { MockMcpServers } from "./mcp";
import { project } from "./projection";

const everything: McpServerView = {
  name: "everything",
  enabled: true,
  transport: { kind: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: [] },
  startupTimeoutSecs: null,
  toolTimeoutSecs: null,
};
const withEnv = (env: { name: string; source: SecretSourceView }[]): McpServerView => ({ ...everything, transport: { kind: "stdio", command: "npx", args: [], env } });
const broken: McpServerView = { ...everything, name: "broken", transport: { kind: "stdio", command: "nope", args: [], env: [] } };

/** The ApiError a mock call fails with. */
function errorOf(call: () => unknown) {
  try {
    call();
  } catch (e) {
    if (e instanceof MockError) return e.error;
    throw e;
  }
  throw new Error("expected a MockError");
}

describe("mock MCP servers", () => {
  it("checks servers like the config and names the field", () => {
    const mcp = new MockMcpServers([]);
    expect(errorOf(() => mcp.save({ ...everything, name: "a b" }))).toMatchObject({ code: "invalid_input", message: expect.stringMatching(/^mcp_servers\.a b: a server name/) });
    expect(errorOf(() => mcp.save({ ...everything, transport: { kind: "http", url: "ftp://h", bearer_token: null } })).message).toMatch(/^mcp_servers\.everything\.url:/);
    expect(errorOf(() => mcp.save({ ...everything, toolTimeoutSecs: 0 })).message).toMatch(/tool_timeout_secs: must be greater than 0/);
    const twice = withEnv([{ name: "A", source: { kind: "literal", value: "1" } }, { name: "A", source: { kind: "literal", value: "2" } }]);
    expect(errorOf(() => mcp.save(twice)).message).toBe("env: A is given twice");
    expect(mcp.views()).toEqual([]);
  });

  it("stores keychain secrets only for values that name the keychain, and says only whether they are stored", () => {
    const mcp = new MockMcpServers([]);
    mcp.save(withEnv([{ name: "TOKEN", source: { kind: "keychain", present: false } }]));
    expect(errorOf(() => mcp.setSecret("everything", "OTHER", "x"))).toMatchObject({ code: "invalid_input" });
    expect(errorOf(() => mcp.setSecret("everything", "TOKEN", " "))).toMatchObject({ code: "invalid_input", message: "the secret is empty" });
    expect(errorOf(() => mcp.setSecret("nobody", "TOKEN", "x"))).toMatchObject({ code: "not_found" });
    expect(errorOf(() => mcp.test("everything"))).toMatchObject({ code: "invalid_input", message: expect.stringMatching(/TOKEN/) });
    mcp.setSecret("everything", "TOKEN", "s3cret");
    const [view] = mcp.views();
    expect(view.transport).toMatchObject({ env: [{ name: "TOKEN", source: { kind: "keychain", present: true } }] });
    expect(JSON.stringify(mcp.views())).not.toMatch(/s3cret/);
    mcp.delete("everything");
    mcp.save(withEnv([{ name: "TOKEN", source: { kind: "keychain", present: true } }]));
    expect(mcp.views()[0].transport).toMatchObject({ env: [{ source: { present: false } }] });
  });

  it("tests like server-everything, fails a program that is not there as unavailable", () => {
    const mcp = new MockMcpServers([everything, broken]);
    const result = mcp.test("everything");
    expect(result).toMatchObject({ serverName: "mcp-servers/everything", serverVersion: "2.0.0", protocolVersion: "2025-06-18" });
    expect(result.tools).toHaveLength(12);
    expect(result.tools.find((t) => t.name === "echo")).toMatchObject({ exposedName: "everything__echo", readOnlyHint: true });
    expect(result.tools.some((t) => t.destructiveHint === true)).toBe(true);
    expect(errorOf(() => mcp.test("broken"))).toMatchObject({ code: "unavailable", message: expect.stringMatching(/could not start `nope`/) });
    expect(errorOf(() => mcp.test("ghost"))).toMatchObject({ code: "not_found" });
  });

  it("records server reports only while the run is in progress, like the kernel", () => {
    const created: EventPayload = {
      type: "run_created", goal: "g", workspace_id: "ws-1", workspace_path: "/w", profile: "default",
      budgets: { max_model_calls: 5, max_tool_calls: 5, max_input_tokens: 1_000, max_output_tokens: 100, max_wall_time_ms: 60_000, max_cost_micro_usd: null },
      approval_mode: "ask_writes", context_caps: { max_context_bytes: 1_000, max_tool_result_bytes: 100 }, max_invalid_outputs: 2, provider: "p", model: "m", config_versions: {},
    };
    const report: EventPayload = { type: "mcp_server_unavailable", server: "broken", reason: "r" };
    expect(project([envelope(1, created), envelope(2), envelope(3, report)]).status).toEqual({ kind: "running" });
    expect(() => project([envelope(1, created), envelope(2, report)])).toThrow(/mcp_server_unavailable/);
  });
});
