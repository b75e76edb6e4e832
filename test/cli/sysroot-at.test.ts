import fc from 'fast-check';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigFileSystem, FileAccessError } from '../../src/core/file-system.js';
import { UserError } from '../../src/util/user-error.js';
import { removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';

/*
 * --sysroot-at: the sysroot holds one directory of the server's, as a
 * repository of /etc/httpd's files (RHEL) or an etckeeper repository of /etc
 * does. Paths under it are found in the sysroot; everything else does not
 * exist, even where the sysroot happens to have the same relative path.
 */

const scratch = scratchDir('sysroot-at');
after(() => removeScratch(scratch));

function repo(name: string, files: Record<string, string>, links: Record<string, string> = {}): string {
  const dir = path.join(scratch, name);
  writeFiles(dir, files);
  for (const [link, target] of Object.entries(links)) {
    fs.mkdirSync(path.dirname(path.join(dir, link)), { recursive: true });
    fs.symlinkSync(target, path.join(dir, link));
  }
  return dir;
}

describe('ConfigFileSystem with --sysroot-at', () => {
  const dir = repo(
    'unit',
    { 'conf/httpd.conf': 'ServerRoot "/etc/httpd"\n', 'conf.d/a.conf': 'A\n', 'etc/passwd': 'not the server /etc/passwd\n' },
    {
      'in-absolute': '/etc/httpd/conf.d',
      'in-relative': '../httpd/conf.d',
      'out-absolute': '/etc/passwd',
      'out-relative': '../../../../etc/passwd',
      'conf.d/up': '..',
      // usr in the sysroot is /etc/httpd/usr to the server, not /usr: a link through /usr must not find it.
      usr: '/etc/httpd/conf',
      'through-usr': '/usr/httpd.conf',
    },
  );
  const files = new ConfigFileSystem({ sysroot: dir, sysrootAt: '/etc/httpd', cwd: dir });

  it('finds server paths under it in the sysroot, and gives them back as server paths', () => {
    assert.equal(files.locate('/etc/httpd/conf/httpd.conf'), path.join(dir, 'conf', 'httpd.conf'));
    assert.equal(files.locate('conf.d/a.conf', '/etc/httpd'), path.join(dir, 'conf.d', 'a.conf'));
    assert.equal(files.locate('/etc/httpd'), dir);
    assert.equal(files.serverPath(path.join(dir, 'conf', 'httpd.conf')), '/etc/httpd/conf/httpd.conf');
    assert.equal(files.serverPath(dir), '/etc/httpd');
    assert.equal(files.read(files.locate('/etc/httpd/conf.d/a.conf')).text, 'A\n');
  });

  it('has nothing outside it, not even what the sysroot holds at the same relative path', () => {
    const passwd = files.locate('/etc/passwd');
    assert.equal(files.kind(passwd), 'missing');
    assert.equal(files.display(passwd), '/etc/passwd');
    assert.equal(files.serverPath(passwd), '/etc/passwd');
    assert.throws(
      () => files.read(passwd),
      (error: unknown) => error instanceof FileAccessError && error.code === 'missing' && error.message === '/etc/passwd: no such file',
    );
    assert.throws(
      () => files.readDirectory(files.locate('/etc')),
      (error: unknown) => error instanceof FileAccessError && error.code === 'missing',
    );
    assert.deepEqual(files.list(files.locate('/')), []);
    assert.equal(files.kind(files.locate('../passwd', '/etc/httpd')), 'missing');
  });

  it('follows symlinks as the server would: absolute targets are server paths, and `..` above it leaves it', () => {
    assert.equal(files.resolve(path.join(dir, 'in-absolute')), path.join(dir, 'conf.d'));
    assert.equal(files.resolve(path.join(dir, 'in-relative')), path.join(dir, 'conf.d'));
    assert.equal(files.kind(path.join(dir, 'in-relative', 'a.conf')), 'file');
    assert.equal(files.resolve(path.join(dir, 'conf.d', 'up', 'conf')), path.join(dir, 'conf'));
    assert.equal(files.kind(path.join(dir, 'usr', 'httpd.conf')), 'file', '/etc/httpd/usr is a link to /etc/httpd/conf');
    for (const link of ['out-absolute', 'out-relative', 'through-usr']) {
      assert.equal(files.kind(path.join(dir, link)), 'missing', link);
      assert.throws(
        () => files.read(path.join(dir, link)),
        (error: unknown) => error instanceof FileAccessError && error.code === 'missing',
        link,
      );
    }
  });

  it('is an absolute, normalised server path, and needs a sysroot', () => {
    for (const bad of ['etc/httpd', '/etc/httpd/', '/etc/../httpd', '/etc//httpd']) {
      assert.throws(() => new ConfigFileSystem({ sysroot: dir, sysrootAt: bad }), UserError, bad);
    }
    assert.throws(() => new ConfigFileSystem({ sysrootAt: '/etc/httpd' }), /needs --sysroot/);
    assert.equal(new ConfigFileSystem({ sysroot: dir, sysrootAt: '/' }).locate('/conf/httpd.conf'), path.join(dir, 'conf', 'httpd.conf'));
  });
});

describe('--sysroot-at against a whole root holding the same directory (fast-check)', () => {
  /*
   * The same random tree of directories, files and symlinks (relative and
   * absolute targets, loops, `..` past the top) is put at etc/httpd of a
   * whole root R and at the top of a directory D linted as /etc/httpd. For
   * every server path under /etc/httpd: where the whole root resolves it
   * inside R/etc/httpd, D gives the same kind; where it leaves that
   * directory (R/etc, R itself), D has nothing there.
   */
  const NAMES = ['a', 'b', 'conf', 'conf.d'] as const;
  type Entry = { kind: 'dir' } | { kind: 'file' } | { kind: 'link'; target: string };
  const target = fc.oneof(
    fc.array(fc.constantFrom(...NAMES, '..', '.'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
    fc.array(fc.constantFrom(...NAMES, '..'), { minLength: 0, maxLength: 3 }).map((parts) => `/etc/httpd/${parts.join('/')}`),
    fc.constantFrom('/etc', '/', '/etc/passwd', '../../..', '/etc/httpd'),
  );
  const entry: fc.Arbitrary<Entry> = fc.oneof(
    fc.constant<Entry>({ kind: 'dir' }),
    fc.constant<Entry>({ kind: 'file' }),
    target.map((to): Entry => ({ kind: 'link', target: to })),
  );
  const tree = fc.dictionary(
    fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 2 }).map((parts) => parts.join('/')),
    entry,
    { maxKeys: 8 },
  );

  function build(top: string, entries: Record<string, Entry>): void {
    fs.mkdirSync(top, { recursive: true });
    for (const [relative, spec] of Object.entries(entries).sort(([a], [b]) => a.length - b.length)) {
      const at = path.join(top, relative);
      try {
        fs.mkdirSync(path.dirname(at), { recursive: true });
        if (spec.kind === 'dir') fs.mkdirSync(at);
        else if (spec.kind === 'file') fs.writeFileSync(at, 'x\n');
        else fs.symlinkSync(spec.target, at);
      } catch {
        // A name already taken by an earlier entry (or under a file): the first one stands in both trees.
      }
    }
  }

  it('gives the kind the whole root gives, or nothing where the whole root leaves /etc/httpd', () => {
    let run = 0;
    fc.assert(
      fc.property(tree, (entries) => {
        const base = path.join(scratch, `fc-${run++}`);
        const wholeRoot = path.join(base, 'root');
        const flat = path.join(base, 'flat');
        build(path.join(wholeRoot, 'etc', 'httpd'), entries);
        build(flat, entries);
        try {
          const whole = new ConfigFileSystem({ sysroot: wholeRoot, cwd: base });
          const mounted = new ConfigFileSystem({ sysroot: flat, sysrootAt: '/etc/httpd', cwd: base });
          const inside = fs.realpathSync(path.join(wholeRoot, 'etc', 'httpd'));
          const probes = ['', ...Object.keys(entries), ...Object.keys(entries).map((key) => `${key}/conf`), 'conf/../a'];
          for (const relative of probes) {
            const serverPath = path.posix.resolve('/etc/httpd', relative);
            let wholeReal: string;
            try {
              wholeReal = whole.resolve(whole.locate(serverPath));
            } catch (error) {
              // A symlink loop (every loop is inside: nothing outside is a symlink): the mounted view refuses it too.
              assert.ok(error instanceof FileAccessError && error.code === 'loop', String(error));
              assert.throws(
                () => mounted.resolve(mounted.locate(serverPath)),
                (thrown: unknown) => thrown instanceof FileAccessError && thrown.code === 'loop',
              );
              continue;
            }
            const stays = wholeReal === inside || wholeReal.startsWith(`${inside}/`);
            const expected = stays ? whole.kind(whole.locate(serverPath)) : 'missing';
            assert.equal(mounted.kind(mounted.locate(serverPath)), expected, `${serverPath} (whole root: ${wholeReal})`);
            if (stays && expected === 'file') assert.equal(mounted.read(mounted.locate(serverPath)).text, 'x\n');
          }
        } finally {
          fs.rmSync(base, { recursive: true, force: true });
        }
      }),
      { numRuns: 300, seed: 20261201 },
    );
  });
});

describe('tune-lint --sysroot-at', () => {
  const layout = repoPath('fixtures', 'apache', 'rhel');
  const flat = path.join(scratch, 'etc-httpd');
  fs.cpSync(path.join(layout, 'etc', 'httpd'), flat, { recursive: true, verbatimSymlinks: true });
  const host = ['--no-probe', '--host-ram', '1G'];

  it('lints a repository of /etc/httpd as the same files under etc/httpd of a whole root', () => {
    const asRoot = runCli([...host, '--format', 'json', '--sysroot', '.', 'etc/httpd/conf/httpd.conf'], { cwd: layout });
    const asMount = runCli([...host, '--format', 'json', '--sysroot', '.', '--sysroot-at', '/etc/httpd', 'conf/httpd.conf'], { cwd: flat });
    assert.equal(asRoot.status, 1, asRoot.stderr);
    assert.equal(asMount.status, 1, asMount.stderr);
    assert.equal(asMount.stdout, asRoot.stdout.replaceAll('etc/httpd/', ''));
    assert.match(asMount.stdout, /"file": "conf.modules.d\/00-mpm.conf"/);
  });

  it('finds the main config by its server path, or by itself when none is given; one outside is refused', () => {
    const given = runCli([...host, '--format', 'json', '--sysroot', '.', '--sysroot-at', '/etc/httpd', '/etc/httpd/conf/httpd.conf'], {
      cwd: flat,
    });
    const found = runCli([...host, '--format', 'json', '--sysroot', '.', '--sysroot-at', '/etc/httpd'], { cwd: flat });
    assert.equal(given.status, 1, given.stderr);
    assert.equal(found.stdout, given.stdout);
    const outside = runCli([...host, '--sysroot', '.', '--sysroot-at', '/etc/httpd', '/etc/apache2/apache2.conf'], { cwd: flat });
    assert.equal(outside.status, 2);
    assert.equal(
      outside.stderr,
      'tune-lint: /etc/apache2/apache2.conf is outside --sysroot-at /etc/httpd, the part of the server --sysroot . holds\n',
    );
  });

  it('dumps the same effective config', () => {
    const asRoot = runCli(['dump', '--json', '--sysroot', '.', 'etc/httpd/conf/httpd.conf'], { cwd: layout });
    const asMount = runCli(['dump', '--json', '--sysroot', '.', '--sysroot-at', '/etc/httpd', 'conf/httpd.conf'], { cwd: flat });
    assert.equal(asRoot.status, 0, asRoot.stderr);
    assert.equal(asMount.stdout, asRoot.stdout.replaceAll('etc/httpd/', ''));
  });

  it('reports an include outside it as missing, by its server path', () => {
    const dir = repo('outside-include', {
      'conf/httpd.conf': 'ServerRoot "/etc/httpd"\nLoadModule mpm_event_module modules/mod_mpm_event.so\nInclude /etc/extra/site.conf\n',
      'etc/extra/site.conf': 'KeepAlive Off\n',
    });
    const run = runCli(['--no-probe', '--sysroot', '.', '--sysroot-at', '/etc/httpd', 'conf/httpd.conf'], { cwd: dir });
    assert.equal(run.status, 1, run.stderr);
    assert.match(
      run.stdout,
      /Include \/etc\/extra\/site.conf: Could not open configuration file \/etc\/extra\/site.conf: No such file or directory {2}TL0002/,
    );
    assert.doesNotMatch(run.stdout, /AP2006/, 'the file at etc/extra in the sysroot is not the server /etc/extra');
  });

  it('is refused in words when it is not an absolute server path', () => {
    const run = runCli(['--no-probe', '--sysroot', '.', '--sysroot-at', 'etc/httpd', 'conf/httpd.conf'], { cwd: flat });
    assert.equal(run.status, 2);
    assert.equal(
      run.stderr,
      "tune-lint: --sysroot-at etc/httpd: expected an absolute path without '.', '..' or a trailing '/', e.g. /etc/httpd\n",
    );
  });
});
