/**
 * A JSON array whose items are made while it is written: `dump --json` of
 * 10,000 vhosts lists a quarter of a million directives, which as one object
 * graph and then one string took more memory than the config they describe.
 * `JSON.stringify` still sees an array (toJSON), so a library caller gets
 * the same value as before.
 */
export class LazyList<Item> implements Iterable<Item> {
  constructor(private readonly items: () => Iterable<Item>) {}

  [Symbol.iterator](): Iterator<Item> {
    return this.items()[Symbol.iterator]();
  }

  toJSON(): Item[] {
    return [...this];
  }
}

/** Chunks are handed on once they reach this many characters. */
const CHUNK_CHARACTERS = 1 << 16;

/** Collects text and hands it on in chunks of about CHUNK_CHARACTERS. */
function chunked(write: (chunk: string) => void): { add: (text: string) => void; flush: () => void } {
  let pending = '';
  return {
    add(text) {
      pending += text;
      if (pending.length >= CHUNK_CHARACTERS) {
        write(pending);
        pending = '';
      }
    },
    flush() {
      if (pending !== '') write(pending);
      pending = '';
    },
  };
}

/**
 * Writes `JSON.stringify(value, null, 2)` in chunks, the items of a LazyList
 * made one at a time, so only one item of it is ever in memory as an object
 * and as text.
 */
export function writeJson(value: unknown, write: (chunk: string) => void): void {
  const output = chunked(write);
  writeValue(value, '', output.add);
  output.flush();
}

/** Writes lines, each ended by a newline, in chunks. */
export function writeLines(lines: Iterable<string>, write: (chunk: string) => void): void {
  const output = chunked(write);
  for (const line of lines) output.add(`${line}\n`);
  output.flush();
}

function writeValue(value: unknown, indent: string, emit: (text: string) => void): void {
  if (value instanceof LazyList) {
    writeItems(value, indent, emit);
    return;
  }
  // An object with no LazyList of its own is one JSON.stringify: key by key, 10,000 small results took 40 ms.
  if (!holdsLazyList(value)) {
    emit(indented(JSON.stringify(value, null, 2), indent));
    return;
  }
  const inner = `${indent}  `;
  let first = true;
  for (const [key, child] of Object.entries(value as object)) {
    if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
    emit(`${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `);
    writeValue(child, inner, emit);
    first = false;
  }
  emit(first ? '{}' : `\n${indent}}`);
}

/** How many characters of JSON a batch of plain items is sized to: a quarter of a chunk. */
const BATCH_CHARACTERS = CHUNK_CHARACTERS / 4;

/**
 * A list's items, those without a LazyList in them in batches of one
 * JSON.stringify each: an item at a time, 10,044 results of a lint took four
 * times as long as one JSON.stringify of them all. A batch is sized from the
 * characters per item of the batch before, so that its text stays near
 * BATCH_CHARACTERS however large the items.
 */
function writeItems(items: Iterable<unknown>, indent: string, emit: (text: string) => void): void {
  let first = true;
  let batch: unknown[] = [];
  let batchSize = 1;
  const flush = (): void => {
    if (batch.length === 0) return;
    // `[\n  a,\n  b\n]` without its brackets is the items as they stand in the list.
    const json = JSON.stringify(batch, null, 2);
    emit(`${first ? '[' : ','}${indented(json.slice(1, -2), indent)}`);
    batchSize = Math.max(1, Math.min(256, Math.floor((BATCH_CHARACTERS * batch.length) / json.length)));
    batch = [];
    first = false;
  };
  for (const item of items) {
    if (holdsLazyList(item)) {
      flush();
      emit(`${first ? '[' : ','}\n${indent}  `);
      writeValue(item, `${indent}  `, emit);
      first = false;
      continue;
    }
    batch.push(item);
    if (batch.length >= batchSize) flush();
  }
  flush();
  emit(first ? '[]' : `\n${indent}]`);
}

/** Whether a value has a LazyList that JSON.stringify would not see: as itself, or among an object's own values. */
function holdsLazyList(value: unknown): boolean {
  if (value instanceof LazyList) return true;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key in value) if (Object.hasOwn(value, key) && (value as Record<string, unknown>)[key] instanceof LazyList) return true;
  return false;
}

/** A value's JSON text set at an indentation: every line after the first moves right. */
function indented(json: string, indent: string): string {
  return indent === '' || !json.includes('\n') ? json : json.replaceAll('\n', `\n${indent}`);
}
