import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { loadApache } from '../../src/languages/apache/model.js';
import { loadMycnf } from '../../src/languages/mycnf/model.js';
import {
  cannotRunAsNobody,
  jsonDiagnostics,
  jsonFiles,
  NOBODY,
  openScratch,
  runTuneLint,
  writeTree,
  type ChildRun,
} from '../fuzz/child.js';
import { requireTool } from '../helpers/tools.js';

/*
 * Files that are not what a config file should be: symlink loops, devices,
 * FIFOs, directories, binary garbage, files the user may not read, files that
 * vanish between the directory listing and the read. Each has one defined
 * outcome, for both readers: a diagnostic at the including line, or one line
 * on stderr and exit 2 for a file named on the command line. Never a hang,
 * never a stack trace.
 */

const MPM = 'LoadModule mpm_event_module modules/mod_mpm_event.so\n';

let scratch: string;
before(() => {
  scratch = openScratch('hostile-files');
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function found(run: ChildRun, ruleId: string): string[] {
  return jsonDiagnostics(run.stdout)
    .filter((d) => d.ruleId === ruleId)
    .map((d) => `${d.file}:${d.line} ${d.severity} ${d.message}`);
}

async function lintJson(args: readonly string[], options: { uid?: number; gid?: number } = {}): Promise<ChildRun> {
  return runTuneLint(['--format', 'json', ...args], { cwd: scratch, ...options, timeoutMs: 60_000 });
}

function assertOneLine(run: ChildRun, line: string): void {
  assert.equal(run.status, 2, run.stdout);
  assert.equal(run.stdout, '');
  assert.equal(run.stderr, `tune-lint: ${line}\n`);
}

describe('hostile files: symlink loops', () => {
  before(() => {
    fs.mkdirSync(path.join(scratch, 'loops', 'conf.d'), { recursive: true });
    fs.symlinkSync('self.conf', path.join(scratch, 'loops', 'self.conf'));
    fs.symlinkSync('self.cnf', path.join(scratch, 'loops', 'self.cnf'));
    fs.symlinkSync('b.conf', path.join(scratch, 'loops', 'conf.d', 'a.conf'));
    fs.symlinkSync('a.conf', path.join(scratch, 'loops', 'conf.d', 'b.conf'));
    fs.symlinkSync('a.cnf', path.join(scratch, 'loops', 'conf.d', 'a.cnf'));
    // Two links back to the directory itself: httpd 2.4 walks 2^40 paths on an IncludeOptional of it.
    fs.mkdirSync(path.join(scratch, 'loops', 'twice'));
    fs.symlinkSync('.', path.join(scratch, 'loops', 'twice', 'x'));
    fs.symlinkSync('.', path.join(scratch, 'loops', 'twice', 'y'));
    writeTree(scratch, { 'loops/twice/site.conf': 'KeepAlive On\n' });
  });

  it('a main file that is a symlink loop is one line and exit 2, for both readers', async () => {
    assertOneLine(await lintJson(['loops/self.conf']), 'loops/self.conf: too many levels of symbolic links');
    assertOneLine(await lintJson(['loops/self.cnf']), 'loops/self.cnf: too many levels of symbolic links');
  });

  it("an Include of a looping symlink is httpd's error; IncludeOptional skips it, as httpd does", async () => {
    const dir = path.join(scratch, 'loops', 'conf.d');
    writeTree(scratch, {
      'loops/include.conf': `${MPM}Include ${dir}/*.conf\n`,
      'loops/optional.conf': `${MPM}IncludeOptional ${dir}/*.conf\n`,
    });
    const strict = await lintJson(['loops/include.conf']);
    assert.equal(strict.status, 1, strict.stderr);
    assert.deepEqual(found(strict, 'TL0002'), [
      `loops/include.conf:2 error Include ${dir}/*.conf: Could not open configuration file ${dir}/a.conf: No such file or directory`,
    ]);
    const optional = await lintJson(['loops/optional.conf']);
    assert.equal(optional.status, 0, optional.stderr);
    assert.deepEqual(jsonFiles(optional.stdout), ['loops/optional.conf']);
  });

  it('a directory that contains itself twice ends the include with a TL0002 naming the loop', async () => {
    const dir = path.join(scratch, 'loops', 'twice');
    writeTree(scratch, { 'loops/twice.conf': `${MPM}IncludeOptional ${dir}\n` });
    const run = await lintJson(['loops/twice.conf']);
    assert.equal(run.signal, null, 'ended by itself');
    assert.deepEqual(found(run, 'TL0002'), [
      `loops/twice.conf:2 error IncludeOptional ${dir}: Directory ${dir}/x is ${dir} again through a symlink; httpd would follow the loop until the path is too long to open, and with two such links practically forever`,
    ]);
  });

  it('an !include of a looping symlink is a warning: the server cannot open it either', async () => {
    const target = path.join(scratch, 'loops', 'conf.d', 'a.cnf');
    writeTree(scratch, { 'loops/my.cnf': `[mysqld]\n!include ${target}\n!includedir ${path.dirname(target)}\nmax_connections = 10\n` });
    const run = await lintJson(['loops/my.cnf']);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(found(run, 'TL0002'), [
      `loops/my.cnf:2 warn !include ${target}: loops/conf.d/a.cnf: too many levels of symbolic links; the server cannot open it either`,
      `loops/my.cnf:3 warn !includedir ${path.dirname(target)}: loops/conf.d/a.cnf: too many levels of symbolic links; the server cannot open it either`,
    ]);
  });
});

describe('hostile files: devices and FIFOs', () => {
  let fifo: string;
  before(() => {
    fifo = path.join(scratch, 'pipe');
    const made = spawnSync('mkfifo', [fifo]);
    assert.equal(made.status, 0, 'mkfifo');
  });

  it("an Include of /dev/zero or of a FIFO is httpd's refusal, without blocking", async () => {
    writeTree(scratch, { 'devices.conf': `${MPM}Include /dev/zero\nInclude ${fifo}\nKeepAlive On\n` });
    const run = await lintJson(['devices.conf']);
    assert.equal(run.status, 1, run.stderr);
    assert.deepEqual(found(run, 'TL0002'), [
      'devices.conf:2 error Include /dev/zero: Access to file /dev/zero denied by server: not a regular file',
      `devices.conf:3 error Include ${fifo}: Access to file ${fifo} denied by server: not a regular file`,
    ]);
  });

  it('an !include of /dev/zero or of a FIFO is not read, with a warning', async () => {
    writeTree(scratch, { 'devices.cnf': `[mysqld]\n!include /dev/zero\n!include ${fifo}\nmax_connections = 10\n` });
    const run = await lintJson(['devices.cnf']);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(found(run, 'TL0002'), [
      'devices.cnf:2 warn !include /dev/zero: /dev/zero is not a regular file; tune-lint does not read it',
      'devices.cnf:3 warn !include ' + fifo + ': pipe is not a regular file; tune-lint does not read it',
    ]);
  });

  it('/dev/zero or a FIFO named as a main file, a profile, facts or the config is one line and exit 2', async () => {
    writeTree(scratch, { 'plain.conf': MPM });
    for (const [args, line] of [
      [['/dev/zero'], '/dev/zero is not a regular file'],
      [['--lang', 'mycnf', 'pipe'], 'pipe is not a regular file'],
      [['--profile', 'pipe', 'plain.conf'], '--profile pipe is not a regular file'],
      [['--facts', '/dev/zero', 'plain.conf'], '--facts /dev/zero is not a regular file'],
      [['--config', 'pipe', 'plain.conf'], 'pipe is not a regular file'],
      [['--config', '/dev/zero', 'plain.conf'], '/dev/zero is not a regular file'],
    ] as const) {
      assertOneLine(await lintJson(args), line);
    }
  });

  it("a repository's .tune-lint.yaml that links to /dev/zero or is a FIFO cannot hang the hook", async () => {
    for (const make of [(file: string) => fs.symlinkSync('/dev/zero', file), (file: string) => spawnSync('mkfifo', [file])]) {
      const repo = path.join(scratch, `repo-${fs.readdirSync(scratch).length}`);
      writeTree(repo, { 'apache2.conf': MPM });
      make(path.join(repo, '.tune-lint.yaml'));
      const run = await runTuneLint(['apache2.conf'], { cwd: repo, timeoutMs: 60_000 });
      assert.equal(run.signal, null, 'ended by itself');
      assert.equal(run.status, 2);
      assert.equal(run.stderr, 'tune-lint: .tune-lint.yaml is not a regular file\n');
    }
  });
});

describe('hostile files: the config file', () => {
  it('a .tune-lint.yaml, profile or facts file nested 100,000 deep, or an alias bomb, is one line and exit 2', async () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 10; level++)
      lines.push(`a${level}: &a${level} [${Array.from({ length: 10 }, () => `*a${level - 1}`).join(', ')}]`);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    writeTree(scratch, {
      'plain.conf': MPM,
      'deep.yaml': `rules: ${deep}\n`,
      'bomb.yaml': `${lines.join('\n')}\nrules: *a9\n`,
      'deep.json': `${deep}\n`,
    });
    for (const [flag, file, line] of [
      ['--config', 'deep.yaml', /^tune-lint: deep\.yaml:1:\d+: Maximum call stack size exceeded\n$/],
      [
        '--config',
        'bomb.yaml',
        /^tune-lint: bomb\.yaml:1:1: unknown key "a0"; expected extends, target, host, budget, env, rules, overrides\n$/,
      ],
      ['--profile', 'deep.yaml', /^tune-lint: deep\.yaml:1:\d+: Maximum call stack size exceeded\n$/],
      ['--facts', 'deep.json', /^tune-lint: deep\.json: not an Ansible facts file; expected \{"ansible_facts": \{\.\.\.\}\}/],
    ] as const) {
      const run = await lintJson([flag, file, 'plain.conf']);
      assert.equal(run.status, 2);
      assert.match(run.stderr, line);
    }
  });
});

