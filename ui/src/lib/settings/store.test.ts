import { describe, expect, it, vi } from "vitest";
import type { CommandSandboxView, McpServerTestView } from "../../bindings";
import recordedViews from "../../dev/mock/fixtures/sandbox-views.json";
import type { Outcome } from "../ipc/outcome";
import type { SettingsApi } from "./api";
import { SettingsStore } from "./store.svelte";
import type { SettingsView } from "./types";
import { emptyMcpServerForm } from "./mcp";
import { emptyProfileForm, emptyProviderForm } from "./validation";

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

/** What `sandbox_view` answers (recorded by the Rust side) for a profile with the network off. */
const networkOff = (profile: string): CommandSandboxView => ({ ...(recordedViews.network_off as unknown as CommandSandboxView), profile });

function fakeApi(initial: Partial<SettingsView> = {}) {
  const view: SettingsView = { configPath: "/c.toml", providers: [], profiles: [], mcpServers: [], ...initial };
  const api = {
    get: vi.fn(async () => ok(structuredClone(view))),
    saveProvider: vi.fn(async (p): Promise<Outcome<null>> => {
      view.providers.push({ ...p, keyPresent: false });
      return ok(null);
    }),
    deleteProvider: vi.fn(async (): Promise<Outcome<null>> => ok(null)),
    setProviderKey: vi.fn(async (): Promise<Outcome<null>> => ok(null)),
    testProvider: vi.fn(async () => ok({ ok: true, latencyMs: 120, errorClass: null, message: "fine" })),
    saveProfile: vi.fn(async (): Promise<Outcome<null>> => ok(null)),
    deleteProfile: vi.fn(async (): Promise<Outcome<null>> => ok(null)),
    sandboxView: vi.fn(async (profile: string): Promise<Outcome<CommandSandboxView>> => ok(networkOff(profile))),
    saveMcpServer: vi.fn(async (s): Promise<Outcome<null>> => {
      view.mcpServers = [...view.mcpServers.filter((x) => x.name !== s.name), s];
      return ok(null);
    }),
    deleteMcpServer: vi.fn(async (name: string): Promise<Outcome<null>> => {
      view.mcpServers = view.mcpServers.filter((x) => x.name !== name);
      return ok(null);
    }),
    setMcpSecret: vi.fn(async (): Promise<Outcome<null>> => ok(null)),
    testMcpServer: vi.fn(async (): Promise<Outcome<McpServerTestView>> => ok({ serverName: "mcp-servers/everything", serverVersion: "2.0.0", protocolVersion: "2025-06-18", startupMs: 40, tools: [] })),
  } satisfies SettingsApi;
  return { api, view };
}

