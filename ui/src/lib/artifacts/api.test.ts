import { beforeEach, describe, expect, it, vi } from "vitest";

const mocks = vi.hoisted(() => ({
  commands: {
    listArtifacts: vi.fn(),
    artifactDiff: vi.fn(),
    keepArtifact: vi.fn(),
    revertArtifact: vi.fn(),
    reapplyArtifact: vi.fn(),
    exportRun: vi.fn(),
  },
}));

vi.mock("../../bindings", () => ({ commands: mocks.commands }));

import { tauriArtifactsApi } from "./api";

beforeEach(() => vi.clearAllMocks());

describe("tauriArtifactsApi", () => {
  it("passes arguments to the generated commands and folds results", async () => {
    mocks.commands.listArtifacts.mockResolvedValue({ status: "ok", data: [] });
    await expect(tauriArtifactsApi.list("r1")).resolves.toEqual({ ok: true, value: [] });
    expect(mocks.commands.listArtifacts).toHaveBeenCalledWith("r1");

    mocks.commands.artifactDiff.mockResolvedValue({ status: "ok", data: { kind: "binary", before_bytes: 1, after_bytes: 2 } });
    await tauriArtifactsApi.diff("r1", "a.bin", true);
    expect(mocks.commands.artifactDiff).toHaveBeenCalledWith("r1", "a.bin", true);

    mocks.commands.revertArtifact.mockResolvedValue({ status: "error", error: { code: "conflict", message: "changed since the run" } });
    await expect(tauriArtifactsApi.revert("r1", "a.txt", false)).resolves.toEqual({ ok: false, error: { code: "conflict", message: "changed since the run" } });
    expect(mocks.commands.revertArtifact).toHaveBeenCalledWith("r1", "a.txt", false);

    mocks.commands.reapplyArtifact.mockResolvedValue({ status: "ok", data: null });
    await tauriArtifactsApi.reapply("r1", "a.txt", true);
    expect(mocks.commands.reapplyArtifact).toHaveBeenCalledWith("r1", "a.txt", true);

    mocks.commands.keepArtifact.mockRejectedValue(new Error("IPC down"));
    await expect(tauriArtifactsApi.keep("r1", "a.txt")).resolves.toEqual({ ok: false, error: { code: "internal", message: "IPC down" } });

    mocks.commands.exportRun.mockResolvedValue({ status: "ok", data: { jsonPath: "/x.json", markdownPath: "/x.md" } });
    await expect(tauriArtifactsApi.exportRun("r1")).resolves.toEqual({ ok: true, value: { jsonPath: "/x.json", markdownPath: "/x.md" } });
  });
});
