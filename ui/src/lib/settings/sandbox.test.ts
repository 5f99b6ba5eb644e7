import { describe, expect, it } from "vitest";
import type { PathDropView, PathSourceView } from "../../bindings";
import { dropReason, pathSource, sandboxProfileNames, tilde } from "./sandbox";

describe("what a command sees", () => {
  it("offers the default profile first unless it is configured", () => {
    expect(sandboxProfileNames([])).toEqual(["default"]);
    expect(sandboxProfileNames([{ name: "careful" }, { name: "online" }])).toEqual(["default", "careful", "online"]);
    expect(sandboxProfileNames([{ name: "careful" }, { name: "default" }])).toEqual(["careful", "default"]);
  });

  it("shows paths under the home folder with ~, and only those", () => {
    expect(tilde("/home/dev/.cargo", "/home/dev")).toBe("~/.cargo");
    expect(tilde("/home/dev", "/home/dev")).toBe("~");
    expect(tilde("/home/developer/.cargo", "/home/dev")).toBe("/home/developer/.cargo");
    expect(tilde("/usr/bin", "/home/dev")).toBe("/usr/bin");
    expect(tilde(".", "/home/dev")).toBe(".");
    expect(tilde("/usr/bin", "/")).toBe("/usr/bin");
  });

  it("says why a PATH entry was left out and where each one comes from", () => {
    const reasons: PathDropView[] = ["not_absolute", "hidden_folder", "home_not_bound"];
    for (const reason of reasons) expect(dropReason(reason)).not.toBe("");
    expect(dropReason("home_not_bound")).toMatch(/Toolchain folders/);
    const sources: PathSourceView[] = ["user", "user_bound", "toolchain", "system"];
    expect(new Set(sources.map(pathSource)).size).toBe(sources.length);
  });
});
