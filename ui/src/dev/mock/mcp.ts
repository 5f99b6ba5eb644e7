// Development-only: MCP servers of the mock backend — kept in memory with
// the config's checks (validate_server) and error codes, keychain secrets
// that only ever say whether they are stored, and a Test (and a run's
// server start) answering like @modelcontextprotocol/server-everything.
import type { EventPayload, McpServerTestView, McpServerView, McpToolRecord, SecretSourceView, Value } from "../../bindings";
import { BEARER_TOKEN } from "../../lib/settings/mcp";
import { MockError, fail } from "./errors";

/** Variables set in the mock's environment (an env source naming another is "not set"). */
export const MOCK_ENV = new Set(["HOME", "PATH", "OPENAI_API_KEY", "GITHUB_TOKEN"]);

interface MockTool {
  tool: string;
  title: string;
  description: string;
  readOnly: boolean;
  destructive: boolean;
  schema: Record<string, Value>;
}

const object = (properties: Record<string, Value> = {}, required: string[] = []): Record<string, Value> => ({ type: "object", properties, required });

const EVERYTHING_TOOLS: MockTool[] = [
  { tool: "echo", title: "Echo Tool", description: "Echoes back the input string", readOnly: true, destructive: false, schema: object({ message: { type: "string", description: "Message to echo" } }, ["message"]) },
  { tool: "get-sum", title: "Get Sum Tool", description: "Returns the sum of two numbers", readOnly: true, destructive: false, schema: object({ a: { type: "number" }, b: { type: "number" } }, ["a", "b"]) },
  { tool: "get-env", title: "Print Environment Tool", description: "Returns all environment variables, helpful for debugging MCP server configuration", readOnly: true, destructive: false, schema: object() },
  { tool: "get-tiny-image", title: "Get Tiny Image Tool", description: "Returns a tiny MCP logo image.", readOnly: true, destructive: false, schema: object() },
  {
    tool: "trigger-long-running-operation",
    title: "Trigger Long Running Operation Tool",
    description: "Demonstrates a long running operation with progress updates.",
    readOnly: true,
    destructive: false,
    schema: object({ duration: { type: "number", default: 10 }, steps: { type: "number", default: 5 } }),
  },
  { tool: "get-annotated-message", title: "Get Annotated Message Tool", description: "Demonstrates how annotations can be used to provide metadata about content.", readOnly: true, destructive: false, schema: object({ messageType: { type: "string" } }, ["messageType"]) },
  { tool: "get-resource-links", title: "Get Resource Links Tool", description: "Returns up to ten resource links that reference different types of resources.", readOnly: true, destructive: false, schema: object({ count: { type: "number" } }) },
  { tool: "get-resource-reference", title: "Get Resource Reference Tool", description: "Returns a resource reference that can be used by MCP clients.", readOnly: true, destructive: false, schema: object({ resourceId: { type: "number" } }, ["resourceId"]) },
  { tool: "get-structured-content", title: "Get Structured Content Tool", description: "Returns structured content along with an output schema for client data validation.", readOnly: true, destructive: false, schema: object({ location: { type: "string" } }, ["location"]) },
  { tool: "toggle-simulated-logging", title: "Toggle Simulated Logging", description: "Toggles simulated, random-leveled logging on or off.", readOnly: false, destructive: false, schema: object() },
  { tool: "gzip-file-as-resource", title: "GZip File as Resource Tool", description: "Compresses a single file using gzip compression and returns it as a resource.", readOnly: false, destructive: false, schema: object({ name: { type: "string" }, data: { type: "string" } }, ["name", "data"]) },
  { tool: "delete-session-resource", title: "Delete Session Resource Tool", description: "Deletes a resource created in this session.", readOnly: false, destructive: true, schema: object({ uri: { type: "string" } }, ["uri"]) },
];

const GENERIC_TOOLS: MockTool[] = [
  { tool: "search", title: "Search", description: "Searches the server's items.", readOnly: true, destructive: false, schema: object({ query: { type: "string" } }, ["query"]) },
  { tool: "create-item", title: "Create Item", description: "Creates an item.", readOnly: false, destructive: false, schema: object({ title: { type: "string" } }, ["title"]) },
];

