/**
 * What a row derives from its item (a diff parsed from its arguments, a
 * summary counting its result's lines), worked out once per item: items
 * are replaced, never changed, when their run moves on, so the item itself
 * is the key. A windowed list's slot shows an item again each time it
 * scrolls back into view; that costs nothing then.
 */
export function perItem<T extends object, R>(derive: (item: T) => R): (item: T) => R {
  const known = new WeakMap<T, { value: R }>();
  return (item) => {
    const hit = known.get(item);
    if (hit) return hit.value;
    const value = derive(item);
    known.set(item, { value });
    return value;
  };
}

/** As `perItem`, for a value that also depends on a second argument: kept while that argument is the same (`Object.is`). */
export function perItemWith<T extends object, A, R>(derive: (item: T, arg: A) => R): (item: T, arg: A) => R {
  const known = new WeakMap<T, { arg: A; value: R }>();
  return (item, arg) => {
    const hit = known.get(item);
    if (hit && Object.is(hit.arg, arg)) return hit.value;
    const value = derive(item, arg);
    known.set(item, { arg, value });
    return value;
  };
}
