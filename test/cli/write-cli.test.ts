import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';
import { requireTool } from '../helpers/tools.js';
import { snapshotTree } from '../helpers/trees.js';

/*
 * `tune-lint --fix` refusing to write, end to end: a read-only file, a
 * directory the user cannot write (as nobody), and a file an admin saves
 * while tune-lint runs. Each time: one line on stderr, exit code 2, and not
 * one file of the tree written, not even the ones that could have been.
 */

const NOBODY = 65534;
const ARGS = ['--no-probe', '--host-ram', '500M', '--per-child', '20M', '--host-cpus', '1', '--sysroot', '.', 'etc/apache2/apache2.conf'];
const MPM = 'etc/apache2/mods-available/mpm_prefork.conf';

let scratch: string;
before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-write-cli-'));
  fs.chmodSync(scratch, 0o755);
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

let counter = 0;
function story(): string {
  const root = path.join(scratch, `story-${++counter}`);
  fs.cpSync(repoPath('fixtures', 'apache', 'story-stock-prefork'), root, { recursive: true, verbatimSymlinks: true });
  return root;
}

function run(
  cwd: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; uid?: number } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const ids = options.uid === undefined ? {} : { uid: options.uid, gid: options.uid };
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd, env: options.env ?? process.env, encoding: 'utf8', ...ids },
      (error, stdout, stderr) => {
        resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
      },
    );
  });
}

/** The tree has more than one file to fix, so "nothing written" covers the files that could have been. */
async function fixedFiles(root: string): Promise<string[]> {
  const diff = await run(root, [...ARGS, '--format', 'diff']);
  return [...diff.stdout.matchAll(/^\+\+\+ b\/(.*)$/gm)].map((match) => match[1] as string);
}

describe('tune-lint --fix refusals', () => {
  it('a read-only file: one line, exit 2, nothing written', async () => {
    const root = story();
    assert.deepEqual(await fixedFiles(root), ['etc/apache2/apache2.conf', MPM]);
    fs.chmodSync(path.join(root, MPM), 0o444);
    const before = snapshotTree(root, { modes: true });
    const result = await run(root, [...ARGS, '--fix']);
    assert.equal(result.status, 2);
    assert.equal(result.stderr, 'tune-lint: etc/apache2/mods-enabled/mpm_prefork.conf: read-only (mode 0444); nothing written\n');
    assert.equal(result.stdout, '');
    assert.deepEqual(snapshotTree(root, { modes: true }), before);
  });

  it('a directory the user cannot write, run as nobody: one line, exit 2, nothing written', async (t) => {
    if (process.geteuid?.() !== 0) {
      t.skip('needs root to run tune-lint as nobody');
      return;
    }
    const reachable = spawnSync('/bin/sh', ['-c', 'test -r "$0" && test -x "$1"', CLI, scratch], { uid: NOBODY, gid: NOBODY });
    if (reachable.status !== 0) {
      t.skip(`${CLI} or ${scratch} is not reachable by uid ${NOBODY}`);
      return;
    }
    const root = story();
    // Everything belongs to nobody except mods-available, root's and not writable by others.
    spawnSync('chown', ['-R', '-h', `${NOBODY}:${NOBODY}`, root]);
    fs.chownSync(path.join(root, 'etc/apache2/mods-available'), 0, 0);
    fs.chmodSync(path.join(root, 'etc/apache2/mods-available'), 0o755);
    const before = snapshotTree(root, { modes: true });
    const result = await run(root, [...ARGS, '--fix'], { uid: NOBODY });
    assert.equal(result.status, 2, result.stderr);
    assert.equal(
      result.stderr,
      `tune-lint: etc/apache2/mods-enabled/mpm_prefork.conf: its directory ${fs.realpathSync(path.join(root, 'etc/apache2/mods-available'))} is not writable (EACCES), and the file is replaced by renaming a new file over it; nothing written\n`,
    );
    assert.deepEqual(snapshotTree(root, { modes: true }), before, 'apache2.conf, which nobody could write, is not written either');
  });

  it('a file saved by someone else while tune-lint runs: one line, exit 2, the other save kept', async (t) => {
    const bwrap = requireTool(t, 'bwrap');
    if (requireTool(t, 'apache2') === undefined || bwrap === undefined || requireTool(t, 'unshare') === undefined) return;
    if (process.geteuid?.() !== 0) {
      t.skip('needs root for the private mount namespace that puts the admin in front of bwrap');
      return;
    }
    const root = story();
    const target = path.join(root, MPM);
    // The sandbox is taken from the system directories, /usr/local/sbin first; in a private mount namespace a
    // "bwrap" there, like an admin at the worst moment, saves the file --verify is about to let tune-lint write.
    const sbin = path.join(scratch, `sbin-${counter}`);
    fs.mkdirSync(sbin);
    fs.writeFileSync(
      path.join(sbin, 'bwrap'),
      `#!/bin/sh\necho '# saved by the admin' >> '${fs.realpathSync(target)}'\nexec '${bwrap}' "$@"\n`,
      { mode: 0o755 },
    );
    // The sandbox's tools run as nobody when tune-lint is root: the admin's save must be allowed to them.
    fs.chownSync(fs.realpathSync(target), NOBODY, NOBODY);
    const mountThenRun = 'mount --bind "$0" /usr/local/sbin && exec "$@"';
    const result = spawnSync(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        '--',
        '/bin/sh',
        '-c',
        mountThenRun,
        sbin,
        process.execPath,
        CLI,
        ...ARGS,
        '--fix',
        '--verify',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(result.status, 2, result.stderr);
    assert.equal(
      result.stderr,
      'tune-lint: etc/apache2/mods-enabled/mpm_prefork.conf: changed on disk since tune-lint read it; nothing written, run again\n',
    );
    assert.ok(fs.readFileSync(target, 'utf8').endsWith('# saved by the admin\n'));
    assert.match(
      fs.readFileSync(path.join(root, 'etc/apache2/apache2.conf'), 'utf8'),
      /^Timeout 300$/m,
      'apache2.conf is not written either',
    );
  });
});
