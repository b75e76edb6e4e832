import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jsonDiagnostics, jsonFiles, openScratch, runTuneLint, writeTree, type ChildRun } from '../fuzz/child.js';

/*
 * A config repository linted with --sysroot cannot make tune-lint read a file
 * outside it, by any route an include can take: absolute paths, `..`,
 * absolute and relative symlinks (to files and to directories), `${VAR}`
 * from Define and from envvars, ServerRoot, <IfFile>, --include-base, and the
 * main file itself as a link. The files outside hold a marker that would
 * show in the output (and a syntax error that would be reported) if they
 * were read. Each route is also run without --sysroot, where the same config
 * does reach the file: the route is real, the sysroot is what stops it.
 */

const MARKER_APACHE = 'OutsideMarkerApache7f3a';
const MARKER_MYCNF = 'outside_marker_mycnf_7f3a';
const MPM = 'LoadModule mpm_event_module modules/mod_mpm_event.so\n';

let scratch: string;
let outside: string;
let root: string;

before(() => {
  scratch = openScratch('sysroot');
  outside = path.join(scratch, 'outside');
  root = path.join(scratch, 'root');
  writeTree(outside, {
    'secret.conf': `ServerAdmin ${MARKER_APACHE}@example.org\n</LeakedSection>\n`,
    'secret.cnf': `[mysqld]\n${MARKER_MYCNF} = 1\n[unclosed\n`,
  });
  fs.mkdirSync(path.join(root, 'etc', 'apache2', 'conf.d'), { recursive: true });
  fs.mkdirSync(path.join(root, 'etc', 'mysql', 'conf.d'), { recursive: true });
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

interface Route {
  readonly name: string;
  /** Files under the sysroot (relative to it); the main file is etc/apache2/apache2.conf or etc/mysql/my.cnf. */
  readonly files: () => Record<string, string>;
  readonly links?: () => Record<string, string>;
  readonly language: 'apache' | 'mycnf';
  /** Extra command-line flags for both runs. */
  readonly flags?: () => string[];
}

const ROUTES: readonly Route[] = [
  {
    name: 'an absolute Include',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}Include ${outside}/secret.conf\n` }),
  },
  {
    name: 'an Include climbing out with ..',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}Include ../../../outside/secret.conf\n` }),
  },
  {
    name: 'a wildcard Include climbing out with ..',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}Include ../../../out*/*.conf\n` }),
  },
  {
    name: 'an absolute symlink to a file',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}Include conf.d/*.conf\n` }),
    links: () => ({ 'etc/apache2/conf.d/abs.conf': `${outside}/secret.conf` }),
  },
  {
    name: 'a relative symlink to a file climbing out',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}Include conf.d/*.conf\n` }),
    links: () => ({ 'etc/apache2/conf.d/rel.conf': '../../../../outside/secret.conf' }),
  },
  {
    name: 'an absolute symlink to a directory',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}Include sites/*.conf\nInclude sites\n` }),
    links: () => ({ 'etc/apache2/sites': outside }),
  },
  {
    name: 'a relative symlink to a directory climbing out',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}Include sites/*.conf\n` }),
    links: () => ({ 'etc/apache2/sites': '../../../outside' }),
  },
  {
    name: 'a ${VAR} from Define',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}Define OUT ${outside}\nInclude \${OUT}/secret.conf\n` }),
  },
  {
    name: 'a ${VAR} from envvars',
    language: 'apache',
    files: () => ({
      'etc/apache2/envvars': `export APACHE_OUT=${outside}\n`,
      'etc/apache2/apache2.conf': `${MPM}Include \${APACHE_OUT}/secret.conf\n`,
    }),
  },
  {
    name: 'a ServerRoot climbing out',
    language: 'apache',
    files: () => ({ 'etc/apache2/apache2.conf': `${MPM}ServerRoot ../../..\nInclude outside/secret.conf\n` }),
  },
  { name: 'an absolute !include', language: 'mycnf', files: () => ({ 'etc/mysql/my.cnf': `[mysqld]\n!include ${outside}/secret.cnf\n` }) },
  {
    name: 'an !include climbing out with .., against --include-base',
    language: 'mycnf',
    files: () => ({ 'etc/mysql/my.cnf': `[mysqld]\n!include ../../../outside/secret.cnf\n` }),
    flags: () => ['--include-base', path.join(root, 'etc', 'mysql')],
  },
  {
    name: 'symlinks to a file in an !includedir, absolute and relative',
    language: 'mycnf',
    files: () => ({ 'etc/mysql/my.cnf': `[mysqld]\n!includedir conf.d\n` }),
    links: () => ({ 'etc/mysql/conf.d/abs.cnf': `${outside}/secret.cnf`, 'etc/mysql/conf.d/rel.cnf': '../../../../outside/secret.cnf' }),
    flags: () => ['--include-base', path.join(root, 'etc', 'mysql')],
  },
  {
    name: 'an !includedir of a symlinked directory',
    language: 'mycnf',
    files: () => ({ 'etc/mysql/my.cnf': `[mysqld]\n!includedir out\n` }),
    links: () => ({ 'etc/mysql/out': outside }),
    flags: () => ['--include-base', path.join(root, 'etc', 'mysql')],
  },
];

/** Lays the route's files into a fresh copy of the sysroot tree; returns the main file (host path). */
function layOut(route: Route, index: number): { tree: string; main: string } {
  const tree = path.join(scratch, `route-${index}`);
  for (const [name, content] of Object.entries(route.files())) writeTree(tree, { [name]: content });
  for (const [name, target] of Object.entries(route.links?.() ?? {})) {
    fs.mkdirSync(path.dirname(path.join(tree, name)), { recursive: true });
    fs.symlinkSync(target, path.join(tree, name));
  }
  return { tree, main: path.join(tree, route.language === 'apache' ? 'etc/apache2/apache2.conf' : 'etc/mysql/my.cnf') };
}

