/**
 * Index of the first row whose bottom edge is below `top`, given prefix-sum
 * `offsets` (offsets[i] = top of row i, offsets[count] = total height).
 * Binary search: O(log n).
 */
export function firstVisible(offsets: ArrayLike<number>, count: number, top: number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid + 1] <= top) lo = mid + 1;
    else hi = mid;
  }
  return Math.max(0, Math.min(lo, count - 1));
}

/** Where a reader left a windowed list: its first row in view (and how far past it), or following its end. */
export interface ListPlace {
  index: number;
  offset: number;
  follow: boolean;
}
