import { beforeEach, describe, expect, it, vi } from "vitest";

const mocks = vi.hoisted(() => ({
  commands: {
    getSettings: vi.fn(),
    saveProvider: vi.fn(),
    deleteProvider: vi.fn(),
    setProviderKey: vi.fn(),
    testProvider: vi.fn(),
    saveProfile: vi.fn(),
    deleteProfile: vi.fn(),
    saveMcpServer: vi.fn(),
    deleteMcpServer: vi.fn(),
    setMcpSecret: vi.fn(),
    testMcpServer: vi.fn(),
    sandboxView: vi.fn(),
    detectLocalProviders: vi.fn(),
    addLocalProvider: vi.fn(),
  },
}));

vi.mock("../../bindings", () => ({ commands: mocks.commands }));

import { tauriSettingsApi } from "./api";
import { tauriLocalServersApi } from "./local";

beforeEach(() => vi.clearAllMocks());

describe("tauriSettingsApi", () => {
  it("uses the generated commands", async () => {
    mocks.commands.setProviderKey.mockResolvedValue({ status: "ok", data: null });
    await expect(tauriSettingsApi.setProviderKey("openai", "sk")).resolves.toEqual({ ok: true, value: null });
    expect(mocks.commands.setProviderKey).toHaveBeenCalledWith("openai", "sk");

    mocks.commands.saveProvider.mockResolvedValue({ status: "error", error: { code: "invalid_input", message: "base_url: must be an http(s) URL" } });
    const input = { name: "x", protocol: "anthropic" as const, baseUrl: "http://h", model: "m", keySource: { kind: "none" as const }, toolMode: "native" as const, price: null };
    await expect(tauriSettingsApi.saveProvider(input)).resolves.toEqual({ ok: false, error: { code: "invalid_input", message: "base_url: must be an http(s) URL" } });
    expect(mocks.commands.saveProvider).toHaveBeenCalledWith(input);
  });

  it("passes MCP server commands through, errors by code", async () => {
    mocks.commands.setMcpSecret.mockResolvedValue({ status: "ok", data: null });
    await expect(tauriSettingsApi.setMcpSecret("everything", "TOKEN", "v")).resolves.toEqual({ ok: true, value: null });
    expect(mocks.commands.setMcpSecret).toHaveBeenCalledWith("everything", "TOKEN", "v");
    mocks.commands.testMcpServer.mockResolvedValue({ status: "error", error: { code: "unavailable", message: "could not start" } });
    await expect(tauriSettingsApi.testMcpServer("broken")).resolves.toEqual({ ok: false, error: { code: "unavailable", message: "could not start" } });
    mocks.commands.deleteMcpServer.mockRejectedValue(new Error("ipc down"));
    await expect(tauriSettingsApi.deleteMcpServer("x")).resolves.toEqual({ ok: false, error: { code: "internal", message: "ipc down" } });
  });

  it("asks what a profile's commands see by the profile's name", async () => {
    const view = { profile: "default", network: false, credentialsDenylist: [".ssh"], sandbox: { kind: "off" as const } };
    mocks.commands.sandboxView.mockResolvedValue({ status: "ok", data: view });
    await expect(tauriSettingsApi.sandboxView("default")).resolves.toEqual({ ok: true, value: view });
    expect(mocks.commands.sandboxView).toHaveBeenCalledWith("default");
    mocks.commands.sandboxView.mockResolvedValue({ status: "error", error: { code: "not_found", message: "profile not found: x" } });
    await expect(tauriSettingsApi.sandboxView("x")).resolves.toEqual({ ok: false, error: { code: "not_found", message: "profile not found: x" } });
  });

  it("finds local servers and adds one by address and model", async () => {
    const detection = { servers: [], failures: [], elapsedMs: 2 };
    mocks.commands.detectLocalProviders.mockResolvedValue({ status: "ok", data: detection });
    await expect(tauriLocalServersApi.detect()).resolves.toEqual({ ok: true, value: detection });
    mocks.commands.addLocalProvider.mockResolvedValue({ status: "error", error: { code: "invalid_input", message: "the server at http://127.0.0.1:8080 lists no models" } });
    await expect(tauriLocalServersApi.add("local", "http://127.0.0.1:8080", null)).resolves.toEqual({
      ok: false,
      error: { code: "invalid_input", message: "the server at http://127.0.0.1:8080 lists no models" },
    });
    expect(mocks.commands.addLocalProvider).toHaveBeenCalledWith("local", "http://127.0.0.1:8080", null);
  });
});