describe("SettingsStore", () => {
  it("loads settings; no provider means first launch", async () => {
    const { api } = fakeApi();
    const store = new SettingsStore(api);
    expect(store.noProviders).toBe(false); // still loading
    await store.load();
    expect(store.noProviders).toBe(true);
    expect(store.state).toMatchObject({ kind: "loaded" });
  });

  it("a load error still offers the first-launch choices", async () => {
    const { api } = fakeApi();
    api.get.mockResolvedValueOnce({ ok: false, error: { code: "storage", message: "config unreadable" } });
    const store = new SettingsStore(api);
    await store.load();
    expect(store.state).toEqual({ kind: "failed", error: { code: "storage", message: "config unreadable" } });
    expect(store.noProviders).toBe(true);
  });

  it("never sends an invalid form; field errors come back instead", async () => {
    const { api } = fakeApi();
    const store = new SettingsStore(api);
    await store.load();
    const result = await store.saveProvider({ ...emptyProviderForm(), baseUrl: "example.com" });
    expect(result).toMatchObject({ ok: false, error: null, fields: { name: expect.any(String), baseUrl: expect.any(String), model: expect.any(String) } });
    expect(api.saveProvider).not.toHaveBeenCalled();

    const profile = await store.saveProfile({ ...emptyProfileForm(), name: "p", maxContextBytes: "lots" });
    expect(profile).toMatchObject({ ok: false, fields: { maxContextBytes: expect.any(String) } });
    expect(api.saveProfile).not.toHaveBeenCalled();
  });

  it("saves a valid provider, reloads, and returns the backend's invalid_input to the form", async () => {
    const { api } = fakeApi();
    const store = new SettingsStore(api);
    await store.load();
    await expect(store.saveProvider({ ...emptyProviderForm(), name: "openai", model: "gpt-4.1" })).resolves.toEqual({ ok: true });
    expect(store.providers.map((p) => p.name)).toEqual(["openai"]);
    expect(store.noProviders).toBe(false);

    api.saveProvider.mockResolvedValueOnce({ ok: false, error: { code: "invalid_input", message: "model: must not contain spaces" } });
    await expect(store.saveProvider({ ...emptyProviderForm(), name: "x", model: "a b" })).resolves.toEqual({
      ok: false,
      fields: null,
      error: { code: "invalid_input", message: "model: must not contain spaces" },
    });
  });

  it("stores keys only when one is given and tests connections", async () => {
    const { api } = fakeApi();
    const store = new SettingsStore(api);
    await store.load();
    await expect(store.setKey("openai", "  ")).resolves.toMatchObject({ ok: false, fields: { key: expect.any(String) } });
    expect(api.setProviderKey).not.toHaveBeenCalled();
    await store.setKey("openai", " sk-123 ");
    expect(api.setProviderKey).toHaveBeenCalledWith("openai", "sk-123");

    const testing = store.test("openai");
    expect(store.tests.get("openai")).toEqual({ kind: "testing" });
    await testing;
    expect(store.tests.get("openai")).toEqual({ kind: "done", result: { ok: true, latencyMs: 120, errorClass: null, message: "fine" } });
  });

  it("reports a conflict when deleting a provider still in use", async () => {
    const { api } = fakeApi();
    api.deleteProvider.mockResolvedValueOnce({ ok: false, error: { code: "conflict", message: 'a profile still uses provider "openai"' } });
    const store = new SettingsStore(api);
    await store.load();
    await expect(store.deleteProvider("openai")).resolves.toMatchObject({ ok: false, error: { code: "conflict" } });
  });

  it("saves an MCP server, then stores the keychain values typed in its form", async () => {
    const { api } = fakeApi();
    const store = new SettingsStore(api);
    await store.load();
    const form = { ...emptyMcpServerForm(), name: "everything", command: "npx", args: "-y\n@modelcontextprotocol/server-everything" };
    form.env = [{ name: "TOKEN", source: { kind: "keychain", value: "", variable: "", secret: " s3cret ", present: false }, storedAs: null }];
    await expect(store.saveMcpServer(form)).resolves.toEqual({ ok: true });
    expect(api.saveMcpServer).toHaveBeenCalledWith({
      name: "everything",
      enabled: true,
      transport: { kind: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: [{ name: "TOKEN", source: { kind: "keychain", present: false } }] },
      startupTimeoutSecs: null,
      toolTimeoutSecs: null,
    });
    expect(api.setMcpSecret).toHaveBeenCalledWith("everything", "TOKEN", "s3cret");
    expect(store.mcpServers.map((s) => s.name)).toEqual(["everything"]);

    // A secret the backend refuses comes back as the form's error; the server stays saved.
    api.setMcpSecret.mockResolvedValueOnce({ ok: false, error: { code: "invalid_input", message: "keychain locked" } });
    await expect(store.saveMcpServer(form)).resolves.toEqual({ ok: false, fields: null, error: { code: "invalid_input", message: "keychain locked" } });
  });

  it("never sends an invalid MCP server; toggles, tests and deletes saved ones", async () => {
    const { api } = fakeApi();
    const store = new SettingsStore(api);
    await store.load();
    await expect(store.saveMcpServer({ ...emptyMcpServerForm(), name: "a b" })).resolves.toMatchObject({ ok: false, fields: { name: expect.any(String), command: expect.any(String) } });
    expect(api.saveMcpServer).not.toHaveBeenCalled();

    await store.saveMcpServer({ ...emptyMcpServerForm(), name: "remote", transport: "http", url: "https://mcp.example.com/mcp" });
    const [saved] = store.mcpServers;
    await store.setMcpEnabled(saved, false);
    expect(api.saveMcpServer).toHaveBeenLastCalledWith({ ...saved, enabled: false });
    expect(store.mcpServers[0].enabled).toBe(false);

    const testing = store.testMcpServer("remote");
    expect(store.mcpTests.get("remote")).toEqual({ kind: "testing" });
    await testing;
    expect(store.mcpTests.get("remote")).toMatchObject({ kind: "done", result: { serverVersion: "2.0.0" } });
    api.testMcpServer.mockResolvedValueOnce({ ok: false, error: { code: "unavailable", message: "connection refused" } });
    await store.testMcpServer("remote");
    expect(store.mcpTests.get("remote")).toEqual({ kind: "failed", error: { code: "unavailable", message: "connection refused" } });

    await expect(store.deleteMcpServer("remote")).resolves.toEqual({ ok: true });
    expect(store.mcpServers).toEqual([]);
    expect(store.mcpTests.has("remote")).toBe(false);
  });

  it("asks what a command of a profile sees; a late answer for another profile is dropped", async () => {
    const { api } = fakeApi();
    const store = new SettingsStore(api);
    expect(store.sandbox).toEqual({ kind: "idle" });
    const loading = store.loadSandboxView("default");
    expect(store.sandbox).toEqual({ kind: "loading", profile: "default" });
    await loading;
    expect(store.sandbox).toMatchObject({ kind: "loaded", view: { profile: "default", network: false, sandbox: { kind: "on" } } });
    expect(api.sandboxView).toHaveBeenCalledWith("default");

    let answer: (o: Outcome<CommandSandboxView>) => void = () => {};
    api.sandboxView.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    const slow = store.loadSandboxView("careful");
    const fast = store.loadSandboxView("loose");
    await fast;
    answer(ok(networkOff("careful")));
    await slow;
    expect(store.sandbox).toMatchObject({ kind: "loaded", view: { profile: "loose" } });

    api.sandboxView.mockResolvedValueOnce({ ok: false, error: { code: "not_found", message: "profile not found: gone" } });
    await store.loadSandboxView("gone");
    expect(store.sandbox).toEqual({ kind: "failed", profile: "gone", error: { code: "not_found", message: "profile not found: gone" } });
  });

  it("shows the profile's sandbox again once that profile is saved", async () => {
    const { api } = fakeApi();
    const store = new SettingsStore(api);
    await store.load();
    await store.loadSandboxView("careful");
    await store.saveProfile({ ...emptyProfileForm(), name: "other" });
    expect(api.sandboxView).toHaveBeenCalledTimes(1);
    await store.saveProfile({ ...emptyProfileForm(), name: "careful" });
    expect(api.sandboxView).toHaveBeenCalledTimes(2);
    expect(api.sandboxView).toHaveBeenLastCalledWith("careful");
  });
});
