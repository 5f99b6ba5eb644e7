import { describe, expect, it } from "vitest";
import type { EventPayload } from "../../bindings";
import { ConversationFold } from "../runs/conversation";
import { envelope } from "../runs/testSupport";
import { rowInfo } from "../runs/timeline";
import { cardStatus } from "../runs/toolCards";
import { HOOK_DECISION_TONES, hookEnded, hookOutcome, hookRowTone, hookTitle, notTrustedText, notTrustedTitle, type HookRan } from "./runs";

const hook = (more: Partial<HookRan> = {}): HookRan => ({
  type: "hook_ran",
  hook: "PreToolUse",
  source: "user",
  command: "python3 no-curl.py",
  call_id: "c1",
  exit_code: 2,
  duration_ms: 12,
  decision: "deny",
  reason: "curl is not allowed here",
  stdout: "",
  stderr: "curl is not allowed here",
  ...more,
});

const created: EventPayload = { type: "run_created", goal: "fetch", workspace_id: "w", workspace_path: "/w", profile: "default", provider: "p", model: "m" } as EventPayload;
const curl: EventPayload = { type: "tool_call_requested", call: { call_id: "c1", tool_name: "run_command", arguments: { command: "curl https://example.com" } } };

function fold(payloads: EventPayload[]): ConversationFold {
  const f = new ConversationFold();
  payloads.forEach((p, i) => f.add(envelope(i + 1, p)));
  return f;
}

describe("a hook's run", () => {
  it("is titled by its moment, source and decision, and says how it ended", () => {
    expect(hookTitle(hook())).toBe("PreToolUse hook (user): deny");
    expect(hookEnded(hook())).toBe("exit 2");
    expect(hookEnded(hook({ timed_out: true, exit_code: null }))).toBe("timed out");
    expect(hookEnded(hook({ exit_code: null }))).toBe("killed");
  });

  it("is loud when it refused or blocked, amber when it went wrong, quiet when it said nothing", () => {
    expect([HOOK_DECISION_TONES.deny, HOOK_DECISION_TONES.block, HOOK_DECISION_TONES.ask, HOOK_DECISION_TONES.allow, HOOK_DECISION_TONES.proceed]).toEqual(["danger", "danger", "neutral", "neutral", "quiet"]);
    expect(hookRowTone(hook())).toBe("danger");
    expect(hookRowTone(hook({ decision: "proceed", warning: "timed out" }))).toBe("attention");
    expect(hookRowTone(hook({ decision: "ask" }))).toBe("plain");
    expect(hookRowTone(hook({ decision: "proceed" }))).toBe("muted");
    expect(rowInfo(hook())).toEqual({ title: "PreToolUse hook (user): deny", tone: "danger", compact: false });
  });

  it("says what it did to the run", () => {
    expect(hookOutcome(hook())).toBe("The call was refused; the reason went to the model.");
    expect(hookOutcome(hook({ hook: "Stop", decision: "block" }))).toBe("The run went on: the model was sent back to work.");
    expect(hookOutcome(hook({ hook: "SessionStart", decision: "proceed" }))).toBeNull();
  });
});

describe("project hooks not trusted", () => {
  it("counts the commands that did not run", () => {
    expect(notTrustedTitle({ commands: ["a"] })).toBe("Project hooks not trusted: 1 command did not run");
    expect(notTrustedText({ commands: ["a"] })).toMatch(/not trusted .*, so its one command did not run\.$/);
    expect(notTrustedText({ commands: ["a", "b", "c"] })).toMatch(/so none of its 3 commands ran\.$/);
    expect(rowInfo({ type: "hooks_not_trusted", file: "/w/.bearagent/hooks.toml", content_hash: "c", commands: ["a", "b"] })).toMatchObject({ tone: "attention" });
  });
});

describe("hooks in the conversation", () => {
  it("puts a call's hooks on its card (in its range) and the card says it was refused", () => {
    const f = fold([
      created,
      curl,
      hook(),
      { type: "tool_call_failed", result: { call_id: "c1", content: "refused by a PreToolUse hook: curl is not allowed here", is_error: true } },
    ]);
    expect(f.items).toHaveLength(2);
    const card = f.items[1];
    if (card.kind !== "tool") throw new Error("expected a card");
    expect(card.hooks).toEqual([{ seq: 3, run: hook() }]);
    expect([card.firstSeq, card.lastSeq]).toEqual([2, 4]);
    expect(cardStatus(card, "ended")).toEqual({ kind: "refused", reason: "curl is not allowed here" });
  });

  it("gives a hook at a moment of the run, or on a call it never saw, its own item, and the untrusted notice its own", () => {
    const f = fold([
      created,
      { type: "hooks_not_trusted", file: "/w/.bearagent/hooks.toml", content_hash: "c", commands: ["./fmt.sh"] },
      hook({ hook: "Stop", call_id: null, decision: "block" }),
      hook({ call_id: "elsewhere" }),
    ]);
    expect(f.items.slice(1)).toMatchObject([
      { kind: "hooks_untrusted", seq: 2, file: "/w/.bearagent/hooks.toml", commands: ["./fmt.sh"] },
      { kind: "hook", seq: 3, run: { hook: "Stop", decision: "block" } },
      { kind: "hook", seq: 4, run: { call_id: "elsewhere" } },
    ]);
  });
});
