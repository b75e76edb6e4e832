import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeScratch, runCli, scratchDir } from '../helpers/cli.js';
import { writeFleetReports } from '../helpers/fleet.js';
import { assertValidSarif } from '../helpers/sarif-schema.js';

/* `tune-lint fleet` over real per-host reports (test/helpers/fleet.ts). */
interface Log {
  runs: {
    automationDetails: { id: string };
    results: { ruleId: string; level: string; message: { text: string }; properties: { host: string } }[];
    tool: { driver: { rules: { id: string }[] } };
  }[];
}

describe('tune-lint fleet', () => {
  let dir: string;
  before(() => {
    dir = scratchDir('tune-lint-fleet-');
    writeFleetReports(dir);
  });
  after(() => removeScratch(dir));

  it('sorts hosts by how far they overcommit, counts errors per rule, names the hosts whose files are not in effect', () => {
    const run = runCli(['fleet', dir], { cwd: dir });
    assert.equal(run.status, 1, run.stderr);
    const lines = run.stdout.split('\n');
    assert.deepEqual(
      lines.slice(1, 4).map((line) => line.trim().split(/\s+/)[0]),
      ['small-vps', 'big-box', 'db1'],
    );
    assert.match(run.stdout, /small-vps +peak 3 GiB of 500 MiB, 2\.5 GiB over RAM \(\d+ MiB after the patch\); 1 error, \d+ warnings/);
    assert.match(run.stdout, /^ {2}big-box +peak [\d.]+ GiB of 8 GiB, [\d.]+ GiB free; 0 errors, \d+ warnings$/m);
    assert.match(run.stdout, /^ {2}AP2001 apache-memory-overcommit: 1 host, 1 finding$/m);
    assert.match(run.stdout, /^Files that differ from the running servers \(MY1010, MY1011, AP1017\):\n {2}db1: 1 setting$/m);
  });

  it('the same as JSON, and as one HTML page with a bar per host and no external asset', () => {
    const json = JSON.parse(runCli(['fleet', dir, '--format', 'json'], { cwd: dir }).stdout) as {
      hosts: { name: string; ram: number; peak: number; notInEffect: number }[];
      rules: { ruleId: string; hosts: number }[];
    };
    assert.deepEqual(
      json.hosts.map((host) => [host.name, host.notInEffect]),
      [
        ['small-vps', 0],
        ['big-box', 0],
        ['db1', 1],
      ],
    );
    assert.equal(json.hosts[0]?.ram, 500 * 1024 * 1024);
    const html = runCli(['fleet', dir, '--format', 'html'], { cwd: dir }).stdout;
    assert.match(html, /^<!doctype html>/);
    for (const host of ['small-vps', 'big-box', 'db1'])
      assert.match(html, new RegExp(`<th>${host}</th><td class="memory"><div class="track">`));
    assert.match(html, /<span class="seg" style="width:[\d.]+%;background:#3b7dd8">Apache [\d.]+ GiB<\/span>/);
    // Dated by the newest report, each host on its own scale (RAM at 100 % where nothing passes it), the bar after the patch.
    assert.match(html, /<p>Reports of \d{4}-\d\d-\d\d: 3 hosts\./);
    assert.match(html, /<th>big-box<\/th><td class="memory"><div class="track">.*<span class="ram" style="left:100\.00%"/);
    assert.match(html, /<th>small-vps<\/th>.*<div class="track-after"><span class="aseg"/);
    assert.match(html, /<th>small-vps<\/th>.*<details><summary>\d+ findings, the patch<\/summary><pre>[^<]*AP2001/);
    assert.doesNotMatch(html, /(src|href)=|https?:|@import/);
  });

  it("as SARIF 2.1.0: one run for the fleet, each result naming its host; 25 hosts stay within GitHub's 20 runs", () => {
    const log = JSON.parse(runCli(['fleet', dir, '--format', 'sarif'], { cwd: dir }).stdout) as Log;
    assertValidSarif(log, 'fleet --format sarif');
    assert.deepEqual(
      log.runs.map((run) => run.automationDetails.id),
      ['tune-lint/fleet/'],
    );
    const [run] = log.runs;
    assert.ok(run !== undefined);
    const small = JSON.parse(fs.readFileSync(path.join(dir, 'small-vps.json'), 'utf8')) as { results: { diagnostics: unknown[] }[] };
    const ofSmall = run.results.filter((result) => result.properties.host === 'small-vps');
    assert.equal(ofSmall.length, small.results.flatMap((result) => result.diagnostics).length);
    assert.ok(
      ofSmall.some((result) => result.ruleId === 'AP2001' && result.level === 'error' && result.message.text.startsWith('small-vps: ')),
    );
    assert.ok(run.tool.driver.rules.some((rule) => rule.id === 'MY1010'));

    const many = scratchDir('tune-lint-fleet-many-');
    try {
      for (let host = 0; host < 25; host++) fs.copyFileSync(path.join(dir, 'small-vps.json'), path.join(many, `web${host}.json`));
      const big = JSON.parse(runCli(['fleet', many, '--format', 'sarif'], { cwd: many }).stdout) as Log;
      assertValidSarif(big, 'fleet --format sarif, 25 hosts');
      assert.equal(big.runs.length, 1);
      assert.equal(new Set(big.runs[0]?.results.map((result) => result.properties.host)).size, 25);
    } finally {
      removeScratch(many);
    }
  });

  it('a directory without reports is one line and exit 2', () => {
    const empty = scratchDir('tune-lint-fleet-empty-');
    try {
      const none = runCli(['fleet', empty], { cwd: empty });
      assert.equal(none.status, 2);
      assert.match(none.stderr, /^tune-lint: fleet .*: no <host>\.json reports/);
    } finally {
      removeScratch(empty);
    }
  });

  it('a report that cannot be read is that host, unreadable, beside the rest; a symlink out of the directory is not followed', () => {
    const mixed = scratchDir('tune-lint-fleet-mixed-');
    const outside = scratchDir('tune-lint-fleet-outside-');
    try {
      fs.copyFileSync(path.join(dir, 'small-vps.json'), path.join(mixed, 'small-vps.json'));
      fs.writeFileSync(path.join(mixed, 'truncated.json'), '{"results": [');
      fs.writeFileSync(path.join(mixed, 'null-result.json'), '{"results": [null]}');
      fs.writeFileSync(
        path.join(mixed, 'bad-consumers.json'),
        '{"results": [], "budget": {"ram": 1, "peak": 1, "peakAfterPatch": 1, "consumers": 7}}',
      );
      fs.writeFileSync(path.join(outside, 'secret'), 'root:x:0:0:root:/root:/bin/bash\n');
      fs.symlinkSync(path.join(outside, 'secret'), path.join(mixed, 'passwd.json'));
      fs.symlinkSync('small-vps.json', path.join(mixed, 'alias.json'));
      const run = runCli(['fleet', mixed], { cwd: mixed });
      assert.equal(run.status, 1, run.stderr);
      assert.equal(run.stderr, '');
      assert.match(run.stdout, /^ {2}small-vps +peak 3 GiB of 500 MiB/m);
      assert.match(run.stdout, /^ {2}alias +peak 3 GiB of 500 MiB/m, 'a symlink to a report inside the directory is read');
      assert.match(run.stdout, /^ {2}truncated +unreadable: not JSON( \(at byte \d+\))?$/m);
      assert.match(run.stdout, /^ {2}null-result +unreadable: not a tune-lint JSON report \(results\[0\] has no diagnostics\)$/m);
      assert.match(run.stdout, /^ {2}bad-consumers +unreadable: not a tune-lint JSON report \(budget\.consumers is not a list\)$/m);
      assert.match(run.stdout, /^ {2}passwd +unreadable: a symlink to a file outside the directory, not followed$/m);
      assert.doesNotMatch(run.stdout, /root:x/);
      const html = runCli(['fleet', mixed, '--format', 'html'], { cwd: mixed });
      assert.match(html.stdout, /<th>null-result<\/th>.*unreadable: not a tune-lint JSON report/);
      const sarif = JSON.parse(runCli(['fleet', mixed, '--format', 'sarif'], { cwd: mixed }).stdout) as object;
      assertValidSarif(sarif, 'fleet --format sarif with unreadable hosts');
      const json = JSON.parse(runCli(['fleet', mixed, '--format', 'json'], { cwd: mixed }).stdout) as {
        hosts: { name: string; unreadable?: string }[];
      };
      assert.deepEqual(
        json.hosts.filter((host) => host.unreadable !== undefined).map((host) => host.name),
        ['bad-consumers', 'null-result', 'passwd', 'truncated'],
      );
    } finally {
      removeScratch(mixed);
      removeScratch(outside);
    }
  });
});
