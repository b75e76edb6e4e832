import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTargetSpec } from '../../src/core/targets.js';
import { MYSQL_OPTION_LISTS } from '../../src/languages/mycnf/mysql-options.js';
import { isMariadbOnlyOption, mysqlOptionList, mysqlPluginOf } from '../../src/languages/mycnf/mysql-names.js';
import { resolveOptionName } from '../../src/languages/mycnf/options.js';

const target = (spec: string) => parseTargetSpec(spec).db;

describe('mycnf: the MySQL option lists (generated from MySQL 5.7.18 and 8.0.41 source)', () => {
  it('hold each series its own names: the options the server help filters out too', () => {
    const mysql57 = mysqlOptionList(target('mysql=5.7'));
    const mysql80 = mysqlOptionList(target('mysql=8.0.36'));
    assert.ok(mysql57 !== undefined && mysql80 !== undefined);
    for (const name of ['innodb_buffer_pool_size', 'innodb_lock_wait_timeout', 'ssl_ca', 'datadir', 'federated', 'skip_name_resolve']) {
      assert.ok(mysql57.has(name), `5.7: ${name}`);
      assert.ok(mysql80.has(name), `8.0: ${name}`);
    }
    assert.ok(mysql57.has('ignore_db_dir') && !mysql80.has('ignore_db_dir'), 'ignore-db-dir went with 8.0');
    assert.ok(mysql57.has('query_cache_size') && !mysql80.has('query_cache_size'));
    assert.ok(mysql80.has('innodb_redo_log_capacity') && mysql80.has('mysqlx_port') && !mysql57.has('mysqlx_port'));
    assert.equal(mysqlOptionList(target('mysql=8.4')), undefined, 'no list for 8.4');
  });

  it('are sorted, lower case and unique', () => {
    for (const { names } of Object.values(MYSQL_OPTION_LISTS)) {
      const list = names.trim().split(/\s+/);
      assert.deepEqual(list, [...new Set(list)].sort());
      assert.ok(list.every((name) => /^[a-z0-9_]+$/.test(name)));
    }
  });

  it('resolve names as MySQL >= 5.7 does: exact, a unique prefix refused, plugin names known by their plugin', () => {
    assert.equal(resolveOptionName('ignore-db-dir', target('mysql=5.7')).status, 'exact');
    assert.equal(resolveOptionName('skip-innodb_file_per_table', target('mysql=8.0')).status, 'exact');
    assert.equal(resolveOptionName('innodb_buffer_pool_siz', target('mysql=8.0')).status, 'abbreviation-refused');
    assert.equal(resolveOptionName('slow', target('mysql=8.0')).status, 'unknown', 'a prefix of several options is no option');
    assert.equal(resolveOptionName('validate_password.length', target('mysql=8.0')).status, 'unverified', 'component variables');
    assert.equal(mysqlPluginOf('rpl_semi_sync_master_enabled'), 'rpl_semi_sync_master');
    // 5.7 builds group_replication from rapid/, which its list is not read from; INSTALL PLUGIN loads it on every version.
    assert.equal(mysqlPluginOf('group_replication_start_on_boot'), 'group_replication');
  });

  it('know the MariaDB-only names, which MySQL after 8.0 refuses and before 5.7 is not judged on', () => {
    assert.ok(isMariadbOnlyOption('aria_pagecache_buffer_size') && isMariadbOnlyOption('innodb_defragment'));
    assert.ok(!isMariadbOnlyOption('innodb_buffer_pool_size') && !isMariadbOnlyOption('query_cache_size'));
    assert.equal(resolveOptionName('innodb_defragment', target('mysql=9.1')).status, 'unknown');
    assert.equal(resolveOptionName('innodb_defragment', target('mysql=5.6')).status, 'unverified');
    assert.equal(resolveOptionName('gtid_mode', target('mysql=9.1')).status, 'unverified');
  });
});
