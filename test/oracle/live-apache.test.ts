import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { loopbackServerLines } from '../helpers/host-apache.js';
import { temporaryDirectory } from '../helpers/host-fixtures.js';
import { childrenOf, freeLoopbackPort } from '../helpers/processes.js';
import { findTool, inCI } from '../helpers/tools.js';

/*
 * The live part against a real prefork Apache this test starts on a loopback
 * port, with mod_status served to local clients and four workers, driven past
 * them by ab with keep-alive connections so that the parent logs AH00161. The
 * CLI lints that config on this host and must read the scoreboard and the log
 * line, and weigh them against the memory budget (AP2017); a config that loads
 * another MPM than the running one is AP1017. httpd is the installed apache2
 * (2.4.x from Debian; the version is printed by the test name's report).
 */

interface Report {
  readonly live?: {
    readonly apache?: {
      readonly value: {
        readonly status?: { url: string; busyWorkers: number; idleWorkers: number; scoreboardSlots: number; mpm?: string };
        readonly maxWorkersReached?: { file: string; count: number; first: string; last: string };
      };
      readonly source: string;
    };
  };
  readonly results: readonly { readonly diagnostics: readonly { readonly ruleId: string; readonly message: string }[] }[];
}

const apache2 = findTool('apache2');
const ab = findTool('ab');
const missing = apache2 === undefined ? 'apache2' : ab === undefined ? 'ab (apache2-utils)' : undefined;
if (missing !== undefined && inCI) throw new Error(`CI=true but the oracle is missing: ${missing} is not installed (.ci/run installs it)`);
const MODULES = '/usr/lib/apache2/modules';

function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

function config(root: string, port: number, mpm: 'prefork' | 'event'): string {
  return [
    ...loopbackServerLines(root, port, process.geteuid?.() === 0),
    `LoadModule mpm_${mpm}_module ${MODULES}/mod_mpm_${mpm}.so`,
    `LoadModule authz_core_module ${MODULES}/mod_authz_core.so`,
    `LoadModule authz_host_module ${MODULES}/mod_authz_host.so`,
    `LoadModule status_module ${MODULES}/mod_status.so`,
    'StartServers 2',
    'MinSpareServers 1',
    'MaxSpareServers 2',
    'ServerLimit 4',
    'MaxRequestWorkers 4',
    'KeepAlive On',
    'KeepAliveTimeout 5',
    'MaxKeepAliveRequests 0',
    `DocumentRoot "${root}/htdocs"`,
    `<Directory "${root}/htdocs">`,
    '    Require all granted',
    '</Directory>',
    '<Location /server-status>',
    '    SetHandler server-status',
    '    Require local',
    '</Location>',
    '',
  ].join('\n');
}

describe(
  'live Apache: scoreboard and error log of a running server',
  { skip: missing === undefined ? false : `${missing} is not installed` },
  () => {
    const { dir: root, remove } = temporaryDirectory('tune-lint-live-apache-');
    const conf = path.join(root, 'apache2.conf');
    let parent = 0;
    const seen = new Set<number>();

    before(async () => {
      fs.chmodSync(root, 0o755);
      fs.mkdirSync(path.join(root, 'htdocs'));
      fs.writeFileSync(path.join(root, 'htdocs/index.html'), '<p>tune-lint</p>\n');
      const port = await freeLoopbackPort();
      fs.writeFileSync(conf, config(root, port, 'prefork'));
      const start = spawnSync(apache2 as string, ['-d', root, '-f', conf, '-k', 'start'], { encoding: 'utf8', timeout: 20_000 });
      assert.equal(start.status, 0, start.stderr);
      const deadline = Date.now() + 10_000;
      while ((parent === 0 || childrenOf(parent).length === 0) && Date.now() < deadline) {
        parent = Number(fs.existsSync(path.join(root, 'apache2.pid')) ? fs.readFileSync(path.join(root, 'apache2.pid'), 'utf8').trim() : 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const child of childrenOf(parent)) seen.add(child);
      // Eight keep-alive clients for three seconds against four workers: the parent logs AH00161 at its next maintenance tick.
      const load = spawnSync(ab as string, ['-k', '-c', '8', '-t', '3', '-n', '1000000', `http://127.0.0.1:${port}/`], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(load.status, 0, load.stderr);
    });

    after(async () => {
      if (parent > 0 && alive(parent)) {
        for (const child of childrenOf(parent)) seen.add(child);
        process.kill(parent, 'SIGTERM');
        const deadline = Date.now() + 10_000;
        while (alive(parent) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const child of seen) if (alive(child)) process.kill(child, 'SIGKILL');
      remove();
    });

    it('reads the scoreboard on loopback and the AH00161 lines, and AP2017 weighs them against the budget', () => {
      // No OOM kills: the kernel log is the machine's (a container's is often its host's), not this test's;
      // AP2017's advice changes with them.
      fs.writeFileSync(path.join(root, '.tune-lint.yaml'), 'host:\n  oomKills: []\n');
      const run = runCli([conf, '--host-ram', '2G', '--format', 'json'], { cwd: root });
      const report = JSON.parse(run.stdout) as Report;
      const live = report.live?.apache;
      assert.ok(live !== undefined, run.stdout.slice(0, 2000));
      const { status, maxWorkersReached } = live.value;
      assert.ok(status !== undefined && maxWorkersReached !== undefined, JSON.stringify(live));
      assert.match(status.url, /^http:\/\/127\.0\.0\.1:\d+\/server-status\?auto$/);
      assert.equal(status.mpm, 'prefork');
      assert.equal(status.scoreboardSlots, 4);
      assert.ok(status.busyWorkers >= 1);
      assert.equal(maxWorkersReached.file, path.join(root, 'error.log'));
      assert.ok(maxWorkersReached.count >= 1);
      const ap2017 = report.results.flatMap((result) => result.diagnostics).filter((entry) => entry.ruleId === 'AP2017');
      assert.match(
        ap2017[0]?.message ?? '',
        /^the error log says .* that the server reached MaxRequestWorkers \(.*\); expected MaxRequestWorkers up to \d+/,
      );
    });

    it('a config that loads another MPM than the running children map is AP1017', () => {
      const eventConf = path.join(root, 'event.conf');
      fs.writeFileSync(eventConf, config(root, 1, 'event'));
      const run = runCli([eventConf, '--host-ram', '2G', '--format', 'json', '--no-live'], { cwd: root });
      const report = JSON.parse(run.stdout) as Report;
      const ap1017 = report.results.flatMap((result) => result.diagnostics).filter((entry) => entry.ruleId === 'AP1017');
      assert.deepEqual(
        ap1017.map((entry) => entry.message),
        ['the config loads the event MPM, but the running Apache uses prefork; expected a restart, or the config it was started with'],
      );
    });
  },
);
