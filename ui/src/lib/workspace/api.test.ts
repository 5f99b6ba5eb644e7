import { beforeEach, describe, expect, it, vi } from "vitest";

const mocks = vi.hoisted(() => ({
  commands: {
    openWorkspace: vi.fn(),
    chooseWorkspace: vi.fn(),
    currentWorkspace: vi.fn(),
    listRecentWorkspaces: vi.fn(),
  },
  listen: vi.fn(),
}));

vi.mock("../../bindings", () => ({
  commands: mocks.commands,
  events: { workspaceOpened: { listen: mocks.listen, once: vi.fn() } },
}));

import { tauriWorkspaceApi } from "./api";

const workspace = { id: "w1", path: "/p/demo", name: "demo", lastOpenedAt: "2025-01-01T00:00:00Z" };

beforeEach(() => vi.clearAllMocks());

describe("tauriWorkspaceApi", () => {
  it("calls the generated commands with their arguments", async () => {
    mocks.commands.openWorkspace.mockResolvedValue({ status: "ok", data: workspace });

    await expect(tauriWorkspaceApi.open("/p/demo")).resolves.toEqual({ ok: true, value: workspace });
    expect(mocks.commands.openWorkspace).toHaveBeenCalledWith("/p/demo");
  });

  it("reports a cancelled dialog as ok(null) and typed errors as errors", async () => {
    mocks.commands.chooseWorkspace.mockResolvedValueOnce({ status: "ok", data: null });
    await expect(tauriWorkspaceApi.choose()).resolves.toEqual({ ok: true, value: null });

    mocks.commands.chooseWorkspace.mockResolvedValueOnce({
      status: "error",
      error: { code: "dialog", message: "no portal" },
    });
    await expect(tauriWorkspaceApi.choose()).resolves.toEqual({
      ok: false,
      error: { code: "dialog", message: "no portal" },
    });
  });

  it("unwraps the event payload for workspace-opened", async () => {
    const unlisten = vi.fn();
    mocks.listen.mockResolvedValue(unlisten);
    const handler = vi.fn();

    await expect(tauriWorkspaceApi.onWorkspaceOpened(handler)).resolves.toBe(unlisten);
    const callback = mocks.listen.mock.calls[0][0];
    callback({ event: "workspace-opened", id: 1, payload: { workspace } });
    expect(handler).toHaveBeenCalledWith({ workspace });
  });
});