/** Like `expose_names`: `server__tool`, provider-safe, at most 64 characters. */
const exposed = (server: string, tool: string) => `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);

const isEverything = (s: McpServerView) => (s.transport.kind === "stdio" ? s.transport.args.some((a) => a.includes("server-everything")) : s.transport.url.includes("everything"));

export class MockMcpServers {
  #servers = new Map<string, McpServerView>();
  /** Stored keychain entries, `server:NAME`. */
  readonly #secrets = new Set<string>();

  constructor(seed: McpServerView[]) {
    for (const s of seed) {
      this.#servers.set(s.name, structuredClone(s));
      for (const [name, source] of secretSources(s)) if (source.kind === "keychain" && source.present) this.#secrets.add(`${s.name}:${name}`);
    }
  }

  /** In name order, like the config's table; `present` from the keychain. */
  views(): McpServerView[] {
    return [...this.#servers.values()].sort((a, b) => a.name.localeCompare(b.name)).map((s) => this.#withPresence(s));
  }

  save(input: McpServerView): null {
    const name = input?.name?.trim() ?? "";
    if (name === "") fail("invalid_input", "name: required");
    const field = (f: string) => `mcp_servers.${name}.${f}`;
    if (!/^[A-Za-z0-9_-]+$/.test(name)) fail("invalid_input", `mcp_servers.${name}: a server name uses letters, digits, \`-\` and \`_\` only (it prefixes its tools' names)`);
    const t = input.transport;
    if (t.kind === "stdio") {
      if (t.command.trim() === "") fail("invalid_input", `${field("command")}: must not be empty`);
      const seen = new Set<string>();
      for (const v of t.env) {
        const varName = v.name.trim();
        if (seen.has(varName)) fail("invalid_input", `env: ${varName} is given twice`);
        seen.add(varName);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(varName)) fail("invalid_input", `${field("env")}: ${JSON.stringify(varName)} is not a variable name`);
        if (v.source.kind === "env" && v.source.variable.trim() === "") fail("invalid_input", `${field("env")}: ${varName}: env must name a variable`);
      }
    } else if (!/^https?:\/\//.test(t.url.trim())) {
      fail("invalid_input", `${field("url")}: must start with http:// or https://`);
    }
    for (const [f, v] of [["startup_timeout_secs", input.startupTimeoutSecs], ["tool_timeout_secs", input.toolTimeoutSecs]] as const) {
      if (v === 0) fail("invalid_input", `${field(f)}: must be greater than 0`);
    }
    // As the config file stores it: the literal "keychain" is a keychain reference.
    const source = (s: SecretSourceView): SecretSourceView => (s.kind === "literal" && s.value === "keychain" ? { kind: "keychain", present: false } : s);
    const transport: McpServerView["transport"] =
      t.kind === "stdio"
        ? { kind: "stdio", command: t.command.trim(), args: [...t.args], env: t.env.map((v) => ({ name: v.name.trim(), source: source(v.source) })) }
        : { kind: "http", url: t.url.trim(), bearer_token: t.bearer_token ? source(t.bearer_token) : null };
    this.#servers.set(name, { name, enabled: input.enabled, transport, startupTimeoutSecs: input.startupTimeoutSecs, toolTimeoutSecs: input.toolTimeoutSecs });
    return null;
  }

  /** Removes the server and the keychain secrets its entry names. */
  delete(name: string): null {
    const server = this.#servers.get(name) ?? fail("not_found", `MCP server not found: ${name}`);
    for (const [secret] of secretSources(server)) this.#secrets.delete(`${name}:${secret}`);
    this.#servers.delete(name);
    return null;
  }

  setSecret(server: string, name: string, value: string): null {
    if (value.trim() === "") fail("invalid_input", "the secret is empty");
    const entry = this.#servers.get(server) ?? fail("not_found", `MCP server not found: ${server}`);
    if (!secretSources(entry).some(([n, s]) => n === name && s.kind === "keychain")) fail("invalid_input", `MCP server ${server} has no ${name} set to "keychain"`);
    this.#secrets.add(`${server}:${name}`);
    return null;
  }

  /** Starts the server, lists its tools, stops it — or fails the way the backend classifies it. */
  test(name: string): McpServerTestView {
    const server = this.#servers.get(name) ?? fail("not_found", `MCP server not found: ${name}`);
    for (const [secret, source] of secretSources(server)) {
      if (source.kind === "env" && !MOCK_ENV.has(source.variable)) fail("invalid_input", `MCP server ${name}: ${secret} comes from $${source.variable}, which is not set`);
      if (source.kind === "keychain" && !this.#secrets.has(`${name}:${secret}`)) fail("invalid_input", `MCP server ${name}: ${secret}: no secret is stored in the keychain`);
    }
    const t = server.transport;
    if (t.kind === "stdio") {
      const program = t.command.split("/").pop() ?? t.command;
      if (/^(nope|missing)/.test(program)) fail("unavailable", `MCP server \`${name}\`: could not start \`${t.command}\`: No such file or directory (os error 2)`);
    } else if (/\/\/(localhost|127\.0\.0\.1):9\b/.test(t.url)) {
      fail("unavailable", `MCP server \`${name}\`: ${t.url}: connection refused`);
    }
    const everything = isEverything(server);
    const tools = everything ? EVERYTHING_TOOLS : GENERIC_TOOLS;
    return {
      serverName: everything ? "mcp-servers/everything" : `mock-${name}`,
      serverVersion: everything ? "2.0.0" : "0.1.0",
      protocolVersion: "2025-06-18",
      startupMs: t.kind === "stdio" ? 412 : 96,
      tools: tools.map((x) => ({ name: x.tool, exposedName: exposed(name, x.tool), title: x.title, description: x.description, readOnlyHint: x.readOnly, destructiveHint: x.destructive })),
    };
  }

  #withPresence(s: McpServerView): McpServerView {
    const present = (name: string, source: SecretSourceView): SecretSourceView =>
      source.kind === "keychain" ? { kind: "keychain", present: this.#secrets.has(`${s.name}:${name}`) } : { ...source };
    const t = s.transport;
    const transport: McpServerView["transport"] =
      t.kind === "stdio"
        ? { ...t, args: [...t.args], env: t.env.map((v) => ({ name: v.name, source: present(v.name, v.source) })) }
        : { ...t, bearer_token: t.bearer_token ? present(BEARER_TOKEN, t.bearer_token) : null };
    return { ...s, transport };
  }
}

/** A server's values with a source, by name (env variables, or the bearer token). */
function secretSources(s: McpServerView): [string, SecretSourceView][] {
  if (s.transport.kind === "stdio") return s.transport.env.map((v) => [v.name, v.source]);
  return s.transport.bearer_token ? [[BEARER_TOKEN, s.transport.bearer_token]] : [];
}
