import { describe, expect, it } from "vitest";
import type { ArtifactItem } from "../../bindings";
import { cardReview } from "./cardReview";
import { toolCard } from "./testSupport";

const calc: ArtifactItem = { path: "calc.py", change: "modified", state: "reverted", beforeBytes: 66, afterBytes: 66, lines: { added: 1, removed: 1 }, byHooks: [] };
const result = { call_id: "c1", content: "edited calc.py", is_error: false };
const edit = (more = {}) => toolCard("edit_file", { path: "./calc.py", old_string: "-", new_string: "+" }, { result, paths: ["calc.py"], ...more });
const alone = () => "alone" as const;
const shared = () => "shared" as const;

describe("cardReview", () => {
  it("offers the file's actions on a completed write that alone changed it, whatever its state", () => {
    expect(cardReview(edit(), alone, [calc])).toEqual({ kind: "actions", item: calc });
    const write = toolCard("write_file", { path: "calc.py", content: "x" }, { result, paths: ["calc.py"] });
    expect(cardReview(write, alone, [{ ...calc, state: "pending" }])).toMatchObject({ kind: "actions" });
  });

  it("asks which call changed the recorded path, not the argument's spelling", () => {
    const asked: string[] = [];
    cardReview(edit(), (path, callId) => (asked.push(`${path}:${callId}`), "alone"), [calc]);
    expect(asked).toEqual(["calc.py:c1"]);
  });

  it("points to Changes when other calls changed the file too", () => {
    expect(cardReview(edit(), shared, [calc])).toEqual({ kind: "changes", path: "calc.py" });
  });

  it("offers nothing before the write completes, when it failed, for other tools, or for a file Changes does not list", () => {
    expect(cardReview(edit({ result: null }), alone, [calc])).toBeNull();
    expect(cardReview(edit({ failed: true }), alone, [calc])).toBeNull();
    expect(cardReview(edit({ paths: [] }), alone, [calc])).toBeNull();
    expect(cardReview(edit(), alone, [])).toBeNull();
    expect(cardReview(edit(), () => null, [calc])).toBeNull();
    expect(cardReview(toolCard("read_file", { path: "calc.py" }, { result, paths: ["calc.py"] }), alone, [calc])).toBeNull();
  });
});
