import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { booleanValue, legacySetVariable, normaliseOptionName } from '../../src/languages/mycnf/names.js';
import { resolveOptionName, type OptionStatus } from '../../src/languages/mycnf/options.js';
import { MARIADB_10_11, temporaryDirectory } from '../helpers/mycnf-fixtures.js';
import { serverSeries } from '../helpers/mycnf-oracle.js';
import { requireTool } from '../helpers/tools.js';

describe('mycnf option names', () => {
  it('normalises case and dashes and strips the prefixes the server strips', () => {
    const name = normaliseOptionName('Loose-Skip-Innodb-File-Per-Table');
    assert.equal(name.normalised, 'loose_skip_innodb_file_per_table');
    assert.equal(name.key, 'innodb_file_per_table');
    assert.deepEqual(name.prefixes, ['loose', 'skip']);
    assert.equal(name.loose, true);
    assert.equal(name.implied, false);
    assert.equal(normaliseOptionName('enable-performance-schema').implied, true);
    assert.equal(normaliseOptionName('disable_log_bin').key, 'log_bin');
    assert.equal(normaliseOptionName('maximum-sort_buffer_size').maximum, true);
    assert.equal(normaliseOptionName('key-buffer-size').key, 'key_buffer_size');
  });

  it('keeps real option names that start with skip_', () => {
    for (const raw of ['skip-name-resolve', 'skip_networking', 'skip-show-database', 'skip-grant-tables', 'skip-slave-start']) {
      const name = normaliseOptionName(raw);
      assert.equal(name.key, raw.replaceAll('-', '_'), raw);
      assert.deepEqual(name.prefixes, []);
      assert.equal(name.implied, undefined);
    }
    assert.equal(normaliseOptionName('disable-skip-name-resolve').key, 'skip_name_resolve');
    assert.equal(normaliseOptionName('disable-skip-name-resolve').implied, false);
    // The option is external-locking; skip- turns it off (mariadbd --help lists --external-locking).
    assert.equal(normaliseOptionName('skip-external-locking').key, 'external_locking');
  });

  it('lets only the prefix stripped last decide, as handle_options does', () => {
    assert.equal(normaliseOptionName('skip-loose-innodb-doublewrite').implied, undefined);
    assert.equal(normaliseOptionName('loose-skip-innodb-doublewrite').implied, false);
    assert.equal(normaliseOptionName('maximum-loose-sort_buffer_size').maximum, false);
  });

  it('works out the boolean an option line sets', () => {
    const use = (raw: string, value?: string): boolean | undefined => booleanValue(normaliseOptionName(raw), value);
    assert.equal(use('skip-name-resolve'), true);
    assert.equal(use('skip-innodb-file-per-table'), false);
    assert.equal(use('skip-innodb-file-per-table', '0'), true);
    assert.equal(use('skip-innodb-file-per-table', 'false'), false);
    assert.equal(use('enable-x', '0'), false);
    assert.equal(use('x', 'ON'), true);
    assert.equal(use('x', 'off'), false);
    assert.equal(use('x', 'yes'), undefined);
  });

  it('reads the pre-5.5 set-variable form for a fix to rewrite', () => {
    const legacy = legacySetVariable(normaliseOptionName('set-variable'), 'max_connections=15');
    assert.equal(legacy?.name.key, 'max_connections');
    assert.equal(legacy.value, '15');
    assert.equal(legacySetVariable(normaliseOptionName('set_variable'), ' query_cache_size = 64M ')?.value, '64M');
    assert.equal(legacySetVariable(normaliseOptionName('max_connections'), '15'), undefined);
  });

  it('refuses abbreviations on MySQL 5.7+ and expands them on MySQL 5.6', () => {
    assert.equal(resolveOptionName('key_buffer', { product: 'mysql', version: '8.0' }).status, 'abbreviation-refused');
    const old = resolveOptionName('key_buffer', { product: 'mysql', version: '5.6' });
    assert.deepEqual([old.status, old.name.key, old.name.abbreviation], ['abbreviation', 'key_buffer_size', 'key_buffer']);
    assert.equal(resolveOptionName('innodb_dedicated_server', { product: 'mysql', version: '8.0' }).status, 'exact', "8.0's own list");
    assert.equal(
      resolveOptionName('innodb_dedicated_server', { product: 'mysql', version: '8.4' }).status,
      'unverified',
      'no list for 8.4',
    );
  });
});

