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
  if (
    Array.isArray(value) ||
    value === null ||
    typeof value !== 'object' ||
    typeof (value as { toJSON?: unknown }).toJSON === 'function' ||
    !Object.values(value).some((child) => child instanceof LazyList)
  ) {
    emit(indented(JSON.stringify(value, null, 2), indent));
    return;
  }
  const inner = `${indent}  `;
  let first = true;
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
    emit(`${first ? '{' : ','}\n${inner}${JSON.stringify(key)}: `);
    writeValue(child, inner, emit);
    first = false;
  }
  emit(first ? '{}' : `\n${indent}}`);
}

function writeItems(items: Iterable<unknown>, indent: string, emit: (text: string) => void): void {
  const inner = `${indent}  `;
  let first = true;
  for (const item of items) {
    emit(`${first ? '[' : ','}\n${inner}`);
    // As JSON.stringify writes an item it cannot represent in an array.
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') emit('null');
    else writeValue(item, inner, emit);
    first = false;
  }
  emit(first ? '[]' : `\n${indent}]`);
}

/** A value's JSON text set at an indentation: every line after the first moves right. */
function indented(json: string, indent: string): string {
  return indent === '' || !json.includes('\n') ? json : json.replaceAll('\n', `\n${indent}`);
}
