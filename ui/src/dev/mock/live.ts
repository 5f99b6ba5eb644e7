// The shell's live feed (`next_live_updates`): updates wait here until the
// page pulls them, as the Rust side's `LiveFeed` keeps them.
import type { LiveUpdate, LiveUpdates } from "../../bindings";

export class MockLiveFeed {
  #items: LiveUpdate[] = [];
  /** Index of `#items[0]` since the feed began. */
  #first = 0;
  #waiters: (() => void)[] = [];

  push(update: LiveUpdate): void {
    this.#items.push(update);
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Like the shell: no cursor answers the end at once; else waits for what follows the cursor (no timeout here). */
  async next(cursor: number | null): Promise<LiveUpdates> {
    const end = () => this.#first + this.#items.length;
    if (cursor === null) return { cursor: end(), skipped: 0, updates: [] };
    const from = Math.min(cursor, end());
    // The page has everything before its cursor.
    this.#items.splice(0, from - this.#first);
    this.#first = from;
    if (this.#items.length === 0) await new Promise<void>((wake) => this.#waiters.push(wake));
    const updates = this.#items.slice();
    return { cursor: from + updates.length, skipped: 0, updates };
  }
}
