import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timingRows } from '../../src/engine/timing.js';
import { runCli } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';

/*
 * TIMING, as ESLint reads it: where a lint's time went, per rule, on stderr
 * after the report. The times themselves are not asserted (they are wall
 * time); the table's shape, order and sums are, and that the report is
 * untouched.
 */

const FLEET = repoPath('fixtures', 'cli', 'repo-fleet');
const ARGS = ['--no-probe', 'hosts/lamp1/apache2.conf', 'hosts/lamp1/my.cnf', 'hosts/web2/httpd.conf'];
const ROW = /^(?<label>[A-Z]{2}\d{4} [a-z0-9-]+) +\| +(?<ms>\d+\.\d{3}) \| +(?<share>\d+\.\d)%$/;
const FOOTER = /^Reading the configs: \d+\.\d{3} ms; rules: (?<total>\d+\.\d{3}) ms \((?<rules>\d+) rules, every pass\)$/;

function timingTable(stderr: string): { rows: { label: string; ms: number; share: number }[]; total: number; rules: number } {
  const lines = stderr.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^Rule +\| Time \(ms\) \| Relative$/);
  assert.match(lines[1] ?? '', /^:-+\|-{10,}:\|-{8}:$/);
  assert.equal((lines[0] as string).length, (lines[1] as string).length, 'the separator is as wide as the header');
  assert.equal(lines.at(-2), '', 'a blank line before the totals');
  const footer = FOOTER.exec(lines.at(-1) ?? '');
  assert.ok(footer?.groups, `totals line: ${lines.at(-1)}`);
  const rows = lines.slice(2, -2).map((line) => {
    const match = ROW.exec(line);
    assert.ok(match?.groups, `row: ${JSON.stringify(line)}`);
    return { label: match.groups.label as string, ms: Number(match.groups.ms), share: Number(match.groups.share) };
  });
  return { rows, total: Number(footer.groups.total), rules: Number(footer.groups.rules) };
}

describe('TIMING', () => {
  it('reads the variable as ESLint does', () => {
    assert.equal(timingRows(undefined), undefined);
    assert.equal(timingRows(''), undefined);
    for (const few of ['1', 'true', '0', '5', '10', 'yes']) assert.equal(timingRows(few), 10, few);
    assert.equal(timingRows('25'), 25);
    assert.equal(timingRows('all'), Number.POSITIVE_INFINITY);
    assert.equal(timingRows('ALL'), Number.POSITIVE_INFINITY);
  });

  it('TIMING=1: the 10 slowest rules on stderr, slowest first, after an unchanged report', () => {
    const plain = runCli(ARGS, { cwd: FLEET, env: { TIMING: undefined } });
    const timed = runCli(ARGS, { cwd: FLEET, env: { TIMING: '1' } });
    assert.equal(timed.status, plain.status);
    assert.equal(timed.stdout, plain.stdout);
    assert.equal(plain.stderr, '');
    const table = timingTable(timed.stderr);
    assert.equal(table.rows.length, Math.min(10, table.rules));
    for (let index = 1; index < table.rows.length; index++) {
      assert.ok((table.rows[index - 1]?.ms as number) >= (table.rows[index]?.ms as number), 'slowest first');
    }
  });

  it('TIMING=all: every rule that ran, shares of the rules total', () => {
    const timed = runCli(['--format', 'json', ...ARGS], { cwd: FLEET, env: { TIMING: 'all' } });
    const table = timingTable(timed.stderr);
    assert.equal(table.rows.length, table.rules);
    assert.equal(new Set(table.rows.map((row) => row.label)).size, table.rows.length, 'one row per rule');
    // Both languages' rules ran; the rules about the run itself (TL) are the reader's and time nothing.
    assert.ok(table.rows.some((row) => row.label.startsWith('AP')));
    assert.ok(table.rows.some((row) => row.label.startsWith('MY')));
    assert.ok(table.rows.every((row) => !row.label.startsWith('TL')));
    const shares = table.rows.reduce((sum, row) => sum + row.share, 0);
    assert.ok(Math.abs(shares - 100) <= 0.05 * table.rows.length + 0.1, `shares add up to 100%: ${shares}`);
    const times = table.rows.reduce((sum, row) => sum + row.ms, 0);
    assert.ok(
      Math.abs(times - table.total) <= 0.001 * table.rows.length + 0.001,
      `rows add up to the total: ${times} against ${table.total}`,
    );
  });
});
