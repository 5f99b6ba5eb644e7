/**
 * Which slot shows which row of a windowed list. A slot is one row element
 * that stays in the DOM while the window moves: a row still in the window
 * keeps its slot (nothing of it changes), and a row coming into view takes
 * a slot that left, so its component is updated rather than made anew.
 * Made-anew rows (new DOM, components, observers) are what made scrolling
 * cost more than a plain list's.
 *
 * Slots are never dropped while their row exists: a window holding fewer
 * rows (taller ones in view) keeps the others as spares, still showing the
 * row they last showed (out of view), instead of dropping them and making
 * new ones a step later (18 of the timeline's slots per step were made anew
 * so). And slots keep their order, so that their elements are not moved in
 * the DOM as the window moves: a moved element is styled and laid out anew,
 * like a new one. `assign(…, true)` puts them in row order again (for
 * reading and Tab order), once scrolling has stopped.
 */
export interface Slotted {
  /** The slot's id, stable while the slot lives: the key of its element. */
  id: number;
  index: number;
}

interface Slot {
  id: number;
  index: number;
  kind: string;
}

export class RowPool {
  #slots: Slot[] = [];
  #next = 0;

  /**
   * Slots for rows `start` … `end - 1`, and the spares, which show rows out
   * of the window. `kindOf` names the kind of a row: a row coming into view
   * prefers a slot that showed the same kind, whose content then changes
   * least (same component branches). `count` (the rows there are) drops the
   * spares showing rows that no longer exist. In row order when `ordered`,
   * else in the slots' order, which changes only when a slot is added.
   */
  assign(start: number, end: number, kindOf?: (index: number) => string, count = Infinity, ordered = false): Slotted[] {
    this.#slots = this.#slots.filter((slot) => slot.index < count);
    const held = new Set<number>();
    const free: Slot[] = [];
    for (const slot of this.#slots) {
      if (slot.index >= start && slot.index < end && !held.has(slot.index)) held.add(slot.index);
      else free.push(slot);
    }
    for (let index = start; index < end; index++) {
      if (held.has(index)) continue;
      const kind = kindOf?.(index) ?? "";
      const slot = take(free, index, kind);
      if (slot) Object.assign(slot, { index, kind });
      else this.#slots.push({ id: this.#next++, index, kind });
    }
    // A spare showing a row of the window (two slots once held it) gives it up.
    const seen = new Set<number>();
    this.#slots = this.#slots.filter((slot) => !seen.has(slot.index) && seen.add(slot.index));
    if (ordered) this.#slots.sort((a, b) => a.index - b.index);
    return this.#slots.map(({ id, index }) => ({ id, index }));
  }

  /** Forgets every slot (the list was emptied). */
  clear(): void {
    this.#slots = [];
  }
}

/**
 * Takes the free slot for row `index`: of its kind when there is one, and
 * the farthest from it, whose row is the least likely to be wanted back soon.
 */
function take(free: Slot[], index: number, kind: string): Slot | undefined {
  const rank = (slot: Slot) => (slot.kind === kind ? Number.MAX_SAFE_INTEGER / 2 : 0) + Math.abs(slot.index - index);
  let at = -1;
  for (let i = 0; i < free.length; i++) if (at < 0 || rank(free[i]) > rank(free[at])) at = i;
  return at < 0 ? undefined : free.splice(at, 1)[0];
}
