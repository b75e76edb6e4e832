import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseAbReport, refusedTarget } from '../../src/host/measure.js';
import { runCli } from '../helpers/cli.js';
import { startApache } from '../helpers/host-apache.js';
import { temporaryDirectory } from '../helpers/host-fixtures.js';
import { findTool, inCI } from '../helpers/tools.js';

/*
 * `tune-lint measure` against a real prefork Apache this test starts on a
 * loopback port (the installed apache2, 2.4.x from Debian), loaded by the
 * installed ab: the report must say what ab measured, and the profile must
 * hold the children's sizes at the peak, counted as children that served.
 */

const apache2 = findTool('apache2');
const ab = fs.existsSync('/usr/bin/ab') ? '/usr/bin/ab' : undefined;
const missing = apache2 === undefined ? 'apache2' : ab === undefined ? '/usr/bin/ab (apache2-utils)' : undefined;
if (missing !== undefined && inCI) throw new Error(`CI=true but the oracle is missing: ${missing} is not installed (.ci/run installs it)`);

describe('tune-lint measure: whose pages it loads', () => {
  it('loopback and the machine own addresses only; names other than localhost are not resolved', () => {
    const own = ['192.0.2.7', 'fd00::7'];
    assert.equal(refusedTarget(new URL('http://127.0.0.1:8080/x.php'), own), undefined);
    assert.equal(refusedTarget(new URL('http://127.3.4.5/'), own), undefined);
    assert.equal(refusedTarget(new URL('http://localhost/'), own), undefined);
    assert.equal(refusedTarget(new URL('http://[::1]/'), own), undefined);
    assert.equal(refusedTarget(new URL('https://192.0.2.7/'), own), undefined);
    assert.equal(refusedTarget(new URL('http://[fd00::7]/'), own), undefined);
    assert.match(refusedTarget(new URL('http://198.51.100.1/'), own) ?? '', /is not this host/);
    assert.match(refusedTarget(new URL('http://www.example.com/'), own) ?? '', /is not this host/);
    assert.match(refusedTarget(new URL('http://localhost.example.com/'), own) ?? '', /is not this host/);
    assert.match(refusedTarget(new URL('file:///etc/passwd'), own) ?? '', /only http and https/);
  });

  it('refuses on the command line with exit 2 and one line', () => {
    const run = runCli(['measure', 'http://203.0.113.9/'], { cwd: process.cwd() });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^tune-lint: 203\.0\.113\.9 is not this host: [^\n]*\n$/);
    assert.equal(run.stdout, '');
  });

  it("reads ab's report: rate, failures, non-2xx, the 99th percentile", () => {
    const report = [
      'Complete requests:      200',
      'Failed requests:        3',
      'Non-2xx responses:      2',
      'Requests per second:    412.37 [#/sec] (mean)',
      'Percentage of the requests served within a certain time (ms)',
      '  50%      9',
      '  99%     41',
      ' 100%     55 (longest request)',
    ].join('\n');
    assert.deepEqual(parseAbReport(report), { complete: 200, failed: 3, non2xx: 2, perSecond: 412.37, p99: 41 });
    assert.equal(parseAbReport('apr_socket_recv: Connection refused (111)'), undefined);
  });
});

describe('tune-lint measure against a real Apache', { skip: missing === undefined ? false : `${missing} is not installed` }, () => {
  it('reports the load and writes a profile with the children measured at the peak', async (t) => {
    const stops: (() => Promise<void>)[] = [];
    t.after(async () => {
      for (const stop of stops.reverse()) await stop();
    });
    const server = await startApache(apache2 ?? '', (stop) => stops.push(stop));
    const { dir, remove } = temporaryDirectory('tune-lint-measure-');
    t.after(remove);
    const out = path.join(dir, 'host.yaml');
    const run = runCli(
      [
        'measure',
        `http://127.0.0.1:${server.port}/index.html`,
        '--requests',
        '6000',
        '--concurrency',
        '4',
        '--time-limit',
        '20',
        '--out',
        out,
      ],
      { cwd: dir },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `^http://127\\.0\\.0\\.1:${server.port}/index\\.html: \\d+ requests at 4 at once, [\\d.]+ requests/s, p99 \\d+ ms, 0 failed`,
        'm',
      ),
    );
    assert.match(run.stderr, /^Apache: per child [\d.]+ [KMG]iB (PSS|RSS) \(/m);
    const profile = parseYaml(fs.readFileSync(out, 'utf8')) as {
      ram?: unknown;
      perChild?: { count: number; busy?: number; p90?: unknown };
    };
    assert.ok(profile.ram !== undefined, 'the profile has the host facts');
    assert.ok(profile.perChild !== undefined, 'the profile has the children sizes');
    assert.ok(profile.perChild.count >= 1 && profile.perChild.count <= 10);
    assert.ok((profile.perChild.busy ?? 0) >= 1, 'children whose CPU time grew under the load count as serving');
    assert.ok(profile.perChild.p90 !== undefined);
    assert.doesNotMatch(run.stderr, /the load ended within/);
    // A load too short to be sampled under says so.
    const short = runCli(['measure', `http://127.0.0.1:${server.port}/index.html`, '--requests', '8', '--concurrency', '2'], { cwd: dir });
    assert.equal(short.status, 0, short.stderr);
    assert.match(short.stderr, /^the load ended within 250 ms, before the children were sampled under it: give more --requests/m);
    // The profile is one the lint reads.
    const lint = runCli(['--no-probe', '--profile', out, '--format', 'json', path.join(server.root, 'apache2.conf')], { cwd: dir });
    assert.ok(lint.status === 0 || lint.status === 1, lint.stderr);
  });
});
