import { describe, expect, it, vi } from "vitest";
import type { ApiError, EventEnvelope, EventPayload, RewindReportView } from "../../bindings";
import type { Outcome } from "../ipc/outcome";
import { conflictPaths, RewindMarks } from "./rewind";
import { RewindStore } from "./rewindStore.svelte";
import { envelope, ok } from "./testSupport";

const fail = (code: ApiError["code"], message: string): Outcome<never> => ({ ok: false, error: { code, message } });

const wrote = (seq: number, path: string, call: string): EventEnvelope =>
  envelope(seq, { type: "artifact_recorded", call_id: call, path, before_hash: null, after_hash: "a".repeat(64) } as EventPayload);
const finished = (seq: number, call: string): EventEnvelope => envelope(seq, { type: "command_finished", call_id: call, exit_code: 0 } as unknown as EventPayload);
const rewind = (seq: number, to: number, paths: string[], redo = false): EventEnvelope => envelope(seq, { type: "rewind_started", to, redo, paths });

describe("conflictPaths", () => {
  it("reads the files a refused rewind names", () => {
    expect(conflictPaths("1 file changed since BearAgent last wrote it: config/settings.toml; nothing was touched (rewind with force …)")).toEqual(["config/settings.toml"]);
    expect(conflictPaths("2 files changed since BearAgent last wrote them: a.txt, b/c.md; nothing was touched (…)")).toEqual(["a.txt", "b/c.md"]);
  });
  it("names none when the message is in another form", () => {
    expect(conflictPaths("the run is still in progress")).toEqual([]);
  });
});

describe("RewindMarks", () => {
  const log = [wrote(3, "early.txt", "c1"), finished(6, "c2"), wrote(7, "late.txt", "c2"), wrote(8, "other.txt", "c3")];

  it("marks the writes after the rewind's point of the files it rewound, and the calls behind them", () => {
    const marks = new RewindMarks();
    for (const e of [...log, rewind(12, 5, ["late.txt"])]) marks.add(e);
    expect(marks.active).toEqual({ to: 5, at: 12, paths: ["late.txt"] });
    expect(marks.isRewound(log[0])).toBe(false);
    expect(marks.isRewound(log[1])).toBe(true);
    expect(marks.isRewound(log[2])).toBe(true);
    expect(marks.isRewound(log[3])).toBe(false);
    // The conversation marks the cards of those calls.
    expect(["c1", "c2", "c3"].map((c) => marks.isCallRewound(c))).toEqual([false, true, false]);
  });

  it("marks nothing once the rewind is redone, and follows the newest rewind", () => {
    const marks = new RewindMarks();
    for (const e of [...log, rewind(12, 5, ["late.txt"]), rewind(15, 5, ["late.txt"], true)]) marks.add(e);
    expect(marks.active).toBeNull();
    expect(log.some((e) => marks.isRewound(e))).toBe(false);
    expect(marks.isCallRewound("c2")).toBe(false);
    marks.add(rewind(20, 2, ["early.txt", "other.txt"]));
    expect(log.map((e) => marks.isRewound(e))).toEqual([true, false, false, true]);
    marks.reset();
    expect(marks.active).toBeNull();
  });
});

const report = (to: number, redo = false): RewindReportView => ({ to, redo, files: [{ path: "late.txt", removed: false, forced: false }] });

function store() {
  const api = {
    rewind: vi.fn(async (_r: string, to: number, force: boolean): Promise<Outcome<RewindReportView>> =>
      force ? ok(report(to)) : fail("conflict", "1 file changed since BearAgent last wrote it: late.txt; nothing was touched (…)"),
    ),
    redo: vi.fn(async (): Promise<Outcome<RewindReportView>> => ok(report(5, true))),
  };
  const hooks = { onchanged: vi.fn(), openFork: vi.fn() };
  return { api, hooks, store: new RewindStore(api, "run-1", hooks) };
}

describe("RewindStore", () => {
  it("conversation only opens the fork at the turn and touches no file", async () => {
    const { api, hooks, store: s } = store();
    s.open(5);
    expect(await s.choose(5, "conversation")).toBe(true);
    expect(api.rewind).not.toHaveBeenCalled();
    expect(hooks.openFork).toHaveBeenCalledWith(5);
    expect(s.openAt).toBeNull();
  });

  it("a refusal names the files; rewinding anyway refreshes the changes, then both opens the fork", async () => {
    const { api, hooks, store: s } = store();
    s.open(5);
    expect(await s.choose(5, "both")).toBe(false);
    expect(s.conflict).toMatchObject({ to: 5, choice: "both", paths: ["late.txt"] });
    expect(hooks.onchanged).not.toHaveBeenCalled();
    expect(hooks.openFork).not.toHaveBeenCalled();
    expect(await s.choose(5, "both", true)).toBe(true);
    expect(api.rewind).toHaveBeenLastCalledWith("run-1", 5, true);
    expect(hooks.onchanged).toHaveBeenCalledTimes(1);
    expect(hooks.openFork).toHaveBeenCalledWith(5);
    expect(s.conflict).toBeNull();
    expect(s.report?.to).toBe(5);
  });

  it("files only does not fork; redo refreshes the changes", async () => {
    const { hooks, store: s } = store();
    expect(await s.choose(5, "files", true)).toBe(true);
    expect(hooks.openFork).not.toHaveBeenCalled();
    expect(await s.redo()).toBe(true);
    expect(hooks.onchanged).toHaveBeenCalledTimes(2);
    expect(s.report?.redo).toBe(true);
  });

  it("a refusal that cannot be forced is an error, not a conflict", async () => {
    const { api, store: s } = store();
    api.redo.mockResolvedValueOnce(fail("conflict", "the last rewind is already redone"));
    expect(await s.redo()).toBe(false);
    expect(s.conflict).toBeNull();
    expect(s.error?.message).toMatch(/already redone/);
  });
});
