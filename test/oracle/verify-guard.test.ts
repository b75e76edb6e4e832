import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { apacheEnvironment } from '../../src/verify/server-tools.js';
import { apacheVerifyHazards, mycnfVerifyHazards, type GuardedFile } from '../../src/verify/guard.js';
import { loadApache } from '../../src/languages/apache/model.js';
import { loadMycnf } from '../../src/languages/mycnf/model.js';
import { CLI } from '../helpers/cli.js';
import { findTool, requireTool } from '../helpers/tools.js';

function asGuarded(files: readonly { readonly source: { readonly displayPath: string; readonly text: string } }[]): GuardedFile[] {
  return files.map(({ source }) => ({ displayPath: source.displayPath, text: source.text }));
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-guard-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A shared library that leaves `marker` behind when something loads it; undefined without a C compiler. */
function trapLibrary(name: string, marker: string): string | undefined {
  const compiler = findTool('cc') ?? findTool('gcc');
  if (compiler === undefined) return undefined;
  const source = path.join(scratch, `${name}.c`);
  fs.writeFileSync(
    source,
    `#include <stdio.h>\n__attribute__((constructor)) static void trap(void) { FILE *f = fopen("${marker}", "w"); if (f) fclose(f); }\n`,
  );
  const library = path.join(scratch, `${name}.so`);
  execFileSync(compiler, ['-shared', '-fPIC', '-o', library, source]);
  return library;
}

function runVerify(dir: string, args: readonly string[]): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, '--no-probe', '--verify', '--format', 'diff', ...args], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, stderr: run.stderr };
}

/*
 * --verify runs the real servers on the patched configs; a config must not be
 * able to make that run its own code or write where it likes (a repository
 * linted in a hook is someone else's text, and tune-lint often runs as root).
 */
describe('--verify never runs code a config names', () => {
  it('LoadFile of a library outside the system directories: apache2 is not run', (t) => {
    if (requireTool(t, 'apache2') === undefined) return;
    const marker = path.join(scratch, 'loaded-by-apache');
    const library = trapLibrary('apache-trap', marker) ?? path.join(scratch, 'not-compiled.so');
    const dir = path.join(scratch, 'apache');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'httpd.conf'),
      `LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nLoadFile ${library}\nMaxClients 10\n`,
    );
    const run = runVerify(dir, ['httpd.conf']);
    assert.match(
      run.stderr,
      /--verify: apache2 -t on httpd\.conf is not run: the configuration or the patch would make the server run code or open files it names \(LoadFile .*apache-trap\.so|not-compiled\.so/,
    );
    assert.equal(fs.existsSync(marker), false, 'the library was never loaded');
  });

  it('a piped program in a directive mod_security starts while reading: apache2 is not run', (t) => {
    if (requireTool(t, 'apache2') === undefined) return;
    const marker = path.join(scratch, 'piped');
    const dir = path.join(scratch, 'piped-dir');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'httpd.conf'),
      `LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\nLoadModule security2_module /usr/lib/apache2/modules/mod_security2.so\nSecAuditEngine On\nSecAuditLog "|/bin/touch ${marker}"\nMaxClients 10\n`,
    );
    const run = runVerify(dir, ['httpd.conf']);
    assert.match(
      run.stderr,
      /is not run: the configuration or the patch would make the server run code or open files it names \(SecAuditLog/,
    );
    assert.equal(fs.existsSync(marker), false);
  });

  it('plugin-load-add with plugin_dir in the option files: mariadbd is not run, only the reader', (t) => {
    if (requireTool(t, 'my_print_defaults') === undefined || requireTool(t, 'mariadbd') === undefined) return;
    const marker = path.join(scratch, 'loaded-by-mariadbd');
    const library = trapLibrary('mariadb-trap', marker);
    const dir = path.join(scratch, 'mycnf');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'my.cnf'),
      `[mysqld]\nplugin_dir = ${scratch}\nplugin-load-add = ${path.basename(library ?? 'none.so')}\nsort_buffer = 2M\n`,
    );
    const run = runVerify(dir, ['my.cnf']);
    assert.match(run.stderr, /--verify: mariadbd is not run on my\.cnf: it would load libraries the options name \(plugin_dir/);
    assert.equal(fs.existsSync(marker), false);
  });

  it("a package's plugin_load_add of a root-owned library in the system plugin directory is trusted; any other is not", (t) => {
    if (!fs.existsSync('/usr/lib/mysql/plugin/disks.so')) {
      assert.notEqual(process.env.CI, 'true', 'CI installs mariadb-server, which ships disks.so');
      t.skip('mariadb-server (disks.so) is not installed');
      return;
    }
    const hazards = (text: string): string[] => mycnfVerifyHazards([{ displayPath: 'my.cnf', text }]);
    assert.deepEqual(hazards('[server]\nplugin_load_add = disks\n[mariadb]\nplugin-load-add = disks.so;ARCHIVE=ha_archive.so\n'), []);
    assert.match(
      hazards('[mysqld]\nplugin_load_add = disks;no_such_library\n')[0] ?? '',
      /my\.cnf:2\): no_such_library is not a root-owned library/,
    );
    assert.match(
      hazards('[mysqld]\nplugin_load = ../../../tmp/evil\n')[0] ?? '',
      /\.\.\/\.\.\/\.\.\/tmp\/evil is not a root-owned library/,
    );
    assert.equal(
      hazards('[mysqld]\nplugin_load_add = disks\n[client]\nplugin-dir = /srv\n').length,
      2,
      'a plugin_dir anywhere makes every load a hazard',
    );
    assert.equal(hazards('[mysqld]\nplugin_load_a = disks\n').length, 1, 'an abbreviation is not trusted');
  });

  it('the installed Debian configs load only root-owned system modules: nothing in them keeps the servers from running', (t) => {
    if (requireTool(t, 'apache2') === undefined || !fs.existsSync('/etc/mysql/my.cnf')) return;
    const fsView = new ConfigFileSystem({});
    const apache = loadApache('/etc/apache2/apache2.conf', { fs: fsView, httpd: '2.4' });
    const guarded = apacheVerifyHazards(asGuarded(apache.files), {
      env: apacheEnvironment(fs.readFileSync('/etc/apache2/envvars', 'latin1')),
      serverRoot: apache.serverRoot,
    });
    assert.deepEqual(guarded.hazards, []);
    assert.ok(
      guarded.libraries.length > 0 && guarded.libraries.every((library) => library.systemPath.startsWith('/usr/lib/apache2/modules/')),
    );
    assert.deepEqual(
      mycnfVerifyHazards(asGuarded(loadMycnf('/etc/mysql/my.cnf', { fs: fsView, target: { product: 'mariadb', version: '10.11' } }).files)),
      [],
    );
  });
});
