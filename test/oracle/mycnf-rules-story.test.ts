import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { selectRules } from '../../src/engine/selection.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import { lint, type LintResult } from '../../src/lint.js';
import { FIXTURES, materialise } from '../helpers/mycnf-fixtures.js';
import { printDefaults, serverSeries, serverVariables } from '../helpers/mycnf-oracle.js';
import { requireTool } from '../helpers/tools.js';
import { said } from '../helpers/rule-fixtures.js';

/*
 * Tuning story 1, the my.cnf half: the hand-tuned option file of a 500 MB
 * Drupal box from the MySQL 5.0 days (set-variable lines, the query cache,
 * key_buffer), linted for the servers it would run on today. Which MY rules
 * fire is the story's claim; the fixed file must be one the reader and, for
 * MariaDB, the server take.
 */

const STORY = path.join(FIXTURES, 'story');
const MAIN = 'etc/mysql/my.cnf';

async function lintStory(target: string): Promise<LintResult> {
  return lint({
    paths: [MAIN],
    cwd: STORY,
    sysroot: STORY,
    targets: parseTargetSpec(target),
    host: {},
    rules: selectRules(builtinRules, 'recommended', new Map()),
    fixType: 'all',
  });
}

/** `line rule severity` for each MY finding, in report order. */
function findings(result: LintResult): string[] {
  return result.diagnostics.filter((d) => d.ruleId.startsWith('MY')).map((d) => `${d.start.line} ${d.ruleId} ${d.severity}`);
}

/** The story tree copied with the fixed my.cnf in place of the original, includes pointing into the copy. */
function fixedCopy(result: LintResult): { dir: string; main: string; cleanup(): void } {
  const copy = materialise({
    name: 'story-fixed',
    dir: STORY,
    main: MAIN,
    sysroot: true,
    target: { product: 'mariadb', version: '10.11' },
  });
  const fix = result.fixes.find((candidate) => candidate.file.realPath === path.join(STORY, MAIN));
  assert.ok(fix !== undefined, 'the story my.cnf is fixed');
  fs.writeFileSync(copy.main, fix.after.replace(/^([\t ]*![\t ]*include(?:dir)?[\t ]+)\//gm, `$1${copy.dir}/`), 'latin1');
  fs.chmodSync(copy.main, 0o644);
  return copy;
}

describe('tuning story 1: the old my.cnf of the 500 MB Drupal box', () => {
  it('for MariaDB 10.11: the set-variable lines refuse to start, the query cache they set is flagged, the abbreviations are notes', async () => {
    const result = await lintStory('mariadb=10.11');
    assert.deepEqual(findings(result), [
      '44 MY4003 info',
      '48 MY4003 info',
      '49 MY4001 error',
      '50 MY4001 error',
      '54 MY4001 error',
      '55 MY2005 warn',
      '55 MY4001 error',
      '56 MY4001 error',
    ]);
    const queryCache = result.diagnostics.find((d) => d.ruleId === 'MY2005');
    assert.match(
      queryCache === undefined ? '' : said(queryCache),
      /query_cache_size 64 MiB .*\(set-variable\): MariaDB turns query_cache_type ON/,
    );
  });

  it('for MySQL 8.0: set-variable, the removed query cache options inside it, the refused abbreviations and expire_logs_days', async () => {
    const result = await lintStory('mysql=8.0');
    assert.deepEqual(findings(result), [
      '44 MY4003 error',
      '48 MY4003 error',
      '49 MY4001 error',
      '50 MY4001 error',
      '54 MY4001 error',
      '54 MY4002 error',
      '55 MY4001 error',
      '55 MY4002 error',
      '56 MY4001 error',
      '56 MY4002 error',
      '61 MY4005 info',
    ]);
  });

  it('the MariaDB patch gives a file my_print_defaults reads and mariadbd starts from, with the values the admin meant', async (t) => {
    const reader = requireTool(t, 'my_print_defaults');
    const server = requireTool(t, 'mariadbd');
    if (reader === undefined || server === undefined) return;
    assert.equal(serverSeries(server), '10.11');
    const result = await lintStory('mariadb=10.11');
    const copy = fixedCopy(result);
    try {
      const read = printDefaults(reader, copy.main, ['--mysqld'], copy.dir);
      assert.equal(read.status, 0, read.stderr);
      const options = read.stdout.trim().split('\n');
      assert.ok(!options.some((option) => option.startsWith('--set-variable')), read.stdout);
      for (const expected of [
        '--key_buffer_size=16M',
        '--myisam-recover-options=BACKUP',
        '--max_connections=15',
        '--max_user_connections=15',
        '--query_cache_size=0',
        '--query_cache_type=0',
      ]) {
        assert.ok(options.includes(expected), `${expected} in\n${read.stdout}`);
      }
      const started = serverVariables(server, copy.main, copy.dir);
      assert.equal(started.status, 0, started.stderr);
      assert.doesNotMatch(started.stderr, /\[ERROR\]|Using unique option prefix/, started.stderr);
      assert.equal(started.values.get('max_connections'), '15');
      assert.equal(started.values.get('key_buffer_size'), String(16 * 1024 * 1024));
      assert.equal(started.values.get('query_cache_type'), 'OFF');
    } finally {
      copy.cleanup();
    }
  });

  it('the MySQL 8.0 patch gives a file my_print_defaults reads, without the options MySQL 8.0 refuses', async (t) => {
    const reader = requireTool(t, 'my_print_defaults');
    if (reader === undefined) return;
    const result = await lintStory('mysql=8.0');
    const copy = fixedCopy(result);
    try {
      const read = printDefaults(reader, copy.main, ['mysqld', 'server', 'mysqld-8.0'], copy.dir);
      assert.equal(read.status, 0, read.stderr);
      const options = read.stdout.trim().split('\n');
      assert.ok(
        !options.some((option) => /^--(set-variable|query_cache|key_buffer=|myisam-recover=|expire_logs_days)/.test(option)),
        read.stdout,
      );
      for (const expected of [
        '--key_buffer_size=16M',
        '--myisam-recover-options=BACKUP',
        '--max_connections=15',
        '--binlog_expire_logs_seconds=864000',
      ]) {
        assert.ok(options.includes(expected), `${expected} in\n${read.stdout}`);
      }
      const again = await lint({
        paths: [copy.main],
        cwd: copy.dir,
        targets: parseTargetSpec('mysql=8.0'),
        host: {},
        rules: selectRules(builtinRules, 'recommended', new Map()),
        fixType: 'none',
      });
      assert.deepEqual(findings(again), [], 'nothing left to report for MySQL 8.0');
    } finally {
      copy.cleanup();
    }
  });
});
