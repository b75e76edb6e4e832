/**
 * Appends every item of `items` to `target`. `target.push(...items)` passes
 * each item as an argument, and an array of some hundred thousand items (a
 * patch's lines, a big tree's sections) overflows the call stack.
 */
export function appendAll<Item>(target: Item[], items: Iterable<Item>): Item[] {
  for (const item of items) target.push(item);
  return target;
}

/** Adds a value to the list a map keeps under `key`, making the list when there is none. */
export function appendTo<K, T>(map: Map<K, T[]>, key: K, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
