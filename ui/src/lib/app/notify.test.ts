import { describe, expect, it, vi } from "vitest";
import type { EventPayload, RunEventPushed } from "../../bindings";
import { envelope } from "../runs/testSupport";
import { RunNotifier, runNotice, type NotificationApi } from "./notify";

function fakeNotifications(permission: NotificationPermission, answer: NotificationPermission = "granted") {
  const shown: { title: string; body: string | undefined }[] = [];
  const Api = vi.fn(function (this: unknown, title: string, options?: NotificationOptions) {
    shown.push({ title, body: options?.body });
  }) as unknown as NotificationApi & { requestPermission: ReturnType<typeof vi.fn> };
  Object.assign(Api, { permission, requestPermission: vi.fn(async () => answer) });
  return { Api, shown };
}

const pushed = (runId: string, seq: number, payload: EventPayload): RunEventPushed => ({ runId, event: envelope(seq, payload, null, runId) });
const ASK: EventPayload = { type: "approval_requested", call_id: "c1", tool_name: "write_file", summary: "write docs/plan.md" };
const DONE: EventPayload = { type: "run_succeeded", answer: "ok" };

describe("runNotice", () => {
  it("tells approvals and ends, not the steps between nor a cancel by the user", () => {
    expect(runNotice(ASK, "Write the plan")).toEqual({ title: "A run needs your approval", body: "Write the plan\nwrite docs/plan.md" });
    expect(runNotice(DONE, "Write the plan")).toEqual({ title: "Run finished", body: "Write the plan" });
    expect(runNotice({ type: "run_failed", reason: "gave up" }, "g")?.body).toBe("g\ngave up");
    expect(runNotice({ type: "run_cancelled", reason: "by you" }, "g")).toBeNull();
    expect(runNotice({ type: "model_call_started", provider: "p", model: "m" }, "g")).toBeNull();
  });
});

describe("RunNotifier", () => {
  it("tells about a run the window does not show, with the goal from its start, once per event", async () => {
    const { Api, shown } = fakeNotifications("granted");
    const notifier = new RunNotifier({ Notification: Api, hidden: () => false });
    await notifier.onEvent(pushed("run-2", 1, { type: "run_created", goal: "Fix calc.py" } as EventPayload), "run-1");
    await notifier.onEvent(pushed("run-2", 5, ASK), "run-1");
    await notifier.onEvent(pushed("run-2", 5, ASK), "run-1");
    await notifier.onEvent(pushed("run-3", 9, DONE), null, (id) => (id === "run-3" ? "Write the report" : null));
    expect(shown).toEqual([
      { title: "A run needs your approval", body: "Fix calc.py\nwrite docs/plan.md" },
      { title: "Run finished", body: "Write the report" },
    ]);
  });

  it("stays quiet about the run on screen unless the window is hidden", async () => {
    let hidden = false;
    const { Api, shown } = fakeNotifications("granted");
    const notifier = new RunNotifier({ Notification: Api, hidden: () => hidden });
    await notifier.onEvent(pushed("run-1", 5, ASK), "run-1");
    expect(shown).toHaveLength(0);
    hidden = true;
    await notifier.onEvent(pushed("run-1", 8, DONE), "run-1");
    expect(shown.map((s) => s.title)).toEqual(["Run finished"]);
  });

  it("asks for permission once, on first use, and does nothing when refused or unavailable", async () => {
    const { Api, shown } = fakeNotifications("default", "denied");
    const notifier = new RunNotifier({ Notification: Api, hidden: () => true });
    await notifier.onEvent(pushed("run-1", 5, ASK), null);
    await notifier.onEvent(pushed("run-1", 8, DONE), null);
    expect(Api.requestPermission).toHaveBeenCalledTimes(1);
    expect(shown).toHaveLength(0);

    const granted = fakeNotifications("default", "granted");
    const asking = new RunNotifier({ Notification: granted.Api, hidden: () => true });
    await asking.onEvent(pushed("run-1", 5, ASK), null);
    expect(granted.shown).toHaveLength(1);

    const none = new RunNotifier({ Notification: undefined, hidden: () => true });
    await expect(none.onEvent(pushed("run-1", 5, ASK), null)).resolves.toBeUndefined();
  });
});
