import { describe, expect, it } from "vitest";
import type { EventPayload } from "../../bindings";
import { MockArtifacts } from "./artifacts";
import { MockReview } from "./review";
import { SCENARIOS } from "./scenario";
import { MockError } from "./settings";

const take = SCENARIOS.changes.takes[0];

/** The changes run's files as recorded at its end, and its recorded review steps. */
function setup() {
  const events: EventPayload[] = [];
  const artifacts = new MockArtifacts((_, p) => events.push(p));
  for (const item of take.run.artifacts) {
    artifacts.record("run", item.path, { item, diff: take.run.diffs[item.path], full: take.run.full_diffs[item.path] ?? null, beforeHash: null, afterHash: null });
  }
  const review = new MockReview(artifacts, (_, p) => events.push(p));
  review.record("run", take.review ?? [], take.edit_bases ?? {});
  return { events, artifacts, review };
}

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof MockError) return e.error;
    throw e;
  }
  throw new Error("expected a refusal");
};

describe("the mock's recorded review", () => {
  it("the changes scenario records a rewind, its redo and kept edits", () => {
    const cmds = (take.review ?? []).map((s) => s.request.cmd);
    expect(cmds).toEqual(expect.arrayContaining(["rewind_run", "redo_rewind", "keep_edited"]));
    expect(take.fork).toBeDefined();
  });

  it("plays a rewind as recorded: refused naming the file, then forced with the recorded events and files", () => {
    const { events, artifacts, review } = setup();
    const to = (take.review ?? []).find((s) => s.request.cmd === "rewind_run")?.request as { to: number };
    expect(refusal(() => review.play("run", { cmd: "rewind_run", to: to.to, force: false }))).toMatchObject({ code: "conflict", message: expect.stringContaining("config/settings.toml") });
    expect(events).toEqual([]);
    const report = review.play("run", { cmd: "rewind_run", to: to.to, force: true }) as { files: unknown[] };
    expect(report.files.length).toBe(5);
    expect(events[0]?.type).toBe("rewind_started");
    expect(artifacts.entry("run", "docs/guide.md")?.state).toBe("reverted");
    // A second rewind was never recorded from this state: it fails loudly.
    expect(refusal(() => review.play("run", { cmd: "rewind_run", to: to.to, force: true })).message).toMatch(/no recording/);
    review.play("run", { cmd: "redo_rewind", force: false });
    expect(artifacts.entry("run", "docs/guide.md")?.state).toBe("pending");
  });

  it("answers an edit only with the recorded content, and its base only for a recorded file", () => {
    const { review } = setup();
    expect(review.editBase("run", "docs/plan.md")).toMatch(/^# Plan/);
    expect(refusal(() => review.editBase("run", "assets/flags.png")).message).toMatch(/no recorded version/);
    expect(refusal(() => review.play("run", { cmd: "keep_edited", path: "docs/plan.md", content: "something else\n", force: false })).message).toMatch(/no recording/);
    expect(review.play("run", { cmd: "keep_edited", path: "docs/plan.md", content: `${review.editBase("run", "docs/plan.md")}4. Ship it.\n`, force: false })).toBeNull();
  });
});
