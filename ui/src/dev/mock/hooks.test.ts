import { describe, expect, it } from "vitest";
import { ConversationFold } from "../../lib/runs/conversation";
import { fakeSha256, MockProjectHooks } from "./hooks";
import { project } from "./projection";
import { SCENARIOS } from "./scenario";

const HOOKS = [{ event: "PreToolUse", matcher: "run_command", command: "./scripts/check.sh", timeoutSecs: 60 }];

function mock(trusted = false, error: string | null = null) {
  return new MockProjectHooks({ "/w": { hooks: HOOKS, trusted, error } }, (path) => path === "/w" || path === "/empty");
}

describe("MockProjectHooks", () => {
  it("reads a workspace's file with a stable 64-digit hash; a workspace without one has none; a missing folder is not found", () => {
    const hooks = mock();
    const view = hooks.view("/w");
    expect(view).toMatchObject({ file: "/w/.bearagent/hooks.toml", hooks: HOOKS, trusted: false, error: null });
    expect(view?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(hooks.view("/w")?.sha256).toBe(view?.sha256);
    expect(fakeSha256("a")).not.toBe(fakeSha256("b"));
    expect(hooks.view("/empty")).toBeNull();
    expect(() => hooks.view("/gone")).toThrow();
  });

  it("trusts the hash shown; an edited file is a conflict and is no longer trusted", () => {
    const hooks = mock();
    const shown = hooks.view("/w")!;
    expect(hooks.trust("/w", shown.sha256).trusted).toBe(true);
    expect(hooks.notTrusted("/w")).toBeNull();
    const changed = hooks.edit("/w");
    expect(changed).not.toBe(shown.sha256);
    expect(hooks.view("/w")?.trusted).toBe(false);
    expect(() => hooks.trust("/w", shown.sha256)).toThrow(expect.objectContaining({ error: expect.objectContaining({ code: "conflict" }) }));
    expect(hooks.trust("/w", changed).trusted).toBe(true);
  });

  it("refuses an invalid file, untrusts, and reports an untrusted file to a run", () => {
    expect(() => mock(false, "bad TOML").trust("/w", "x")).toThrow(expect.objectContaining({ error: expect.objectContaining({ code: "invalid_input" }) }));
    const hooks = mock(true);
    expect(hooks.untrust("/w")).toBe(true);
    expect(hooks.untrust("/w")).toBe(false);
    expect(hooks.notTrusted("/w")).toMatchObject({ type: "hooks_not_trusted", file: "/w/.bearagent/hooks.toml", commands: ["./scripts/check.sh"] });
    expect(hooks.notTrusted("/empty")).toBeNull();
  });
});

describe("the recorded hooks run", () => {
  const events = SCENARIOS.hooks.takes[0].run.updates.flatMap((u) => (u.kind === "run_event" ? [u.event] : []));

  it("is a run the reducer accepts, ending in success", () => {
    expect(project(events).status).toEqual({ kind: "succeeded" });
  });

  it("reads as the notice, the hooks at the run's moments, and the refused curl call with its hook", () => {
    const fold = new ConversationFold();
    events.forEach((e) => fold.add(e));
    expect(fold.items.map((i) => i.kind)).toEqual(["user", "hooks_untrusted", "hook", "hook", "model", "tool", "model", "hook", "model", "hook", "notice"]);
    const card = fold.items[fold.cardIndex("call-hooks-1")!];
    expect(card).toMatchObject({ kind: "tool", hooks: [{ run: { decision: "deny", reason: "curl is not allowed here: use the fetch tool" } }] });
  });
});
