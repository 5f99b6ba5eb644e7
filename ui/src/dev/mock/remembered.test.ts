import { describe, expect, it } from "vitest";
import { MockRemembered } from "./remembered";

const AT = "2025-03-14T09:30:00Z";

describe("MockRemembered", () => {
  it("keeps a prefix approved with remember, for the workspace or everywhere", () => {
    const rules = new MockRemembered();
    rules.record("run-0001", "/w", { approve: true, scope: "once", reason: null, allowPrefix: "cargo test", remember: "workspace" }, AT);
    rules.record("run-0002", "/w", { approve: true, scope: "once", reason: null, allowPrefix: "npm test", network: true, remember: "everywhere" }, AT);
    expect(rules.list()).toEqual([
      { number: 1, id: "000000000001", prefix: "cargo test", network: false, workspace: "/w", fromRun: "run-0001", at: AT },
      { number: 2, id: "000000000002", prefix: "npm test", network: true, workspace: null, fromRun: "run-0002", at: AT },
    ]);
  });

  it("ignores approvals for this run only, denials and repeats", () => {
    const rules = new MockRemembered();
    rules.record("run-0001", "/w", { approve: true, scope: "once", reason: null, allowPrefix: "cargo test" }, AT);
    rules.record("run-0001", "/w", { approve: false, scope: "once", reason: null, allowPrefix: "cargo test", remember: "workspace" }, AT);
    rules.record("run-0001", "/w", { approve: true, scope: "once", reason: null, allowPrefix: "ls", remember: "workspace" }, AT);
    rules.record("run-0002", "/w", { approve: true, scope: "once", reason: null, allowPrefix: "ls", remember: "workspace" }, AT);
    expect(rules.list().map((r) => r.prefix)).toEqual(["ls"]);
  });

  it("forgets by stable id and renumbers the rest; an unknown id is not found", () => {
    const rules = new MockRemembered();
    rules.record("r", "/w", { approve: true, scope: "once", reason: null, allowPrefix: "a", remember: "workspace" }, AT);
    rules.record("r", "/w", { approve: true, scope: "once", reason: null, allowPrefix: "b", remember: "workspace" }, AT);
    const [a, b] = rules.list();
    rules.forget(a.id);
    expect(rules.list()).toMatchObject([{ number: 1, id: b.id, prefix: "b" }]);
    expect(() => rules.forget(a.id)).toThrow();
  });
});
