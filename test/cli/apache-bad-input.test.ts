import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI } from '../helpers/cli.js';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tune-lint-bad-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const file = path.join(scratch, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

function run(
  args: readonly string[],
  options: { uid?: number; gid?: number } = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, '--no-probe', '--no-color', '--format', 'json', ...args], {
    cwd: scratch,
    encoding: 'utf8',
    timeout: 60_000,
    ...options,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function diagnostics(stdout: string): { ruleId: string; severity: string; message: string; file: string; line: number }[] {
  const report = JSON.parse(stdout) as {
    results: { diagnostics: { ruleId: string; severity: string; message: string; file: string; line: number }[] }[];
  };
  return report.results.flatMap((result) => result.diagnostics);
}

const MPM = 'LoadModule mpm_event_module modules/mod_mpm_event.so\n';

/*
 * Broken input gets a diagnostic with file:line, or one clear line on stderr
 * and exit code 2; never a stack trace, never a hang.
 */
describe('Apache bad input', () => {
  it('an unclosed section is TL0001 at its line, exit 1', () => {
    const file = write('unclosed.conf', `${MPM}<VirtualHost *:80>\n  ServerName a\n`);
    const result = run([file]);
    assert.equal(result.status, 1, result.stderr);
    assert.deepEqual(
      diagnostics(result.stdout)
        .filter((d) => d.ruleId === 'TL0001')
        .map((d) => [d.line, d.message]),
      [[2, '<VirtualHost> was not closed']],
    );
  });

  it("a stray close tag is TL0001 with httpd's wording", () => {
    const file = write('stray.conf', `${MPM}</Directory>\n`);
    const found = diagnostics(run([file]).stdout).filter((d) => d.ruleId === 'TL0001');
    assert.deepEqual(
      found.map((d) => [d.line, d.message]),
      [[2, '</Directory> without matching <Directory> section']],
    );
  });

  it('an include loop is TL0006 naming the cycle, and ends', () => {
    write('loop/a.conf', `${MPM}Include b.conf\n`);
    write('loop/b.conf', 'Include a.conf\n');
    const result = run(['--server-root', path.join(scratch, 'loop'), path.join(scratch, 'loop', 'a.conf')]);
    assert.equal(result.status, 1);
    const loop = diagnostics(result.stdout).find((d) => d.ruleId === 'TL0006');
    assert.ok(loop !== undefined && /include cycle .*a\.conf -> .*b\.conf -> .*a\.conf/.test(loop.message), JSON.stringify(loop));
  });

  it("a missing include is TL0002 with httpd's message", () => {
    const file = write('missing.conf', `${MPM}Include ${path.join(scratch, 'nowhere.conf')}\n`);
    const found = diagnostics(run([file]).stdout).find((d) => d.ruleId === 'TL0002');
    assert.match(found?.message ?? '', /Could not open configuration file .*nowhere\.conf: No such file or directory/);
    assert.equal(found?.line, 2);
  });

  it('a main file that does not exist is one line on stderr, exit 2', () => {
    const result = run([path.join(scratch, 'absent.conf')]);
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^tune-lint: .*absent\.conf: no such file\n$/);
  });

  it('a directory given as a file is one line on stderr, exit 2', () => {
    fs.mkdirSync(path.join(scratch, 'a-dir.conf'), { recursive: true });
    const result = run([path.join(scratch, 'a-dir.conf')]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^tune-lint: .*a-dir\.conf is a directory, not a file\n$/);
  });

  it('a FIFO given as a file is refused without blocking', () => {
    const fifo = path.join(scratch, 'pipe.conf');
    spawnSync('mkfifo', [fifo]);
    const result = run([fifo]);
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^tune-lint: .*pipe\.conf is not a regular file\n$/);
  });

  it('an unreadable file is one line on stderr, exit 2 (run as nobody)', (t) => {
    const file = write('secret.conf', MPM);
    fs.chmodSync(file, 0o000);
    const probe = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(CLI)})`], { uid: 65534, gid: 65534 });
    if (probe.status !== 0 || process.getuid?.() !== 0) {
      t.skip('needs root and a checkout readable by uid 65534 to run the CLI as nobody');
      return;
    }
    fs.chmodSync(scratch, 0o755);
    const result = run([file], { uid: 65534, gid: 65534 });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /^tune-lint: .*secret\.conf: cannot read \(EACCES\)\n$/);
  });

  it('a 20 MB file is read and linted (linearly), with a clear limit above --max-file-size', () => {
    const line = 'Header set X-Filler "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"\n';
    const headers = 'LoadModule headers_module modules/mod_headers.so\n';
    const file = write('big.conf', `${MPM}${headers}${line.repeat(Math.ceil((20 * 1024 * 1024) / line.length))}<Directory /x>\n`);
    const result = run([file]);
    assert.equal(result.status, 1, result.stderr);
    assert.ok(diagnostics(result.stdout).some((d) => d.ruleId === 'TL0001' && d.message === '<Directory> was not closed'));
    const limited = run(['--max-file-size', '1M', file]);
    assert.equal(limited.status, 2);
    assert.match(limited.stderr, /^tune-lint: .*big\.conf is \d+ bytes, over the limit of 1048576 bytes \(--max-file-size\)\n$/);
  });

  it('a quarter of a million findings in one file are reported, not an internal error', () => {
    // Header without mod_headers: one AP1015 error per line. The engine and the stylish formatter spread a file's findings into one call's arguments.
    const file = write('many.conf', `${MPM}${'Header set X-Many 1\n'.repeat(250_000)}`);
    for (const format of ['json', 'stylish']) {
      const result = spawnSync(process.execPath, [CLI, '--no-probe', '--no-color', '--format', format, file], {
        cwd: scratch,
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(result.status, 1, `${format}: ${result.stderr}`);
      assert.equal(result.stderr, '');
    }
  });

  it('NUL bytes and non-UTF-8 bytes are read, and the rest of a line after NUL is ignored as httpd does', () => {
    const file = write(
      'binary.conf',
      Buffer.concat([Buffer.from(MPM), Buffer.from('Timeout 30\0 this is dropped\nServerAdmin caf\xe9@example.org\n', 'latin1')]),
    );
    const dump = spawnSync(process.execPath, [CLI, 'dump', '--json', file], { cwd: scratch, encoding: 'utf8' });
    assert.equal(dump.status, 0, dump.stderr);
    const directives = (JSON.parse(dump.stdout) as { directives: { name: string; args: string }[] }).directives;
    assert.deepEqual(
      directives.filter((d) => d.name !== 'LoadModule').map((d) => [d.name, d.args]),
      [
        ['Timeout', '30'],
        ['ServerAdmin', 'caf\xe9@example.org'],
      ],
    );
  });

  it('no failure prints a stack trace', () => {
    for (const args of [
      [path.join(scratch, 'absent.conf')],
      ['--target', 'httpd=3.0', path.join(scratch, 'stray.conf')],
      ['--rule', 'NOPE=off', path.join(scratch, 'stray.conf')],
    ]) {
      const result = run(args);
      assert.equal(result.status, 2, args.join(' '));
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    }
  });
});
