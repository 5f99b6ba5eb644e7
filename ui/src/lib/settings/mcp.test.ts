import { describe, expect, it } from "vitest";
import type { McpServerView } from "../../bindings";
import {
  emptyEnvRow,
  emptyMcpServerForm,
  isMcpToolName,
  mcpRuleKeyError,
  mcpRulesToForm,
  mcpServerToForm,
  mcpTestErrorTitle,
  mcpUrlError,
  missingSecrets,
  secretState,
  serverNameError,
  toolBadges,
  toolFromRecord,
  transportSummary,
  validateMcpRules,
  validateMcpServer,
  type McpServerForm,
} from "./mcp";
import { emptyProfileForm, profileToForm, validateProfile } from "./validation";

const EVERYTHING: McpServerView = {
  name: "everything",
  enabled: true,
  transport: {
    kind: "stdio",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-everything"],
    env: [
      { name: "SOME_VAR", source: { kind: "literal", value: "value" } },
      { name: "TOKEN", source: { kind: "env", variable: "MY_TOKEN" } },
      { name: "OTHER", source: { kind: "keychain", present: true } },
    ],
  },
  startupTimeoutSecs: 20,
  toolTimeoutSecs: 120,
};

const REMOTE: McpServerView = {
  name: "remote",
  enabled: false,
  transport: { kind: "http", url: "http://127.0.0.1:3001/mcp", bearer_token: { kind: "keychain", present: false } },
  startupTimeoutSecs: null,
  toolTimeoutSecs: null,
};

const stdio = (patch: Partial<McpServerForm> = {}): McpServerForm => ({ ...emptyMcpServerForm(), name: "everything", command: "npx", ...patch });

