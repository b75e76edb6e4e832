/** A Map or WeakMap used as a cache. */
interface Cache<Key, Value> {
  get(key: Key): Value | undefined;
  set(key: Key, value: Value): unknown;
}

/** The value remembered for a key, computed and remembered on first use. */
export function remembered<Key, Value>(cache: Cache<Key, Value>, key: Key, compute: () => Value): Value {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute();
    cache.set(key, value);
  }
  return value;
}
