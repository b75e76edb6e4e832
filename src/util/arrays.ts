/**
 * Appends every item of `items` to `target`. `target.push(...items)` passes
 * each item as an argument, and an array of some hundred thousand items (a
 * patch's lines, a big tree's sections) overflows the call stack.
 */
export function appendAll<Item>(target: Item[], items: Iterable<Item>): Item[] {
  for (const item of items) target.push(item);
  return target;
}
