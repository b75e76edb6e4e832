import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { formatServerSize, parseServerSize, type ServerSize } from '../../src/languages/mycnf/sizes.js';
import { MARIADB_10_11, temporaryDirectory } from '../helpers/mycnf-fixtures.js';
import { serverVariables } from '../helpers/mycnf-oracle.js';
import { requireTool } from '../helpers/tools.js';

const MYSQL_8_0_14: DatabaseTarget = { product: 'mysql', version: '8.0.14' };
const MYSQL_5_7: DatabaseTarget = { product: 'mysql', version: '5.7' };

function bytes(result: ServerSize): number | string {
  return 'error' in result ? `error: ${result.error}` : result.bytes;
}

describe('mycnf sizes', () => {
  it('reads an integer with one binary suffix letter in any case', () => {
    assert.equal(bytes(parseServerSize('16M', MARIADB_10_11)), 16 * 2 ** 20);
    assert.equal(bytes(parseServerSize('64m', MARIADB_10_11)), 64 * 2 ** 20);
    assert.equal(bytes(parseServerSize('1g', MARIADB_10_11)), 2 ** 30);
    assert.equal(bytes(parseServerSize('128K', MYSQL_5_7)), 128 * 1024);
    assert.equal(bytes(parseServerSize('4194304', MYSQL_8_0_14)), 4194304);
    assert.equal(bytes(parseServerSize('1T', MARIADB_10_11)), 2 ** 40);
    assert.equal(bytes(parseServerSize('1E', MYSQL_8_0_14)), 2 ** 60);
  });

  it("refuses what the server refuses, in the server's words", () => {
    assert.equal(
      bytes(parseServerSize('1.5G', MARIADB_10_11, 'key_buffer_size')),
      "error: Unknown suffix '.' used for variable 'key_buffer_size' (value '1.5G'). Legal suffix characters are: K, M, G, T, P, E",
    );
    assert.equal(
      bytes(parseServerSize('1024*1024', MYSQL_8_0_14, 'sort_buffer_size')),
      "error: Unknown suffix '*' used for variable 'sort_buffer_size' (value '1024*1024')",
    );
    assert.equal(bytes(parseServerSize('1T', MYSQL_5_7, 'x')), "error: Unknown suffix 'T' used for variable 'x' (value '1T')");
    assert.equal(bytes(parseServerSize('', MYSQL_8_0_14, 'x')), "error: Empty value for 'x' specified");
    assert.equal(bytes(parseServerSize('-1', MARIADB_10_11, 'x')), "error: Incorrect unsigned value: '-1' for x");
    assert.equal(
      bytes(parseServerSize('99999999999999999999', MARIADB_10_11, 'x')),
      "error: Integer value out of range for uint64: '99999999999999999999' for x",
    );
    assert.equal(bytes(parseServerSize('16E', MYSQL_8_0_14, 'x')), "error: Incorrect unsigned integer value: '16E'");
  });

  it('accepts, with a warning, what the server accepts but the admin did not mean', () => {
    const megabytes = parseServerSize('512MB', MARIADB_10_11);
    assert.equal(bytes(megabytes), 512 * 2 ** 20);
    assert.deepEqual('warnings' in megabytes ? megabytes.warnings : [], [{ kind: 'trailing', read: '512M', ignored: 'B' }]);
    assert.equal(bytes(parseServerSize('', MARIADB_10_11)), 0);
    assert.equal(bytes(parseServerSize('M', MARIADB_10_11)), 0);
    assert.equal(bytes(parseServerSize('16E', MARIADB_10_11)), 0);
    const negative = parseServerSize('-1', MYSQL_8_0_14);
    assert.equal(bytes(negative), 0);
    assert.deepEqual('warnings' in negative ? negative.warnings : [], [{ kind: 'negative' }]);
    assert.deepEqual(
      'warnings' in parseServerSize('16E', MARIADB_10_11) ? (parseServerSize('16E', MARIADB_10_11) as { warnings: unknown }).warnings : [],
      [{ kind: 'wraps' }],
    );
  });

  it('writes sizes back with the largest exact suffix', () => {
    assert.equal(formatServerSize(1536 * 2 ** 20, MARIADB_10_11), '1536M');
    assert.equal(formatServerSize(2 ** 40, MARIADB_10_11), '1T');
    assert.equal(formatServerSize(2 ** 40, MYSQL_5_7), '1024G');
    assert.equal(formatServerSize(1000, MARIADB_10_11), '1000');
    assert.equal(formatServerSize(0, MARIADB_10_11), '0');
  });
});

describe('mycnf sizes against mariadbd', () => {
  // bulk_insert_buffer_size has no minimum, no block size and no maximum below 2^64,
  // so mariadbd prints exactly the number its option parser read.
  const variable = 'bulk_insert_buffer_size';
  const fixed = [
    '1.5G',
    '512MB',
    '1024*1024',
    '',
    '1T',
    '1P',
    '1E',
    '16E',
    '17179869184G',
    '-1',
    '+1M',
    '0x10',
    '99999999999999999999',
    '18446744073709551615',
    '18446744073709551616',
    '1k',
    '64m',
    '1g',
    'M',
    '5 M',
    '1M2',
    '12abc',
    '1e3',
    '0012K',
    '"  -1"',
    "'8M'",
  ];

  function compare(tool: string, dir: string, written: string): void {
    const file = path.join(dir, 'size.cnf');
    fs.writeFileSync(file, `[mysqld]\n${variable} = ${written}\n`);
    const server = serverVariables(tool, file, dir);
    const value = /^(["'])(.*)\1$/.exec(written)?.[2] ?? written;
    const ours = parseServerSize(value, MARIADB_10_11, variable);
    if ('error' in ours) {
      assert.notEqual(server.status, 0, `${written}: mariadbd refuses it too`);
      assert.ok(server.stderr.includes(ours.error), `${written}: mariadbd says "${ours.error}"\n${server.stderr}`);
    } else {
      // bytes is a double: above 2^53 both sides round the same way.
      assert.equal(Number(server.values.get(variable)), ours.bytes, written);
    }
  }

  it('reads every spelling to the bytes mariadbd prints, or refuses it with its message', (t) => {
    const tool = requireTool(t, 'mariadbd');
    if (tool === undefined) return;
    const { dir, cleanup } = temporaryDirectory('sizes');
    try {
      for (const written of fixed) compare(tool, dir, written);
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom('0', '1', '2', '7', '9', 'k', 'M', 'g', 'T', 'p', 'E', 'B', 'x', '.', '-', '+', ' ', '*'), {
            minLength: 1,
            maxLength: 6,
          }),
          (parts) => {
            // Blanks at either end never reach the option parser: the reader trims them.
            compare(tool, dir, parts.join('').trim());
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      cleanup();
    }
  });
});