describe('hostile files: directories and binary files', () => {
  it('a directory named as a my.cnf, a profile or the config is one line and exit 2; an !include of one is a warning', async () => {
    fs.mkdirSync(path.join(scratch, 'a-dir.cnf'));
    assertOneLine(await lintJson(['a-dir.cnf']), 'a-dir.cnf is a directory, not a file');
    assertOneLine(await lintJson(['--profile', 'a-dir.cnf', 'plain.conf']), '--profile a-dir.cnf is a directory, not a file');
    assertOneLine(await lintJson(['--config', 'a-dir.cnf', 'plain.conf']), 'a-dir.cnf is a directory, not a file');
    writeTree(scratch, { 'includes-dir.cnf': `[mysqld]\n!include ${path.join(scratch, 'a-dir.cnf')}\n` });
    const run = await lintJson(['includes-dir.cnf']);
    assert.deepEqual(found(run, 'TL0002'), [
      `includes-dir.cnf:2 warn !include ${path.join(scratch, 'a-dir.cnf')}: is a directory; the server reads nothing from it`,
    ]);
  });

  it('an executable and 64 KiB of random bytes, read as either language, are linted without a crash', async () => {
    const executable = ['/bin/ls', '/usr/bin/ls', '/bin/sh'].find((candidate) => fs.existsSync(candidate));
    const random = Buffer.alloc(64 * 1024);
    let state = 0x2545f491;
    for (let index = 0; index < random.length; index++) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      random[index] = state & 0xff;
    }
    writeTree(scratch, { 'random.bin': random });
    for (const file of [...(executable === undefined ? [] : [executable]), path.join(scratch, 'random.bin')]) {
      for (const language of ['apache', 'mycnf']) {
        const run = await lintJson(['--lang', language, file]);
        assert.ok(run.status === 0 || run.status === 1, `${language} ${file}: exit ${run.status}: ${run.stderr}`);
        assert.equal(run.stderr, '');
        const diagnostics = jsonDiagnostics(run.stdout);
        for (const diagnostic of diagnostics)
          assert.doesNotMatch(diagnostic.message, /[\x00-\x08\x0a-\x1f\x7f-\x9f]/, 'messages are printable');
      }
    }
  });
});

