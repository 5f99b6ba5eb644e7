import { describe, expect, it } from "vitest";
import type { RunDetailView, RunStatus } from "../../bindings";
import { otherOwnerNotice, otherOwnerOf } from "./ownership";
import { projection } from "./testSupport";

const detail = (owner: RunDetailView["owner"], status: RunStatus = { kind: "running" }): RunDetailView => ({
  projection: projection({ status }),
  active: false,
  owner,
});
const cli = { kind: "elsewhere", pid: 4242, program: "bearagent" } as const;

describe("otherOwnerOf", () => {
  it("names the other process while the run is not over", () => {
    expect(otherOwnerOf(detail(cli))).toEqual(cli);
    expect(otherOwnerOf(detail(cli, { kind: "awaiting_approval" }))).toEqual(cli);
    expect(otherOwnerOf(detail(cli, { kind: "interrupted" }))).toEqual(cli);
  });

  it("is null for runs of this process, of nobody, not loaded yet, or ended", () => {
    expect(otherOwnerOf(null)).toBeNull();
    expect(otherOwnerOf(detail({ kind: "here" }))).toBeNull();
    expect(otherOwnerOf(detail({ kind: "nobody" }))).toBeNull();
    expect(otherOwnerOf(detail(cli, { kind: "succeeded" }))).toBeNull();
    expect(otherOwnerOf(detail(cli, { kind: "failed", reason: "x" }))).toBeNull();
  });
});

describe("otherOwnerNotice", () => {
  it("says where the run runs and where to answer it", () => {
    expect(otherOwnerNotice(cli)).toBe("Running in another BearAgent process (bearagent, pid 4242). Approvals and cancel happen there.");
  });
});
