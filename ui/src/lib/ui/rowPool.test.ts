import { describe, expect, it } from "vitest";
import { RowPool, type Slotted } from "./rowPool";

const indexes = (rows: Slotted[]) => rows.map((s) => s.index);
const inRange = (rows: Slotted[], a: number, b: number) => indexes(rows).filter((i) => i >= a && i < b).sort((x, y) => x - y);
const idOf = (rows: Slotted[], index: number) => rows.find((r) => r.index === index)?.id;

describe("RowPool", () => {
  it("keeps the slot of a row that stays in the window", () => {
    const pool = new RowPool();
    const first = pool.assign(0, 5);
    expect(indexes(first)).toEqual([0, 1, 2, 3, 4]);
    const moved = pool.assign(2, 7);
    expect(inRange(moved, 2, 7)).toEqual([2, 3, 4, 5, 6]);
    for (const i of [2, 3, 4]) expect(idOf(moved, i)).toBe(idOf(first, i));
  });

  it("gives rows coming into view the slots that left, making none while some are free", () => {
    const pool = new RowPool();
    const first = pool.assign(0, 5);
    const next = pool.assign(5, 10);
    expect(new Set(next.map((s) => s.id))).toEqual(new Set(first.map((s) => s.id)));
    const grown = pool.assign(5, 12);
    expect(new Set(grown.map((s) => s.id)).size).toBe(7);
  });

  it("keeps the slots' order while the window moves, and puts them in row order when asked", () => {
    const pool = new RowPool();
    const ids = pool.assign(0, 5).map((s) => s.id);
    const moved = pool.assign(3, 8);
    expect(moved.map((s) => s.id)).toEqual(ids);
    expect(indexes(moved)).not.toEqual([...indexes(moved)].sort((a, b) => a - b));
    const ordered = pool.assign(3, 8, undefined, Infinity, true);
    expect(indexes(ordered)).toEqual([3, 4, 5, 6, 7]);
    expect(pool.assign(4, 9).map((s) => s.id)).toEqual(ordered.map((s) => s.id));
  });

  it("keeps slots a smaller window does not need as spares showing their last row, and drops those past the end", () => {
    const pool = new RowPool();
    const first = pool.assign(0, 6);
    const smaller = pool.assign(2, 4);
    expect(new Set(smaller.map((s) => s.id))).toEqual(new Set(first.map((s) => s.id)));
    expect(inRange(smaller, 2, 4)).toEqual([2, 3]);
    // A spare whose row comes back into the window keeps it: nothing of it changes.
    const back = pool.assign(4, 6);
    expect(idOf(back, 4)).toBe(idOf(first, 4));
    expect(idOf(back, 5)).toBe(idOf(first, 5));
    expect(indexes(pool.assign(0, 2, undefined, 3)).every((i) => i < 3)).toBe(true);
  });

  it("prefers a free slot that showed the same kind of row, then the one farthest from the new row", () => {
    const pool = new RowPool();
    const kinds = ["a", "b", "c", "a", "b", "c"];
    const first = pool.assign(0, 3, (i) => kinds[i]);
    const next = pool.assign(3, 6, (i) => kinds[i]);
    expect(idOf(next, 3)).toBe(idOf(first, 0));
    expect(idOf(next, 4)).toBe(idOf(first, 1));
    expect(idOf(next, 5)).toBe(idOf(first, 2));
    const far = new RowPool();
    const rows = far.assign(0, 4);
    expect(idOf(far.assign(2, 5), 4)).toBe(idOf(rows, 0));
  });

  it("never gives two rows the same slot, nor one row two slots", () => {
    const pool = new RowPool();
    for (const [a, b] of [[0, 10], [4, 9], [20, 40], [0, 3], [30, 31], [0, 0], [5, 25]]) {
      const rows = pool.assign(a, b, (i) => String(i % 3), 40);
      expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
      expect(new Set(indexes(rows)).size).toBe(rows.length);
      expect(inRange(rows, a, b)).toEqual(Array.from({ length: b - a }, (_, i) => a + i));
    }
  });
});
