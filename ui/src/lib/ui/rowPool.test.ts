import { describe, expect, it } from "vitest";
import { RowPool } from "./rowPool";

describe("RowPool", () => {
  it("keeps the slot of a row that stays in the window", () => {
    const pool = new RowPool();
    const first = pool.assign(0, 5);
    expect(first.map((s) => s.index)).toEqual([0, 1, 2, 3, 4]);
    const ids = new Map(first.map((s) => [s.index, s.id]));
    const moved = pool.assign(2, 7);
    expect(moved.map((s) => s.index)).toEqual([2, 3, 4, 5, 6]);
    for (const s of moved.filter((s) => s.index <= 4)) expect(s.id).toBe(ids.get(s.index));
  });

  it("gives rows coming into view the slots that left, making none while some are free", () => {
    const pool = new RowPool();
    const first = pool.assign(0, 5);
    const next = pool.assign(5, 10);
    expect(new Set(next.map((s) => s.id))).toEqual(new Set(first.map((s) => s.id)));
    const grown = pool.assign(5, 12);
    expect(new Set(grown.map((s) => s.id)).size).toBe(7);
  });

  it("prefers a free slot that showed the same kind of row", () => {
    const pool = new RowPool();
    const kinds = ["a", "b", "c", "a", "b", "c"];
    const first = pool.assign(0, 3, (i) => kinds[i]);
    const next = pool.assign(3, 6, (i) => kinds[i]);
    const byIndex = (rows: { id: number; index: number }[], i: number) => rows.find((r) => r.index === i)?.id;
    expect(byIndex(next, 3)).toBe(byIndex(first, 0));
    expect(byIndex(next, 4)).toBe(byIndex(first, 1));
    expect(byIndex(next, 5)).toBe(byIndex(first, 2));
  });

  it("never gives two rows the same slot", () => {
    const pool = new RowPool();
    for (const [a, b] of [[0, 10], [4, 9], [20, 40], [0, 3], [30, 31], [0, 0], [5, 25]]) {
      const rows = pool.assign(a, b, (i) => String(i % 3));
      expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
      expect(rows.map((r) => r.index)).toEqual(Array.from({ length: b - a }, (_, i) => a + i));
    }
  });
});
