import { describe, expect, it } from "vitest";
import { fileActions } from "./actions";

describe("fileActions", () => {
  it("offers Keep and Revert for a file the run wrote, also once kept or edited since", () => {
    for (const state of ["pending", "kept", "conflict"] as const) {
      expect(fileActions(state, undefined)).toEqual({ reapply: false, keep: true, revert: true });
    }
  });

  it("offers only Re-apply after a revert, or when a re-apply was refused", () => {
    expect(fileActions("reverted", undefined)).toEqual({ reapply: true, keep: false, revert: false });
    expect(fileActions("pending", "reapply")).toEqual({ reapply: true, keep: false, revert: false });
  });

  it("keeps Revert (the rest) and Re-apply for a partly reverted file", () => {
    expect(fileActions("partial", undefined)).toEqual({ reapply: true, keep: false, revert: true });
    expect(fileActions("partial", "reapply")).toEqual({ reapply: true, keep: false, revert: true });
  });

  it("still offers Revert while a refused revert waits for 'Revert anyway'", () => {
    expect(fileActions("pending", "revert")).toEqual({ reapply: false, keep: true, revert: true });
  });
});
