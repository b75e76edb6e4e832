import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wrapLine } from '../../src/util/wrap.js';

describe('wrapLine', () => {
  it('cuts at spaces within the width, going on under the indent; colour escapes take no column', () => {
    const red = (text: string) => `\u001b[31m${text}\u001b[39m`;
    const line = `  1:1  ${red('error')}  MaxClients 150 x 20 MiB = 2.9 GiB exceeds the web tier budget of 436 MiB`;
    const lines = wrapLine(line, 40, 15);
    assert.deepEqual(
      lines.map((text) => text.replace(/\u001b\[\d+m/g, '')),
      ['  1:1  error  MaxClients 150 x 20 MiB =', '               2.9 GiB exceeds the web', '               tier budget of 436 MiB'],
    );
    assert.ok(lines[0]?.includes(red('error')), 'the escape is kept whole');
  });

  it('never splits before `keep`, cuts a word longer than the line, and leaves a line that fits or no width alone', () => {
    const bar = `    Apache     ${'#'.repeat(20)}|    2.9 GiB  MaxClients 150 x 20 MiB per child; budget 436 MiB`;
    const wrapped = wrapLine(bar, 60, 44);
    assert.ok(wrapped.length > 1 && wrapped.every((text) => text.length <= 60), wrapped.join('\n'));
    assert.ok(wrapped[0]?.startsWith(`    Apache     ${'#'.repeat(20)}|    2.9 GiB  MaxClients`));
    assert.ok(wrapped.slice(1).every((text) => /^ {44}\S/.test(text)));
    const url = `  ${'x'.repeat(100)}`;
    assert.ok(wrapLine(url, 40, 4).every((text) => text.length <= 40));
    assert.deepEqual(wrapLine('short', 40, 2), ['short']);
    assert.deepEqual(wrapLine(url, undefined, 2), [url]);
  });
});
