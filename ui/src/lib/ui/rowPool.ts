/**
 * Which slot shows which row of a windowed list. A slot is one row element
 * that stays in the DOM while the window moves: a row still in the window
 * keeps its slot (nothing of it changes), and a row coming into view takes
 * a slot that left, so its component is updated rather than made anew.
 * Made-anew rows (new DOM, components, observers) are what made scrolling
 * cost more than a plain list's.
 */
export interface Slotted {
  /** The slot's id, stable while the slot lives: the key of its element. */
  id: number;
  index: number;
}

export class RowPool {
  #slots: { id: number; index: number; kind: string }[] = [];
  #next = 0;

  /**
   * Slots for rows `start` … `end - 1`, in row order. `kindOf` names the
   * kind of a row: a row coming into view prefers a slot that showed the
   * same kind, whose content then changes least (same component branches).
   */
  assign(start: number, end: number, kindOf?: (index: number) => string): Slotted[] {
    const kept = new Map<number, { id: number; kind: string }>();
    const free: { id: number; kind: string }[] = [];
    for (const slot of this.#slots) {
      if (slot.index >= start && slot.index < end && !kept.has(slot.index)) kept.set(slot.index, slot);
      else free.push(slot);
    }
    const next: { id: number; index: number; kind: string }[] = [];
    for (let index = start; index < end; index++) {
      const own = kept.get(index);
      if (own) {
        next.push({ id: own.id, index, kind: own.kind });
        continue;
      }
      const kind = kindOf?.(index) ?? "";
      let at = free.length - 1;
      for (let i = free.length - 1; i >= 0 && kindOf; i--) {
        if (free[i].kind === kind) {
          at = i;
          break;
        }
      }
      const id = at >= 0 ? free.splice(at, 1)[0].id : this.#next++;
      next.push({ id, index, kind });
    }
    // Slots left over are dropped: the window holds fewer rows now.
    this.#slots = next;
    return next.map(({ id, index }) => ({ id, index }));
  }

  /** Forgets every slot (the list was emptied). */
  clear(): void {
    this.#slots = [];
  }
}
