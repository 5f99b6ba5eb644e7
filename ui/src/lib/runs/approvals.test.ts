import { describe, expect, it } from "vitest";
import { choiceForKey, decisionFor } from "./approvals";

const key = (k: string, mods: Partial<{ shiftKey: boolean; ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({
  key: k, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...mods,
});

describe("approval keyboard", () => {
  it("maps A, Shift+A and D", () => {
    expect(choiceForKey(key("a"))).toBe("approve");
    expect(choiceForKey(key("A", { shiftKey: true }))).toBe("always");
    expect(choiceForKey(key("d"))).toBe("deny");
    expect(choiceForKey(key("D", { shiftKey: true }))).toBeNull();
  });

  it("ignores other keys and shortcuts with modifiers", () => {
    expect(choiceForKey(key("x"))).toBeNull();
    expect(choiceForKey(key("Enter"))).toBeNull();
    expect(choiceForKey(key("a", { ctrlKey: true }))).toBeNull();
    expect(choiceForKey(key("a", { metaKey: true }))).toBeNull();
    expect(choiceForKey(key("d", { altKey: true }))).toBeNull();
  });
});

describe("decisionFor", () => {
  it("builds the decision the backend expects", () => {
    expect(decisionFor("approve")).toEqual({ approve: true, scope: "once", reason: null });
    expect(decisionFor("always")).toEqual({ approve: true, scope: "tool_for_run", reason: null });
    expect(decisionFor("deny", "  not in docs/ ")).toEqual({ approve: false, scope: "once", reason: "not in docs/" });
    expect(decisionFor("deny", "   ")).toEqual({ approve: false, scope: "once", reason: null });
    expect(decisionFor("deny_rest", " enough ")).toEqual({ approve: false, scope: "rest_of_turn", reason: "enough" });
    // A reason only travels with a denial.
    expect(decisionFor("approve", "ignored").reason).toBeNull();
  });

  it("sends a command prefix with an approval, its words single-spaced", () => {
    expect(decisionFor("allow_prefix", "", " git   status ")).toEqual({ approve: true, scope: "once", reason: null, allowPrefix: "git status" });
    expect(decisionFor("approve", "", "git status")).not.toHaveProperty("allowPrefix");
  });

  it("grants the network only with an approval that asks for it", () => {
    expect(decisionFor("approve_network")).toEqual({ approve: true, scope: "once", reason: null, network: true });
    expect(decisionFor("allow_prefix", "", "cargo fetch", true)).toEqual({ approve: true, scope: "once", reason: null, allowPrefix: "cargo fetch", network: true });
    expect(decisionFor("allow_prefix", "", "cargo fetch")).not.toHaveProperty("network");
    expect(decisionFor("deny", "", "", true)).not.toHaveProperty("network");
    expect(decisionFor("always", "", "", true)).not.toHaveProperty("network");
  });
});
