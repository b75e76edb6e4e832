import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CLI, CLI_NODE, removeScratch, scratchDir } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';

/*
 * The bin is the CLI bundled into one script and compiled from a V8 code
 * cache (scripts/bundle.mjs, bin/tune-lint.cjs); every other CLI test runs
 * it. Here: the cache is one this Node accepts (a rejected cache still works,
 * only slower, so nothing else would notice), and the bundle says exactly what
 * the module build it was made from says.
 */

const MODULE_CLI = repoPath('dist', 'src', 'cli.js');
const FLEET = repoPath('fixtures', 'cli', 'repo-fleet');

function run(cli: string, args: readonly string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(CLI_NODE, [cli, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', TIMING: '' },
    timeout: 120_000,
  });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the bundled bin', () => {
  it('is what package.json names, and V8 accepts the code cache the build made', () => {
    assert.equal(CLI, repoPath('bin', 'tune-lint.cjs'));
    const loader = createRequire(import.meta.url)(CLI) as { compile(): { cachedDataRejected?: boolean } };
    assert.equal(loader.compile().cachedDataRejected, false);
  });

  const cases: readonly { name: string; args: readonly string[]; status: number }[] = [
    {
      name: 'a lint of two hosts, stylish report and patch',
      args: ['--no-probe', 'hosts/lamp1/apache2.conf', 'hosts/lamp1/my.cnf', 'hosts/web2/httpd.conf'],
      status: 1,
    },
    { name: 'the same as JSON', args: ['--no-probe', '--format', 'json', 'hosts/lamp1/apache2.conf', 'hosts/lamp1/my.cnf'], status: 1 },
    { name: 'SARIF', args: ['--no-probe', '--format', 'sarif', 'hosts/web2/httpd.conf'], status: 0 },
    { name: 'dump', args: ['dump', '--json', 'hosts/lamp1/apache2.conf'], status: 0 },
    { name: 'the rule catalogue', args: ['rules', '--json'], status: 0 },
    { name: 'a bad flag value', args: ['--no-probe', '--host-ram', 'lots', 'hosts/web2/httpd.conf'], status: 2 },
    { name: 'a missing file', args: ['--no-probe', 'hosts/nowhere/httpd.conf'], status: 2 },
  ];
  for (const { name, args, status } of cases) {
    it(`prints what the module build prints: ${name}`, () => {
      const bundled = run(CLI, args, FLEET);
      assert.equal(bundled.status, status, bundled.stderr);
      assert.deepEqual(bundled, run(MODULE_CLI, args, FLEET));
    });
  }

  it('without the bundle (a checkout built with tsc alone): one line naming the file and the build, exit 2', () => {
    const scratch = scratchDir('bundle-missing');
    try {
      fs.mkdirSync(path.join(scratch, 'bin'));
      fs.copyFileSync(CLI, path.join(scratch, 'bin', 'tune-lint.cjs'));
      const missing = run(path.join(scratch, 'bin', 'tune-lint.cjs'), ['--version'], scratch);
      assert.equal(missing.status, 2);
      assert.equal(missing.stdout, '');
      assert.equal(
        missing.stderr,
        `tune-lint: cannot read ${path.join(scratch, 'dist', 'bundle', 'cli', 'cli.js')} (ENOENT); run npm run build\n`,
      );
    } finally {
      removeScratch(scratch);
    }
  });

  it('without a code cache it can use (none, cut short, or larger than the script) compiles the script and prints the same', () => {
    const scratch = scratchDir('bundle-cache');
    try {
      const bundleDir = path.join(scratch, 'dist', 'bundle', 'cli');
      fs.mkdirSync(path.join(scratch, 'bin'));
      fs.mkdirSync(bundleDir, { recursive: true });
      fs.copyFileSync(CLI, path.join(scratch, 'bin', 'tune-lint.cjs'));
      fs.copyFileSync(repoPath('package.json'), path.join(scratch, 'package.json'));
      fs.copyFileSync(repoPath('dist', 'bundle', 'cli', 'cli.js'), path.join(bundleDir, 'cli.js'));
      const expected = run(CLI, ['rules', '--json'], scratch);
      assert.equal(expected.status, 0, expected.stderr);
      const cache = fs.readFileSync(repoPath('dist', 'bundle', 'cli', 'cli.cache'));
      const scriptSize = fs.statSync(path.join(bundleDir, 'cli.js')).size;
      const caches: readonly (Buffer | undefined)[] = [
        undefined,
        cache.subarray(0, cache.length >> 1),
        Buffer.concat([cache, Buffer.alloc(scriptSize)]),
      ];
      for (const written of caches) {
        fs.rmSync(path.join(bundleDir, 'cli.cache'), { force: true });
        if (written !== undefined) fs.writeFileSync(path.join(bundleDir, 'cli.cache'), written);
        assert.deepEqual(
          run(path.join(scratch, 'bin', 'tune-lint.cjs'), ['rules', '--json'], scratch),
          expected,
          `cache of ${written?.length ?? 'no'} bytes`,
        );
      }
    } finally {
      removeScratch(scratch);
    }
  });

  it("loads what it needs on demand without Node's ES module loader, except for ora, an ES module", async (t) => {
    const loader = createRequire(import.meta.url)(CLI) as { importOnDemand(specifier: string): Promise<Record<string, unknown>> };
    assert.equal(typeof (await loader.importOnDemand('node:tty')).isatty, 'function');
    assert.equal(typeof (await loader.importOnDemand('systeminformation')).mem, 'function');
    assert.equal(typeof (await loader.importOnDemand('ora')).default, 'function');
    await assert.rejects(loader.importOnDemand('no-such-package'), { code: 'MODULE_NOT_FOUND' });

    // A run whose stdout is a character device asks node:tty whether it is a terminal.
    const scratch = scratchDir('bundle-esm-loader');
    try {
      const loaded = path.join(scratch, 'loaded.txt');
      const recorder = path.join(scratch, 'record-modules.cjs');
      fs.writeFileSync(
        recorder,
        `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join('\\n')));\n`,
      );
      const devNull = fs.openSync('/dev/null', 'w');
      try {
        const result = spawnSync(CLI_NODE, ['--require', recorder, CLI, '--no-probe', 'hosts/web2/httpd.conf'], {
          cwd: FLEET,
          stdio: ['ignore', devNull, 'pipe'],
          encoding: 'utf8',
        });
        assert.equal(result.status, 0, result.stderr);
      } finally {
        fs.closeSync(devNull);
      }
      const modules = fs.readFileSync(loaded, 'utf8').split('\n');
      assert.ok(modules.includes('NativeModule tty'), 'node:tty was asked');
      // Node 18 loads its ES module loader for every script at start; what counts is that the bin adds nothing to that.
      spawnSync(CLI_NODE, ['--require', recorder, '-e', '0'], { stdio: 'ignore' });
      const byNodeItself = fs.readFileSync(loaded, 'utf8').split('\n').includes('NativeModule internal/modules/esm/loader');
      if (byNodeItself)
        t.diagnostic(`${spawnSync(CLI_NODE, ['-v'], { encoding: 'utf8' }).stdout.trim()} loads its ES module loader at start itself`);
      else assert.ok(!modules.includes('NativeModule internal/modules/esm/loader'), "Node's ES module loader was loaded");
    } finally {
      removeScratch(scratch);
    }
  });

  it('loads systeminformation for a probe, outside the bundle', () => {
    const probe = run(CLI, ['probe', '--yaml'], repoPath());
    assert.equal(probe.status, 0, probe.stderr);
    assert.match(probe.stdout, /^ram: \d+K {2}# probe \(/m);
  });
});
