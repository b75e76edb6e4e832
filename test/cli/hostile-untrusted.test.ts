import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findTool } from '../helpers/tools.js';
import { openScratch, runTuneLint, writeTree } from '../fuzz/child.js';

/*
 * Nothing in a linted config is executed or fetched: envvars is parsed, not
 * sourced; piped logs, program rewrite maps, !include of pipe-like names and
 * URLs are text; LoadModule and LoadFile are names, never loaded. Each
 * command that could run or fetch something leaves a trace if it does: a
 * file it would create, a connection to a listener on loopback, a shared
 * object whose constructor writes a file. tune-lint runs lint, --fix and
 * dump on them (without --verify, which runs the real servers: see
 * docs/robustness.md).
 */

let scratch: string;
let server: net.Server;
let port = 0;
let connections = 0;

before(async () => {
  scratch = openScratch('untrusted');
  server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The files a command in the config would create, were it run. */
function traces(): string[] {
  return fs.readdirSync(scratch).filter((name) => name.startsWith('RAN-'));
}

/** lint, --fix and dump of one main file. */
async function everyCommand(main: string, cwd: string): Promise<void> {
  for (const command of [
    ['--format', 'json', '--host-ram', '2G', main],
    ['--fix', '--host-ram', '2G', main],
    ['dump', '--json', main],
  ]) {
    const run = await runTuneLint(command, { cwd, timeoutMs: 60_000, subcommand: command[0] === 'dump' });
    assert.ok(run.status === 0 || run.status === 1, `${command.join(' ')}: ${run.stderr}`);
  }
}

describe('nothing in a linted config is executed or fetched', () => {
  it('envvars is parsed, not sourced: command substitution, backticks, ; and . run nothing', async () => {
    const etc = path.join(scratch, 'apache-envvars');
    const ran = (name: string): string => path.join(scratch, `RAN-${name}`);
    writeTree(etc, {
      envvars: [
        `export APACHE_RUN_USER=$(touch ${ran('subst')})`,
        `export APACHE_LOG_DIR=\`touch ${ran('backtick')}\``,
        `APACHE_PID_FILE=/run/x.pid; touch ${ran('semicolon')}`,
        `. ${path.join(etc, 'sourced.sh')}`,
        `eval "touch ${ran('eval')}"`,
        `export APACHE_LOCK_DIR="$(touch ${ran('quoted')})"`,
        '',
      ].join('\n'),
      'sourced.sh': `touch ${ran('sourced')}\n`,
      'apache2.conf':
        'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\nUser ${APACHE_RUN_USER}\nErrorLog ${APACHE_LOG_DIR}/error.log\nMaxClients 150\n',
    });
    await everyCommand(path.join(etc, 'apache2.conf'), scratch);
    assert.deepEqual(traces(), []);
    // The control: apache2ctl sources the file with sh, and that does leave every trace.
    spawnSync('/bin/sh', ['-c', `. ${path.join(etc, 'envvars')}`], { cwd: etc });
    assert.deepEqual(traces().sort(), ['RAN-backtick', 'RAN-eval', 'RAN-quoted', 'RAN-semicolon', 'RAN-sourced', 'RAN-subst']);
    for (const trace of traces()) fs.rmSync(path.join(scratch, trace));
  });

  it('piped logs, program maps, LoadModule and LoadFile are text: nothing runs and no library loads', async (t) => {
    const etc = path.join(scratch, 'apache-pipes');
    const library = path.join(etc, 'evil.so');
    const compiler = findTool('cc') ?? findTool('gcc');
    if (compiler !== undefined) {
      const source = path.join(etc, 'evil.c');
      writeTree(etc, {
        'evil.c': `#include <stdio.h>\n__attribute__((constructor)) static void ran(void) { FILE *f = fopen("${path.join(scratch, 'RAN-library')}", "w"); if (f) fclose(f); }\n`,
      });
      assert.equal(spawnSync(compiler, ['-shared', '-fPIC', '-o', library, source]).status, 0, 'the test library builds');
    } else {
      t.diagnostic('no C compiler: LoadModule/LoadFile name a library that does not exist, so only the other commands are traced');
    }
    writeTree(etc, {
      'apache2.conf': [
        'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so',
        `LoadModule evil_module ${library}`,
        `LoadFile ${library}`,
        `ErrorLog "|/bin/sh -c 'touch ${path.join(scratch, 'RAN-errorlog')}'"`,
        `CustomLog "|$touch ${path.join(scratch, 'RAN-customlog')}" common`,
        `TransferLog "||touch ${path.join(scratch, 'RAN-transferlog')}"`,
        `RewriteMap run prg:/bin/sh -c 'touch ${path.join(scratch, 'RAN-rewritemap')}'`,
        `Include "|touch ${path.join(scratch, 'RAN-include')}"`,
        `IncludeOptional $(touch ${path.join(scratch, 'RAN-subst')})`,
        `SSLPassPhraseDialog exec:/bin/sh -c 'touch ${path.join(scratch, 'RAN-passphrase')}'`,
        `Include http://127.0.0.1:${port}/remote.conf`,
        `ProxyPass /app http://127.0.0.1:${port}/`,
        `SSLOCSPDefaultResponder http://127.0.0.1:${port}/ocsp`,
        'MaxClients 150',
        '',
      ].join('\n'),
    });
    await everyCommand(path.join(etc, 'apache2.conf'), scratch);
    assert.deepEqual(traces(), []);
    assert.equal(connections, 0, 'no connection to the loopback listener');
    if (compiler === undefined) return;
    // The control: loading the library (as httpd's LoadFile would) leaves its trace.
    spawnSync(process.execPath, ['-e', `try { process.dlopen({ exports: {} }, ${JSON.stringify(library)}); } catch {}`]);
    assert.deepEqual(traces(), ['RAN-library']);
    fs.rmSync(path.join(scratch, 'RAN-library'));
  });

  it('my.cnf !include of pipe-like names and URLs, and plugin options, run and fetch nothing', async () => {
    const etc = path.join(scratch, 'mycnf-pipes');
    writeTree(etc, {
      'my.cnf': [
        '[mysqld]',
        `!include |touch ${path.join(scratch, 'RAN-pipe')}`,
        `!include $(touch ${path.join(scratch, 'RAN-subst')})`,
        `!include \`touch ${path.join(scratch, 'RAN-backtick')}\``,
        `!includedir |touch ${path.join(scratch, 'RAN-pipedir')}`,
        `!include http://127.0.0.1:${port}/remote.cnf`,
        `plugin_dir = ${etc}`,
        'plugin-load-add = evil.so',
        `init_file = ${path.join(etc, 'init.sql')}`,
        `ssl_ca = http://127.0.0.1:${port}/ca.pem`,
        'max_connections = 100000',
        '',
      ].join('\n'),
      'init.sql': `SELECT 1 INTO OUTFILE '${path.join(scratch, 'RAN-sql')}';\n`,
    });
    await everyCommand(path.join(etc, 'my.cnf'), scratch);
    assert.deepEqual(traces(), []);
    assert.equal(connections, 0, 'no connection to the loopback listener');
  });
});