describe('hostile files: permission denied (as nobody)', () => {
  it("unreadable files and directories give the servers' own outcome, for both readers", async (t) => {
    const why = cannotRunAsNobody();
    if (why !== undefined) {
      t.skip(why);
      return;
    }
    const dir = path.join(scratch, 'locked');
    writeTree(dir, {
      'secret.conf': 'KeepAlive On\n',
      'secret.cnf': '[mysqld]\nmax_connections = 5\n',
      'closed/a.conf': 'KeepAlive On\n',
      'closed/a.cnf': '[mysqld]\nmax_connections = 5\n',
      'main.conf': `${MPM}Include ${dir}/secret.conf\nInclude ${dir}/closed\nIncludeOptional ${dir}/closed/*.conf\n`,
      'main.cnf': `[mysqld]\n!include ${dir}/secret.cnf\nmax_connections = 10\n`,
      'dir.cnf': `[mysqld]\n!includedir ${dir}/closed\nmax_connections = 10\n`,
    });
    for (const file of ['secret.conf', 'secret.cnf']) fs.chmodSync(path.join(dir, file), 0o600);
    fs.chmodSync(path.join(dir, 'closed'), 0o700);
    const nobody = { uid: NOBODY, gid: NOBODY };

    const apache = await lintJson(['locked/main.conf'], nobody);
    assert.equal(apache.status, 1, apache.stderr);
    assert.deepEqual(found(apache, 'TL0002'), [
      `locked/main.conf:2 error Include ${dir}/secret.conf: locked/secret.conf: cannot read (EACCES)`,
      `locked/main.conf:3 error Include ${dir}/closed: Could not open directory ${dir}/closed: Permission denied`,
      `locked/main.conf:4 error IncludeOptional ${dir}/closed/*.conf: Could not open directory ${dir}/closed: Permission denied`,
    ]);
    const mycnf = await lintJson(['locked/main.cnf'], nobody);
    assert.equal(mycnf.status, 0, mycnf.stderr);
    assert.deepEqual(found(mycnf, 'TL0002'), [
      `locked/main.cnf:2 warn !include ${dir}/secret.cnf: locked/secret.cnf: cannot read (EACCES); the server skips a file it cannot open without a word`,
    ]);
    const includedir = await lintJson(['locked/dir.cnf'], nobody);
    assert.equal(includedir.status, 1, includedir.stderr);
    assert.deepEqual(found(includedir, 'TL0002'), [
      `locked/dir.cnf:2 error !includedir ${dir}/closed: cannot be read; the server refuses to start: Can't read dir of '${dir}/closed' (Errcode: 13 "Permission denied")`,
    ]);
    assertOneLine(await lintJson(['locked/secret.cnf'], nobody), 'locked/secret.cnf: cannot read (EACCES)');
  });

  it('the servers agree: httpd and my_print_defaults refuse an unreadable included directory (as nobody)', (t) => {
    const why = cannotRunAsNobody();
    if (why !== undefined) {
      t.skip(why);
      return;
    }
    const dir = path.join(scratch, 'locked');
    const apache2 = requireTool(t, 'apache2');
    const printDefaults = apache2 === undefined ? undefined : requireTool(t, 'my_print_defaults');
    if (apache2 === undefined || printDefaults === undefined) return;
    writeTree(dir, { 'only-dir.conf': `Include ${dir}/closed\n` });
    const httpd = spawnSync(apache2, ['-t', '-f', path.join(dir, 'only-dir.conf')], { uid: NOBODY, gid: NOBODY, encoding: 'utf8' });
    assert.match(httpd.stderr, new RegExp(`Could not open directory ${dir}/closed: Permission denied`));
    const mysql = spawnSync(printDefaults, [`--defaults-file=${path.join(dir, 'dir.cnf')}`, 'mysqld'], {
      uid: NOBODY,
      gid: NOBODY,
      encoding: 'utf8',
    });
    assert.notEqual(mysql.status, 0);
    assert.match(mysql.stderr, new RegExp(`Can't read dir of '${dir}/closed' \\(Errcode: 13 "Permission denied"\\)`));
  });
});

