import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isUtf8 } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBytes, SourceFile } from '../../src/core/source-file.js';
import { CLI } from '../helpers/cli.js';
import { requireTool } from '../helpers/tools.js';

/*
 * --format diff writes each file's lines in that file's own bytes: a config
 * that is not valid UTF-8 (read as latin1) still gets a patch git applies,
 * and the result is byte for byte what --fix writes.
 */
describe("--format diff in the files' own bytes", () => {
  it('a latin1 config: git apply takes the patch and gives what --fix writes', (t) => {
    const git = requireTool(t, 'git');
    if (git === undefined) return;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-bytes-'));
    try {
      const original = Buffer.from('LoadModule mpm_prefork_module m.so\n# Serveur de la caf\xe9t\xe9ria\nMaxClients 10\n', 'latin1');
      for (const dir of ['patched', 'fixed']) {
        fs.mkdirSync(path.join(root, dir));
        fs.writeFileSync(path.join(root, dir, 'httpd.conf'), original);
      }
      const diff = spawnSync(process.execPath, [CLI, '--no-probe', '--format', 'diff', 'httpd.conf'], { cwd: path.join(root, 'patched') });
      assert.ok(diff.stdout.includes(Buffer.from('caf\xe9t\xe9ria', 'latin1')), 'the context line is in latin1');
      fs.writeFileSync(path.join(root, 'fix.patch'), diff.stdout);
      execFileSync(git, ['apply', path.join(root, 'fix.patch')], { cwd: path.join(root, 'patched') });
      spawnSync(process.execPath, [CLI, '--no-probe', '--fix', 'httpd.conf'], { cwd: path.join(root, 'fixed') });
      const fixed = fs.readFileSync(path.join(root, 'fixed', 'httpd.conf'));
      assert.notDeepEqual(fixed, original, '--fix changed the file');
      assert.deepEqual(fs.readFileSync(path.join(root, 'patched', 'httpd.conf')), fixed);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('decoding a file', () => {
  const roundTrips = (bytes: Uint8Array): { text: string; encoding: string } => {
    const decoded = decodeBytes(bytes);
    const file = new SourceFile('/x.conf', 'x.conf', decoded.text, decoded.encoding);
    assert.ok(file.encode().equals(Buffer.from(bytes)), 'writing the text back gives the same bytes');
    return decoded;
  };

  it('text written as UTF-8 reads back as that text, a BOM kept (fast-check)', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.string({ unit: 'grapheme', maxLength: 24 }), (bom, written) => {
        const text = bom ? `\ufeff${written}` : written;
        assert.deepEqual(roundTrips(Buffer.from(text, 'utf8')), { text, encoding: 'utf8' });
      }),
      { numRuns: 1000 },
    );
  });

  it('bytes that are not UTF-8 read as latin1, one char per byte, and write back the same (fast-check)', () => {
    const check = (bytes: Uint8Array): void => {
      const decoded = roundTrips(bytes);
      // node:buffer's isUtf8 (simdutf) as the independent judge of validity.
      if (isUtf8(bytes)) assert.equal(decoded.encoding, 'utf8');
      else assert.deepEqual(decoded, { text: Buffer.from(bytes).toString('latin1'), encoding: 'latin1' });
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), check), { numRuns: 2000 });
    // A UTF-16 surrogate, an overlong '/', a code point above U+10FFFF, a lone latin1 e-acute.
    for (const bytes of [
      [0xed, 0xa0, 0x80],
      [0xc0, 0xaf],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe9, 0x0a],
    ]) {
      assert.equal(roundTrips(Uint8Array.from(bytes)).encoding, 'latin1');
    }
  });
});