function leaks(run: ChildRun): boolean {
  return [MARKER_APACHE, MARKER_MYCNF, 'LeakedSection'].some((marker) => run.stdout.includes(marker) || run.stderr.includes(marker));
}

/**
 * The routes resolve relative paths against where the tree sits on the host
 * when there is no sysroot; their `..` counts are for a tree two levels
 * below the scratch directory, as `route-N/etc/...` is.
 */
describe('--sysroot: no include route leaves the sysroot', () => {
  for (const [index, route] of ROUTES.entries()) {
    it(`${route.name} (${route.language})`, async () => {
      const { tree, main } = layOut(route, index);
      const flags = route.flags?.().map((flag) => flag.replace(root, tree)) ?? [];
      const serverRoot = route.language === 'apache' ? ['--server-root', path.dirname(main)] : [];

      const without = await runTuneLint(['--format', 'json', ...serverRoot, ...flags, main], { cwd: scratch });
      // Read through a link, the file is shown by the link's path; its content then shows in the diagnostics.
      assert.ok(
        leaks(without) || jsonFiles(without.stdout).some((file) => path.resolve(scratch, file).startsWith(`${outside}${path.sep}`)),
        `without --sysroot the route reaches the outside file: ${without.stdout.slice(0, 400)}${without.stderr}`,
      );

      const inside = await runTuneLint(['--format', 'json', '--sysroot', tree, ...flags, main], { cwd: scratch });
      assert.ok(inside.status === 0 || inside.status === 1, inside.stderr);
      assert.ok(!leaks(inside), `with --sysroot nothing of the outside file shows: ${inside.stdout}`);
      for (const file of jsonFiles(inside.stdout))
        assert.ok(path.resolve(scratch, file).startsWith(`${tree}${path.sep}`), `${file} is inside the sysroot`);

      const dump = await runTuneLint(['dump', '--json', '--sysroot', tree, ...flags, main], { cwd: scratch, subcommand: true });
      assert.equal(dump.status, 0, dump.stderr);
      assert.ok(!leaks(dump), `dump with --sysroot shows nothing of the outside file: ${dump.stdout.slice(0, 400)}`);
    });
  }

  it('<IfFile> does not see a file outside the sysroot', async () => {
    const tree = path.join(scratch, 'iffile');
    writeTree(tree, {
      'etc/apache2/apache2.conf': `${MPM}<IfFile ${outside}/secret.conf>\nServerName ${MARKER_APACHE}.example.org\n</IfFile>\n`,
    });
    const main = path.join(tree, 'etc/apache2/apache2.conf');
    const without = await runTuneLint(['dump', '--json', main], { cwd: scratch, subcommand: true });
    assert.ok(without.stdout.includes(MARKER_APACHE), 'without --sysroot the file exists and the block is read');
    const inside = await runTuneLint(['dump', '--json', '--sysroot', tree, main], { cwd: scratch, subcommand: true });
    assert.equal(inside.status, 0, inside.stderr);
    assert.ok(
      !inside.stdout.includes(`ServerName ${MARKER_APACHE}`) && !/"ServerName"[^}]*7f3a/.test(inside.stdout),
      'with --sysroot the block is not read',
    );
  });

  it('a main file that is a symlink out of the sysroot resolves inside it: one line, exit 2', async () => {
    const tree = path.join(scratch, 'main-link');
    fs.mkdirSync(path.join(tree, 'etc', 'apache2'), { recursive: true });
    fs.mkdirSync(path.join(tree, 'etc', 'mysql'), { recursive: true });
    fs.symlinkSync(`${outside}/secret.conf`, path.join(tree, 'etc/apache2/apache2.conf'));
    fs.symlinkSync('../../../outside/secret.cnf', path.join(tree, 'etc/mysql/my.cnf'));
    for (const main of ['etc/apache2/apache2.conf', 'etc/mysql/my.cnf']) {
      const run = await runTuneLint(['--format', 'json', '--sysroot', tree, path.join(tree, main)], { cwd: scratch });
      assert.equal(run.status, 2, run.stdout);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr, `tune-lint: main-link/${main}: no such file\n`);
    }
  });

  it('a sysroot given through a symlink, with the main file under that link, is the same sysroot', async () => {
    const tree = path.join(scratch, 'linked-root');
    writeTree(tree, { 'etc/apache2/apache2.conf': `${MPM}Include ${outside}/secret.conf\n` });
    fs.symlinkSync('linked-root', path.join(scratch, 'root-link'));
    const run = await runTuneLint(['--format', 'json', '--sysroot', 'root-link', 'root-link/etc/apache2/apache2.conf'], { cwd: scratch });
    assert.equal(run.status, 1, run.stderr);
    assert.ok(!leaks(run));
    assert.deepEqual(jsonFiles(run.stdout), ['root-link/etc/apache2/apache2.conf']);
  });

  it('a symlink loop inside the sysroot ends with a diagnostic', async () => {
    const tree = path.join(scratch, 'loop-root');
    writeTree(tree, { 'etc/apache2/apache2.conf': `${MPM}Include conf.d/*.conf\n` });
    fs.mkdirSync(path.join(tree, 'etc/apache2/conf.d'));
    fs.symlinkSync('/etc/apache2/conf.d/b.conf', path.join(tree, 'etc/apache2/conf.d/a.conf'));
    fs.symlinkSync('../conf.d/a.conf', path.join(tree, 'etc/apache2/conf.d/b.conf'));
    const run = await runTuneLint(['--format', 'json', '--sysroot', tree, path.join(tree, 'etc/apache2/apache2.conf')], {
      cwd: scratch,
      timeoutMs: 60_000,
    });
    assert.equal(run.status, 1, run.stderr);
    assert.deepEqual(
      jsonDiagnostics(run.stdout)
        .filter((d) => d.ruleId === 'TL0002')
        .map((d) => d.message),
      ['Include conf.d/*.conf: Could not open configuration file /etc/apache2/conf.d/a.conf: No such file or directory'],
    );
  });
});

