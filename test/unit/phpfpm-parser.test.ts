import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parsePhpFpm } from '../../src/languages/phpfpm/parser.js';

describe('php-fpm parser', () => {
  it('is lossless: the lines tile the text, whatever it holds', () => {
    const line = fc.oneof(
      fc.constantFrom(
        '[www]',
        '[global]',
        '; comment',
        '',
        '  ',
        '# hash',
        'pm = dynamic',
        'listen = "/run/php/$pool.sock" ; trailing',
        'x',
      ),
      fc.string({ maxLength: 40 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), (lines, eol, finalEol) => {
        const text = lines.join(eol) + (finalEol ? eol : '');
        const parsed = parsePhpFpm(text);
        assert.equal(parsed.map((entry) => text.slice(entry.range[0], entry.range[1])).join(''), text);
        parsed.forEach((entry, index) => assert.equal(entry.number, index + 1));
      }),
    );
  });

  it('reads entries as the INI scanner does: quotes, ; comments, array keys; refuses # lines and lines without =', () => {
    const text = [
      '[www]',
      'pm.max_children = 5 ; five',
      "listen = '/run/php/a;b.sock'",
      'php_admin_value[memory_limit] = "128M"',
      '# not a comment',
      'catch_workers_output',
      '',
    ].join('\n');
    const lines = parsePhpFpm(text);
    const entries = lines.flatMap((line) => (line.kind === 'entry' ? [[line.key, line.value, text.slice(...line.valueRange)]] : []));
    assert.deepEqual(entries, [
      ['pm.max_children', '5', '5'],
      ['listen', '/run/php/a;b.sock', "'/run/php/a;b.sock'"],
      ['php_admin_value[memory_limit]', '128M', '"128M"'],
    ]);
    assert.deepEqual(
      lines.filter((line) => line.kind === 'broken').map((line) => line.number),
      [5, 6],
    );
  });

  it('takes a key as zend_ini_scanner does: any character but = ; & | ^ $ ~ ( ) { } ! " [ and tabs, blanks before [ dropped', () => {
    const text = [
      '#pm.max_requests = 500',
      'key with spaces  = 1',
      "k]x'y@z = 1",
      'listen.bac\u212Alog = 511',
      'php_admin_value [ memory_limit] = 96M',
      'foo(bar) = 1',
      'k\tx = 1',
      '',
    ].join('\n');
    const lines = parsePhpFpm(text);
    const entries = lines.flatMap((line) => (line.kind === 'entry' ? [[line.key, text.slice(...line.keyRange)]] : []));
    assert.deepEqual(entries, [
      ['#pm.max_requests', '#pm.max_requests'],
      ['key with spaces', 'key with spaces'],
      ["k]x'y@z", "k]x'y@z"],
      ['listen.bac\u212Alog', 'listen.bac\u212Alog'],
      ['php_admin_value[memory_limit]', 'php_admin_value [ memory_limit]'],
    ]);
    assert.deepEqual(
      lines.filter((line) => line.kind === 'broken').map((line) => line.number),
      [6, 7],
    );
  });
});