interface ServerVerdict {
  readonly status: OptionStatus;
  readonly key?: string;
}

/** What mariadbd says about one option line: a unique-prefix Note, an ambiguity or unknown-option error, or nothing. */
function serverVerdict(tool: string, dir: string, line: string): ServerVerdict {
  const file = path.join(dir, 'name.cnf');
  fs.writeFileSync(file, `[mysqld]\n${line}\n`);
  const run = spawnSync(tool, [`--defaults-file=${file}`, '--help', '--verbose'], { encoding: 'utf8' });
  const stderr = run.stderr;
  const note =
    /Using unique option prefix '[^']*' is error-prone and can break in the future\. Please use the full name '([^']+)' instead/.exec(
      stderr,
    );
  if (note) return { status: 'abbreviation', key: (note[1] as string).replaceAll('-', '_') };
  if (/ambiguous option|is not unique/.test(stderr)) return { status: 'ambiguous' };
  if (/unknown (variable|option)/.test(stderr)) return { status: 'unknown' };
  return { status: 'exact' };
}

describe('mycnf option names against mariadbd', () => {
  const cases: [line: string, key: string][] = [
    ['key_buffer = 16M', 'key_buffer_size'],
    ['sort_buffer = 1M', 'sort_buffer_size'],
    ['max_heap_table = 32M', 'max_heap_table_size'],
    ['myisam-recover = BACKUP', 'myisam_recover_options'],
    ['KEY_BUFFER = 2M', 'key_buffer_size'],
    ['skip-name', 'skip_name_resolve'],
    ['query_cache = 1', 'query_cache'],
    ['join_buffer = 1M', 'join_buffer'],
    ['log = 1', 'log'],
    ['skip-name-resolve', 'skip_name_resolve'],
    ['skip-external-locking', 'external_locking'],
    ['Skip-Innodb-File-Per-Table', 'innodb_file_per_table'],
    ['MAX_CONNECTIONS = 300', 'max_connections'],
    ['maximum-sort_buffer_size = 8M', 'sort_buffer_size'],
    ['innodb_buffer_pool_instances = 8', 'innodb_buffer_pool_instances'],
    ['thread_concurrency = 8', 'thread_concurrency'],
    ['table_cache = 512', 'table_open_cache'],
    ['tmp_memory_table_size = 32M', 'tmp_table_size'],
    ['log_slow_query_time = 5', 'long_query_time'],
    ['show_compatibility_56 = ON', 'show_compatibility_56'],
    ['set-variable = max_connections=15', 'set_variable'],
    ['log_slow_queries = /var/log/slow.log', 'log_slow_queries'],
    ['innodb_additional_mem_pool_size = 8M', 'innodb_additional_mem_pool_size'],
    ['skip-locking', 'locking'],
    ['loose-no-such-option = 1', 'no_such_option'],
    ['disable-log-bin', 'log_bin'],
  ];

  it('resolves names, abbreviations and prefixes as mariadbd 10.11 does', (t) => {
    const tool = requireTool(t, 'mariadbd');
    if (tool === undefined) return;
    assert.equal(serverSeries(tool), '10.11', "these are MariaDB 10.11 facts; .ci/run installs Debian 12's mariadb-server 10.11");
    const { dir, cleanup } = temporaryDirectory('names');
    try {
      for (const [line, key] of cases) {
        const raw = line.split('=')[0]?.trim() ?? line;
        const ours = resolveOptionName(raw, MARIADB_10_11);
        const server = serverVerdict(tool, dir, line);
        assert.equal(ours.status, server.status, `${line}: status`);
        if (server.key !== undefined) assert.equal(ours.name.key, server.key, `${line}: expanded name`);
        assert.equal(ours.name.key, key, `${line}: key`);
      }
    } finally {
      cleanup();
    }
  });
});
