import { describe, expect, it } from "vitest";
import { treeSizeText, untrackedText } from "./untracked";

describe("untracked paths", () => {
  it("names the path, what the command did, why it is not kept and how much it holds", () => {
    expect(untrackedText({ path: "target/", why: "build_output", change: "made", size: { files: 1200, bytes: 800 * 1024 * 1024, at_least: false } })).toBe(
      "target/ made (build output, 1 200 files, 800.0 MB)",
    );
    expect(untrackedText({ path: "node_modules/", why: "dependencies", change: "removed" })).toBe("node_modules/ removed (dependencies or caches)");
    expect(untrackedText({ path: "big.bin", why: "over_limit", change: "changed", size: null })).toBe("big.bin changed (past the safety net's limits)");
  });

  it("says at least when counting stopped at the cap", () => {
    expect(treeSizeText({ files: 1, bytes: 12, at_least: false })).toBe("1 file, 12 B");
    expect(treeSizeText({ files: 200000, bytes: 3 * 1024 * 1024, at_least: true })).toBe("at least 200 000 files, 3.0 MB");
  });
});
