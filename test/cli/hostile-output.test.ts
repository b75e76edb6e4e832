import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openScratch, runTuneLint, writeTree } from '../fuzz/child.js';
import { CLI } from '../helpers/cli.js';

/*
 * What tune-lint prints about an untrusted repository is safe for a
 * terminal: escape sequences, CR and newlines from a config line or a file
 * name are shown escaped, never sent raw; errors stay one line; a reader
 * that stops reading (| head) gets no stack trace.
 */

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const MPM = 'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\n';

let scratch: string;
before(() => {
  scratch = openScratch('hostile-output');
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('hostile output', () => {
  it('escape sequences and CR in config lines and in file names never reach the terminal raw (stylish, diff hint, stderr)', async () => {
    const name = 'evil\x1b]0;title\x07\x1b[2J\rname.conf';
    writeTree(scratch, {
      [name]: `${MPM}MaxClients 150\x1b[2J\x1b]52;c;cGF5bG9hZA==\x07\r  all good\n<Directory /x\x1b[31m>\n</Nope\x1b[0m>\nKeepAlive On\rTimeout 30\n`,
      'evil.cnf': '[mysqld\x1b[2J\nkey_buffer = 16M\x1b[1A\n',
    });
    for (const args of [[name], ['--lang', 'mycnf', 'evil.cnf'], ['--quiet', name]]) {
      const run = await runTuneLint(args, { cwd: scratch });
      assert.equal(run.status, 1, run.stderr);
      assert.ok(run.stdout.length > 0);
      for (const line of run.stdout.split('\n')) assert.doesNotMatch(line, CONTROL, `stdout line ${JSON.stringify(line)}`);
      assert.doesNotMatch(run.stderr, CONTROL);
    }
    const missing = await runTuneLint([`${name}.missing\nsecond line`], { cwd: scratch });
    assert.equal(missing.status, 2);
    assert.equal(missing.stderr, 'tune-lint: evil\\x1b]0;title\\x07\\x1b[2J\\rname.conf.missing\\nsecond line: no such file\n');
  });

  it('a reader that closes the pipe early (tune-lint ... | head) ends the run with its own exit code and no stack trace', async () => {
    const lines = Array.from({ length: 20_000 }, (_, index) => `</Stray${index}>`).join('\n');
    writeTree(scratch, { 'many-errors.conf': `${MPM}${lines}\n` });
    const child = spawn(process.execPath, [CLI, '--no-probe', '--format', 'json', path.join(scratch, 'many-errors.conf')], {
      cwd: scratch,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.stdout.once('data', () => child.stdout.destroy());
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    assert.equal(stderr, '');
    assert.equal(status, 1, 'the findings decide the exit code, as when the whole report is read');
  });
});