describe('hostile files: a file gone between the listing and the read', () => {
  it("a dangling symlink in an included directory (deterministic): httpd's error, and the server's silence for my.cnf", async (t) => {
    const dir = path.join(scratch, 'gone');
    writeTree(dir, { 'conf.d/a.conf': 'KeepAlive On\n', 'cnf.d/a.cnf': '[mysqld]\nmax_connections = 5\n' });
    fs.symlinkSync('deleted.conf', path.join(dir, 'conf.d', 'b.conf'));
    fs.symlinkSync('deleted.cnf', path.join(dir, 'cnf.d', 'b.cnf'));
    writeTree(dir, { 'main.conf': `${MPM}Include ${dir}/conf.d/\n`, 'my.cnf': `[mysqld]\n!includedir ${dir}/cnf.d\n` });
    const apache = await lintJson(['gone/main.conf']);
    assert.deepEqual(found(apache, 'TL0002'), [
      `gone/main.conf:2 error Include ${dir}/conf.d/: Could not open configuration file ${dir}/conf.d/b.conf: No such file or directory`,
    ]);
    const mycnf = await lintJson(['gone/my.cnf']);
    assert.deepEqual(found(mycnf, 'TL0002'), [
      `gone/my.cnf:2 warn !includedir ${dir}/cnf.d: gone/cnf.d/b.cnf no such file; the server skips a missing file without a word`,
    ]);
    assert.deepEqual(jsonFiles(mycnf.stdout), ['gone/my.cnf', 'gone/cnf.d/a.cnf']);
    const apache2 = requireTool(t, 'apache2');
    if (apache2 === undefined) return;
    writeTree(dir, { 'oracle.conf': `Include ${dir}/conf.d/\n` });
    const httpd = spawnSync(apache2, ['-t', '-f', path.join(dir, 'oracle.conf')], { encoding: 'utf8' });
    assert.match(httpd.stderr, new RegExp(`Could not open configuration file ${dir}/conf.d/b.conf: No such file or directory`));
  });

  it('files deleted right after the directory listing (a hook in the file system) are reported, never thrown', () => {
    const dir = path.join(scratch, 'vanishing');
    const files = {
      'conf.d/a.conf': 'KeepAlive On\n',
      'conf.d/b.conf': 'Timeout 30\n',
      'cnf.d/a.cnf': '[mysqld]\nmax_connections = 5\n',
      'cnf.d/b.cnf': '[mysqld]\nmax_connections = 6\n',
    };
    writeTree(dir, { ...files, 'main.conf': `${MPM}Include ${dir}/conf.d/*.conf\n`, 'my.cnf': `[mysqld]\n!includedir ${dir}/cnf.d\n` });
    /** Lists a directory, then deletes what it listed: every read after the listing finds nothing. */
    class VanishingFiles extends ConfigFileSystem {
      override readDirectory(hostPath: string): string[] {
        const names = super.readDirectory(hostPath);
        for (const name of names) fs.rmSync(path.join(hostPath, name), { force: true });
        return names;
      }
    }
    const apache = loadApache(path.join(dir, 'main.conf'), { fs: new VanishingFiles({ cwd: scratch }), httpd: '2.4' });
    // httpd stops at the first file it cannot open; whether that is the stat or the read depends on what the listing said.
    assert.deepEqual(
      apache.files.map((entry) => entry.source.displayPath),
      ['vanishing/main.conf'],
    );
    assert.ok(apache.problems.length > 0);
    for (const problem of apache.problems) {
      assert.equal(problem.ruleId, 'TL0002');
      assert.match(problem.message, new RegExp(`^Include ${dir}/conf\\.d/\\*\\.conf: .*conf\\.d/[ab]\\.conf:? [Nn]o such file`));
    }
    writeTree(dir, files);
    const mycnf = loadMycnf(path.join(dir, 'my.cnf'), {
      fs: new VanishingFiles({ cwd: scratch }),
      target: { product: 'mariadb', version: '10.11' },
    });
    assert.deepEqual(
      mycnf.problems.map((problem) => `${problem.ruleId} ${problem.severity} ${problem.message}`),
      ['a.cnf', 'b.cnf'].map(
        (name) =>
          `TL0002 warn !includedir ${dir}/cnf.d: vanishing/cnf.d/${name} no such file; the server skips a missing file without a word`,
      ),
    );
  });
});