describe('diagnostics quote at most the offending line', () => {
  /**
   * Every line carries its own token; a message may only hold the tokens of
   * the lines its diagnostic covers, counting for Apache the physical lines
   * httpd joins to them with a trailing backslash (one logical line).
   */
  function tokens(text: string, continued: boolean): Map<string, { first: number; last: number }> {
    const out = new Map<string, { first: number; last: number }>();
    const lines = text.split('\n');
    let first = 1;
    lines.forEach((line, index) => {
      if (index > 0 && !(continued && (lines[index - 1] as string).endsWith('\\'))) first = index + 1;
      let last = index + 1;
      while (continued && (lines[last - 1] ?? '').endsWith('\\')) last++;
      for (const match of line.matchAll(/tok(\d+)x/g)) out.set(match[0], { first, last });
    });
    return out;
  }

  function checkMessages(run: ChildRun, texts: Readonly<Record<string, string>>): number {
    let checked = 0;
    for (const diagnostic of (JSON.parse(run.stdout) as { results: { diagnostics: unknown[] }[] }).results.flatMap(
      (result) => result.diagnostics,
    ) as {
      file: string;
      line: number;
      endLine: number;
      message: string;
      ruleId: string;
    }[]) {
      const text = texts[path.basename(diagnostic.file)];
      if (text === undefined) continue;
      const where = tokens(text, diagnostic.file.endsWith('.conf'));
      for (const match of diagnostic.message.matchAll(/tok(\d+)x/g)) {
        const logical = where.get(match[0]);
        checked++;
        assert.ok(
          logical !== undefined && logical.last >= diagnostic.line && logical.first <= diagnostic.endLine,
          `${diagnostic.ruleId} at ${diagnostic.file}:${diagnostic.line}-${diagnostic.endLine} quotes ${match[0]} of lines ${logical?.first}-${logical?.last}: ${diagnostic.message}`,
        );
      }
    }
    return checked;
  }

  it('in Apache files and option files, for every rule that reports', async () => {
    const apache = [
      MPM.trimEnd(),
      'LoadModule php_module modules/libphp.so',
      '<IfModule mpm_prefork_module tok1x>',
      'MaxClients 150 # tok2x',
      'KeepAlive tok3x',
      'KeepAliveTimeout 300 tok4x',
      '# tok5x continued \\',
      'Timeout 600 tok6x',
      '</IfModule tok7x>',
      '<Directory /srv/tok8x>',
      'AllowOverride All tok9x',
      '</Nope tok10x>',
      'Include /nowhere/tok11x.conf',
      'ServerName ${UNDEFINED_tok12x}',
      'MinSpareThreads 5 tok13x',
      'Options +Indexes tok14x # tok15x',
      'MaxRequestWorkers tok16x',
      '<VirtualHost tok17x',
    ].join('\n');
    const mycnf = [
      '[mysqld]',
      'max_connections = tok1x',
      'key_buffer_size = 1.5Gtok2x',
      'tok3x_option = 1',
      'query_cache_size = 64M # tok4x',
      'set-variable = max_connections=tok5x',
      '!include /nowhere/tok6x.cnf',
      '[client tok7x',
      'innodb_buffer_pool_size = 99999Gtok8x',
      'max_conn = tok9x',
    ].join('\n');
    const texts = { 'quotes.conf': `${apache}\n`, 'quotes.cnf': `${mycnf}\n` };
    writeTree(scratch, texts);
    const run = await runTuneLint(['--format', 'json', '--host-ram', '1G', '--per-child', '40M', 'quotes.conf', 'quotes.cnf'], {
      cwd: scratch,
    });
    assert.equal(run.status, 1, run.stderr);
    assert.ok(jsonDiagnostics(run.stdout).length > 10);
    assert.ok(checkMessages(run, texts) > 5, 'some messages quote their line');
  });
});