describe("MCP server form", () => {
  it("round-trips stdio and HTTP servers; nothing to store when no secret is typed", () => {
    for (const server of [EVERYTHING, REMOTE]) {
      expect(validateMcpServer(mcpServerToForm(server))).toEqual({ errors: null, server, secrets: [] });
    }
    const form = mcpServerToForm(EVERYTHING);
    expect(form).toMatchObject({ transport: "stdio", args: "-y\n@modelcontextprotocol/server-everything", startupTimeoutSecs: "20", toolTimeoutSecs: "120" });
    // The stored keychain value never comes back into the form.
    expect(form.env[2]).toEqual({ name: "OTHER", source: { kind: "keychain", value: "", variable: "", secret: "", present: true }, storedAs: "OTHER" });
  });

  it("trims, takes args one per line, empty timeouts as the default, and collects typed keychain values", () => {
    const form = stdio({ name: " fs ", command: " uvx ", args: " mcp-server-fs \n\n --root=/tmp \n", startupTimeoutSecs: " ", toolTimeoutSecs: "1,200" });
    form.env = [{ name: " API_KEY ", source: { kind: "keychain", value: "", variable: "", secret: " k-1 ", present: false }, storedAs: null }];
    expect(validateMcpServer(form)).toEqual({
      errors: null,
      secrets: [{ name: "API_KEY", value: "k-1" }],
      server: {
        name: "fs",
        enabled: true,
        transport: { kind: "stdio", command: "uvx", args: ["mcp-server-fs", "--root=/tmp"], env: [{ name: "API_KEY", source: { kind: "keychain", present: false } }] },
        startupTimeoutSecs: null,
        toolTimeoutSecs: 1200,
      },
    });
    const http = mcpServerToForm(REMOTE);
    http.bearer.secret = "tok";
    expect(validateMcpServer(http).secrets).toEqual([{ name: "bearer_token", value: "tok" }]);
    // Switching transport drops the other kind's fields: exactly one of command and url is sent.
    const switched = validateMcpServer({ ...stdio(), transport: "http", url: "https://mcp.example.com" }).server;
    expect(switched?.transport).toEqual({ kind: "http", url: "https://mcp.example.com", bearer_token: null });
  });

  it("checks names like the config: letters, digits, - and _", () => {
    expect(serverNameError("everything")).toBeNull();
    expect(serverNameError("my-server_2")).toBeNull();
    expect(serverNameError("")).toMatch(/Give the server a name/);
    for (const bad of ["a b", "a.b", "ünï", "x/y"]) expect(serverNameError(bad), bad).toMatch(/letters, digits/);
  });

  it("requires the command of a stdio server and an http(s) URL for an HTTP server", () => {
    expect(validateMcpServer(stdio({ command: "  " })).errors?.command).toMatch(/program that starts/);
    expect(mcpUrlError("http://127.0.0.1:3001/mcp")).toBeNull();
    expect(mcpUrlError("")).toMatch(/Enter the server's URL/);
    expect(mcpUrlError("ws://h/mcp")).toMatch(/http:\/\/ or https:\/\//);
    expect(mcpUrlError("localhost:3001")).toMatch(/http:\/\//);
    expect(mcpUrlError("http://")).toMatch(/full URL|host/);
    expect(validateMcpServer({ ...stdio(), transport: "http", url: "ftp://x" }).errors?.url).toMatch(/http/);
  });

  it("reports timeouts that are not whole seconds above 0", () => {
    for (const bad of ["0", "-1", "1.5", "soon"]) {
      expect(validateMcpServer(stdio({ startupTimeoutSecs: bad })).errors?.startupTimeoutSecs, bad).toMatch(/greater than 0/);
      expect(validateMcpServer(stdio({ toolTimeoutSecs: bad })).errors?.toolTimeoutSecs, bad).toMatch(/greater than 0/);
    }
    expect(validateMcpServer(stdio({ toolTimeoutSecs: "99999999999" })).errors?.toolTimeoutSecs).toMatch(/too long/);
  });

  it("checks env rows: variable names, given once, an env source naming a variable", () => {
    const row = (name: string, source: Partial<McpServerForm["env"][number]["source"]> = {}) => ({ ...emptyEnvRow(), name, source: { ...emptyEnvRow().source, ...source } });
    const result = validateMcpServer(stdio({ env: [row("1BAD"), row("A"), row("A"), row("B", { kind: "env", variable: "" }), row("C", { value: "keychain" }), row("D")] }));
    expect(result.server).toBeNull();
    expect(result.errors?.env).toEqual({
      0: { name: expect.stringMatching(/variable name/) },
      2: { name: "A is given twice." },
      3: { source: expect.stringMatching(/environment variable B comes from/) },
      4: { source: expect.stringMatching(/choose OS keychain/) },
    });
  });

  it("checks the bearer token's source only when there is one", () => {
    const http = { ...stdio(), transport: "http" as const, url: "https://h/mcp" };
    expect(validateMcpServer({ ...http, bearer: { ...http.bearer, kind: "none", variable: "not checked" } }).errors).toBeNull();
    expect(validateMcpServer({ ...http, bearer: { ...http.bearer, kind: "env", variable: "1X" } }).errors?.bearer).toMatch(/the token comes from/);
    expect(validateMcpServer({ ...http, bearer: { ...http.bearer, kind: "literal", value: " " } }).errors?.bearer).toMatch(/Enter the token, or choose None/);
    expect(validateMcpServer({ ...http, bearer: { ...http.bearer, kind: "env", variable: "REMOTE_TOKEN" } }).server?.transport).toEqual({
      kind: "http",
      url: "https://h/mcp",
      bearer_token: { kind: "env", variable: "REMOTE_TOKEN" },
    });
  });

  it("says whether a keychain value is stored, only for the name it was stored under", () => {
    const source = { kind: "keychain" as const, value: "", variable: "", secret: "", present: true };
    expect(secretState(source, true)).toBe("stored");
    expect(secretState(source, false)).toBe("not stored");
    expect(secretState({ ...source, present: false }, true)).toBe("not stored");
    expect(secretState({ ...source, secret: "x" }, true)).toBe("new");
  });
});

describe("MCP servers and tools as shown", () => {
  it("summarises the transport on one line and lists missing keychain values", () => {
    expect(transportSummary(EVERYTHING)).toBe("stdio: npx -y @modelcontextprotocol/server-everything");
    expect(transportSummary({ ...EVERYTHING, transport: { kind: "stdio", command: "node", args: ["my server.js"], env: [] } })).toBe('stdio: node "my server.js"');
    expect(transportSummary(REMOTE)).toBe("http: http://127.0.0.1:3001/mcp");
    expect(missingSecrets(EVERYTHING)).toEqual([]);
    expect(missingSecrets(REMOTE)).toEqual(["bearer_token"]);
  });

  it("badges tools from their annotations: only readOnlyHint true is a read", () => {
    expect(toolBadges({ readOnlyHint: true, destructiveHint: false })).toEqual(["read-only"]);
    expect(toolBadges({ readOnlyHint: null, destructiveHint: null })).toEqual(["writes"]);
    expect(toolBadges({ readOnlyHint: false, destructiveHint: true })).toEqual(["writes", "destructive"]);
    const record = { name: "everything__echo", tool: "echo", description: "Echoes", input_schema: {}, read_only_hint: true };
    expect(toolFromRecord(record)).toEqual({ exposedName: "everything__echo", title: null, description: "Echoes", readOnlyHint: true, destructiveHint: null });
  });

  it("tells MCP tools by their exposed name", () => {
    expect(isMcpToolName("everything__echo")).toBe(true);
    expect(isMcpToolName("read_file")).toBe(false);
  });

  it("titles a failed Test by the error code, never the message", () => {
    expect(mcpTestErrorTitle("unavailable")).toMatch(/did not start/);
    expect(mcpTestErrorTitle("not_found")).toMatch(/No such server/);
    expect(mcpTestErrorTitle("invalid_input")).toMatch(/incomplete/);
    expect(mcpTestErrorTitle("storage")).toBe("Storage error");
    expect(mcpTestErrorTitle("toString")).toBe("Error (toString)");
  });
});

describe("MCP rules of a profile", () => {
  it("takes a server or server.tool per row, each key once", () => {
    expect(mcpRuleKeyError("everything")).toBeNull();
    expect(mcpRuleKeyError("everything.get-sum")).toBeNull();
    expect(mcpRuleKeyError("everything.a.b")).toBeNull();
    expect(mcpRuleKeyError("")).toMatch(/Enter a server name/);
    expect(mcpRuleKeyError("every thing")).toMatch(/not a server name/);
    expect(mcpRuleKeyError(".echo")).toMatch(/not a server name/);
    expect(mcpRuleKeyError("everything.")).toMatch(/tool's name after the dot/);
    expect(validateMcpRules([{ key: " everything ", decision: "ask" }, { key: "everything.echo", decision: "allow" }])).toEqual({
      errors: null,
      rules: { everything: "ask", "everything.echo": "allow" },
    });
    expect(validateMcpRules([{ key: "a", decision: "ask" }, { key: "a", decision: "deny" }, { key: "b c", decision: "deny" }]).errors).toEqual({
      1: "a has a rule already.",
      2: expect.stringMatching(/not a server name/),
    });
  });

  it("round-trips a profile's rules unchanged, and keeps a profile with a bad rule from saving", () => {
    const stored = validateProfile({ ...emptyProfileForm(), name: "mcp" }).profile!;
    expect(stored.mcpRules).toEqual({});
    stored.mcpRules = { everything: "ask", "everything.echo": "allow", "github.delete_repo": "deny" };
    expect(mcpRulesToForm(stored.mcpRules)).toHaveLength(3);
    expect(validateProfile(profileToForm(stored)).profile).toEqual(stored);
    const bad = profileToForm(stored);
    bad.mcpRules.push({ key: "github.", decision: "deny" });
    expect(validateProfile(bad).errors?.mcpRules).toEqual({ 3: expect.any(String) });
  });
});
