/**
 * A frozen table without Object.prototype behind it. Its keys are looked up
 * with names and values read from configs and command lines, where
 * `constructor` or `__proto__` are data: on a plain object literal they would
 * find Object.prototype's members instead of nothing.
 */
export function lookupTable<Value>(entries: Readonly<Record<string, Value>>): Readonly<Record<string, Value>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, Value>, entries));
}
