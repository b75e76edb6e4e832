import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { phpConfigKind } from '../../src/languages/phpfpm/detect.js';

/*
 * phpConfigKind tells php-fpm pools and php.ini from the configs tune-lint
 * reads by their `[section]` and `key =` lines, and first searches the whole
 * text for such a line at all. Built from pieces that sit on either side of
 * that search (whitespace trim() takes off, CRs, a BOM, keys with and without
 * `=`), every text gets what a line-by-line reading of its first 2,000 lines
 * gives.
 */

const PIECES = [
  '[www]',
  '[global]',
  '[PHP]',
  'pm = dynamic',
  'pm.max_children=5',
  'listen = /run/php.sock',
  'pid = /run/php-fpm.pid',
  'memory_limit = 128M',
  'extension=mysqli',
  'Timeout 300',
  'Listen 80',
  '# pm = static',
  '; [www]',
  '<IfModule x>',
  'a.b = c',
  '',
];
const SPACE = ['', ' ', '\t', '\r', '\u00a0', '\ufeff', '\v'];

/**
 * The reading phpConfigKind makes, line by line with no search first: a
 * `[section]` names the group (`[PHP]` is php.ini), php-fpm keys count in a
 * pool or in [global], php.ini keys count anywhere.
 */
function lineByLine(text: string): ReturnType<typeof phpConfigKind> {
  let group: string | undefined;
  let fpm = 0;
  let ini = 0;
  for (const line of text.split('\n', 2_000).map((raw) => raw.trim())) {
    const header = /^\[([^\]]+)\]$/.exec(line)?.[1];
    if (header !== undefined) {
      if (header.toLowerCase() === 'php') return { refused: 'php.ini (its [PHP] section)' };
      group = header;
      continue;
    }
    const key = /^([A-Za-z_][\w.]*)\s*=/.exec(line)?.[1]?.toLowerCase();
    if (key === undefined || line.startsWith(';') || line.startsWith('#')) continue;
    if (/^(pm(\.[a-z_]+)?|listen(\.[a-z_]+)?)$/.test(key) || (group?.toLowerCase() === 'global' && /^(pid|include)$/.test(key))) fpm++;
    if (/^(memory_limit|extension)$/.test(key)) ini++;
  }
  if (fpm > 0 && group !== undefined) return { language: 'phpfpm' };
  return ini >= 2 ? { refused: 'php.ini (PHP directives)' } : undefined;
}

describe('phpConfigKind', () => {
  it('tells what a line-by-line reading tells, whatever whitespace surrounds the lines (fast-check)', () => {
    const line = fc.tuple(fc.constantFrom(...SPACE), fc.constantFrom(...PIECES), fc.constantFrom(...SPACE)).map((parts) => parts.join(''));
    let php = 0;
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const text = lines.join('\n');
        const kind = phpConfigKind(text);
        assert.deepEqual(kind, lineByLine(text));
        if (kind !== undefined) php++;
      }),
      { numRuns: 2000, seed: 20261203 },
    );
    assert.ok(php > 200, `only ${php} texts were told php-fpm's or PHP's`);
  });

  it('tells a pool, php.ini and php-fpm.conf, and nothing in an Apache config', () => {
    assert.deepEqual(phpConfigKind('[www]\npm = dynamic\n'), { language: 'phpfpm' });
    assert.deepEqual(phpConfigKind('\ufeff [www]\r\n\u00a0pm.max_children = 5\r\n'), { language: 'phpfpm' });
    assert.deepEqual(phpConfigKind('[global]\npid = /run/php-fpm.pid\n'), { language: 'phpfpm' });
    assert.deepEqual(phpConfigKind('[PHP]\nengine = On\n'), { refused: 'php.ini (its [PHP] section)' });
    assert.deepEqual(phpConfigKind('memory_limit = 128M\nextension=mysqli\n'), { refused: 'php.ini (PHP directives)' });
    assert.equal(phpConfigKind('Timeout 300\n<IfModule mpm_prefork_module>\n  MaxRequestWorkers 10\n</IfModule>\n'), undefined);
  });
});
