import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { CLI, CLI_NODE, removeScratch, runCli, scratchDir } from '../helpers/cli.js';
import { requireTool } from '../helpers/tools.js';

/*
 * The CLI writes its output with write(2) on descriptors 1 and 2 rather than
 * through process.stdout (src/util/stdio.ts). What Node's streams did for it
 * must still hold: a reader that goes away is no error, a non-blocking pipe
 * gets all of the output in order, and stdout and stderr stay apart.
 */
const root = scratchDir('output');
after(() => removeScratch(root));

// Enough vhosts that `dump --json` prints several times a pipe's 64 KiB buffer.
const vhosts = Array.from({ length: 1000 }, (_, index) =>
  [`<VirtualHost *:80>`, `    ServerName site${index}.example`, `    DocumentRoot /srv/site${index}`, `</VirtualHost>`].join('\n'),
);
const conf = path.join(root, 'httpd.conf');
// EnableSendfile On: the report has findings, none with a fix (AP2009 would add this line).
fs.writeFileSync(conf, `ServerRoot ${root}\nListen 80\nEnableSendfile On\n${vhosts.join('\n')}\n`);
const DUMP = ['dump', '--json', conf];

describe('output', () => {
  it('is complete and in order when written to a pipe', () => {
    const run = runCli(DUMP, { cwd: root });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(run.stdout.length > 4 * 65536, `only ${run.stdout.length} characters`);
    const dump = JSON.parse(run.stdout) as { virtualHosts: { serverName: string }[] };
    assert.deepEqual(
      dump.virtualHosts.map((vhost) => vhost.serverName),
      vhosts.map((_, index) => `site${index}.example`),
    );
  });

  it('ends quietly with its own exit code when the reader stops reading (tune-lint ... | head)', async () => {
    const child = spawn(CLI_NODE, [CLI, ...DUMP], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.once('data', () => child.stdout.destroy());
    const status = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    assert.equal(stderr, '');
    assert.equal(status, 0);
  });

  it('reaches a non-blocking pipe whole, after the pipe was full', (t) => {
    const python = requireTool(t, 'python3');
    if (python === undefined) return;
    // The pipe is made non-blocking and read only after a pause, so the writes fill it and get EAGAIN.
    const reader = [
      'import os, subprocess, sys, time',
      'r, w = os.pipe()',
      'os.set_blocking(w, False)',
      'child = subprocess.Popen(sys.argv[1:], stdout=w)',
      'os.close(w)',
      'time.sleep(0.5)',
      'data = bytearray()',
      'while True:',
      '    chunk = os.read(r, 65536)',
      '    if not chunk: break',
      '    data += chunk',
      'sys.stdout.buffer.write(bytes(data))',
      'sys.exit(child.wait())',
    ].join('\n');
    const run = spawnSync(python, ['-c', reader, CLI_NODE, CLI, ...DUMP], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, runCli(DUMP, { cwd: root }).stdout);
  });

  it('keeps errors on stderr and the report on stdout', () => {
    const run = runCli(['--no-probe', '--format', 'diff', conf], { cwd: root });
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^tune-lint: \d+ problems? found, none fixable: nothing to patch\n$/);
    const missing = runCli(['--no-probe', path.join(root, 'missing.conf')], { cwd: root });
    assert.equal(missing.status, 2);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /missing\.conf/);
  });
});
