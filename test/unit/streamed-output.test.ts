import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LazyList, writeJson, writeLines } from '../../src/util/streamed-output.js';

function written(value: unknown): { text: string; chunks: number } {
  const chunks: string[] = [];
  writeJson(value, (chunk) => chunks.push(chunk));
  return { text: chunks.join(''), chunks: chunks.length };
}

/** The same value with some of its arrays, at any depth, made lazy. */
function withLazyLists(value: unknown, lazy: () => boolean): unknown {
  if (Array.isArray(value)) {
    const items = value.map((item) => withLazyLists(item, lazy));
    return lazy() ? new LazyList(() => items) : items;
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withLazyLists(child, lazy)]));
  }
  return value;
}

describe('writeJson', () => {
  it('writes what JSON.stringify(value, null, 2) writes, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        assert.equal(written(value).text, JSON.stringify(value, null, 2));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes a LazyList as the array it lists, at any depth, and JSON.stringify agrees', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.infiniteStream(fc.boolean()), (value, coins) => {
        const lazy = withLazyLists(value, () => coins.next().value as boolean);
        const expected = JSON.stringify(value, null, 2);
        assert.equal(written(lazy).text, expected);
        assert.equal(JSON.stringify(lazy, null, 2), expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('skips what JSON.stringify skips in objects and writes null for it in lists', () => {
    const value = { a: undefined, b: () => 1, c: new LazyList(() => [undefined, 1]), d: [undefined] };
    assert.equal(written(value).text, JSON.stringify(value, null, 2));
  });

  it('makes the items of a LazyList as it writes them, and writes in bounded chunks', () => {
    let made = 0;
    const items = new LazyList(function* () {
      for (let index = 0; index < 100_000; index++) {
        made++;
        yield { index, text: 'x'.repeat(20) };
      }
    });
    const chunks: string[] = [];
    let madeByFirstChunk: number | undefined;
    writeJson({ items }, (chunk) => {
      madeByFirstChunk ??= made;
      chunks.push(chunk);
    });
    assert.equal(made, 100_000);
    assert.ok(
      madeByFirstChunk !== undefined && madeByFirstChunk < 2_000,
      `${madeByFirstChunk} items made before the first chunk was written`,
    );
    assert.ok(Math.max(...chunks.map((chunk) => chunk.length)) < 2 * 65_536, 'chunks stay near 64 K characters');
    assert.equal(chunks.join(''), JSON.stringify({ items: [...items] }, null, 2));
  });
});

describe('writeLines', () => {
  it('writes each line with a newline, in chunks that join to the whole text', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3000 }), { maxLength: 200 }), (lines) => {
        const chunks: string[] = [];
        writeLines(lines, (chunk) => chunks.push(chunk));
        assert.equal(chunks.join(''), lines.map((line) => `${line}\n`).join(''));
        assert.ok(chunks.every((chunk) => chunk.length > 0));
      }),
      { numRuns: 200 },
    );
  });
});
