import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigFileSystem, isNormalAbsolute } from '../../src/core/file-system.js';

/*
 * Resolving a path under --sysroot starts from where an earlier path of the
 * same directory stood before its last part (resolveInRoot). Whatever the
 * order, each path must resolve to what a fresh view resolves it to, errors
 * (a path out of the sysroot, a symlink loop) included.
 */

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-resolve-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const root = path.join(scratch, 'root');
for (const directory of ['a/b/c', 'etc/apache2/mods-available', 'etc/apache2/mods-enabled'])
  fs.mkdirSync(path.join(root, directory), { recursive: true });
for (const file of ['a/f', 'a/b/f', 'a/b/c/f', 'etc/apache2/mods-available/x.load']) fs.writeFileSync(path.join(root, file), '');
const links: readonly (readonly [string, string])[] = [
  ['a/up', '..'],
  ['a/b/abs', '/a'],
  ['a/b/rel', 'c'],
  ['a/b/c/top', '../../..'],
  ['a/chain', 'b/rel'],
  ['a/loop1', 'loop2'],
  ['a/loop2', 'loop1'],
  ['a/out', '../../..'],
  ['etc/apache2/mods-enabled/x.load', '../mods-available/x.load'],
];
for (const [link, target] of links) fs.symlinkSync(target, path.join(root, link));

const PARTS = ['a', 'b', 'c', 'f', 'up', 'abs', 'rel', 'top', 'chain', 'loop1', 'out', '..', 'etc', 'apache2', 'mods-enabled', 'x.load'];

function resolved(view: ConfigFileSystem, hostPath: string): string {
  try {
    return path.relative(root, view.resolve(hostPath));
  } catch (error) {
    return `error: ${(error as Error).message.replace(root, '<root>')}`;
  }
}

describe('resolving under --sysroot', () => {
  it('gives every path, in any order, what a fresh view gives it (fast-check)', () => {
    const paths = fc.array(fc.array(fc.constantFrom(...PARTS), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(paths, (list) => {
        const shared = new ConfigFileSystem({ sysroot: root, cwd: scratch });
        for (const parts of list) {
          const hostPath = path.join(root, ...parts);
          assert.equal(
            resolved(shared, hostPath),
            resolved(new ConfigFileSystem({ sysroot: root, cwd: scratch }), hostPath),
            parts.join('/'),
          );
        }
      }),
      { numRuns: 300, seed: 20261203 },
    );
  });

  it('keeps a path that leaves the sysroot an error after a sibling resolved', () => {
    const view = new ConfigFileSystem({ sysroot: root, cwd: scratch });
    assert.equal(resolved(view, path.join(root, 'a')), 'a');
    assert.match(resolved(view, path.join(root, '..')), /^error: .* is outside the sysroot/);
    assert.equal(resolved(view, path.join(root, 'etc/apache2/mods-enabled/x.load')), 'etc/apache2/mods-available/x.load');
    assert.match(resolved(view, path.join(root, 'a/loop1')), /too many levels of symbolic links/);
    assert.match(resolved(view, path.join(root, 'a/loop2')), /too many levels of symbolic links/);
  });
});

describe('isNormalAbsolute', () => {
  it('says whether path.resolve leaves an absolute path other than / unchanged (fast-check)', () => {
    const part = fc.constantFrom('', '.', '..', '...', '.a', 'a.', 'a', 'b.c', '..a');
    const candidates = fc.array(part, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('/'));
    fc.assert(
      fc.property(candidates, (candidate) => {
        const expected = candidate.startsWith('/') && candidate !== '/' && path.posix.resolve(candidate) === candidate;
        assert.equal(isNormalAbsolute(candidate), expected, candidate);
      }),
      { numRuns: 2000, seed: 20261203 },
    );
  });
});
