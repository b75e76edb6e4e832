import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { VARIABLE_DEFAULTS, variableDefault, variableUnit, type DefaultValue } from '../../src/languages/mycnf/defaults.js';
import { loadMycnf } from '../../src/languages/mycnf/model.js';
import { parseServerSize } from '../../src/languages/mycnf/sizes.js';
import { fixtureTrees, MARIADB_10_11, materialise, temporaryDirectory } from '../helpers/mycnf-fixtures.js';
import { serverVariables, serverSeries } from '../helpers/mycnf-oracle.js';
import { requireTool } from '../helpers/tools.js';

/** How `mariadbd --help --verbose` prints a default of ours. */
function printed(value: DefaultValue): string {
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return String(value);
}

const NUMERIC = new Set(['bytes', 'count', 'seconds']);

describe('mycnf defaults', () => {
  it("follows MySQL's version history of the defaults", () => {
    const mysql = (version: string): { product: 'mysql'; version: string } => ({ product: 'mysql', version });
    assert.equal(variableDefault('sort_buffer_size', mysql('5.5')), 2 * 2 ** 20);
    assert.equal(variableDefault('sort_buffer_size', mysql('5.6')), 256 * 1024);
    assert.equal(variableDefault('query_cache_size', mysql('5.7')), 2 ** 20);
    assert.equal(variableDefault('query_cache_size', mysql('8.0')), undefined, 'removed in 8.0.3');
    assert.equal(variableDefault('query_cache_size', mysql('8.0.2')), 2 ** 20);
    assert.equal(variableDefault('max_allowed_packet', mysql('8.0')), 64 * 2 ** 20);
    assert.equal(variableDefault('innodb_redo_log_capacity', mysql('8.0.29')), undefined);
    assert.equal(variableDefault('innodb_redo_log_capacity', mysql('8.0.30')), 100 * 2 ** 20);
    assert.equal(variableDefault('table_definition_cache', mysql('5.6'), { tableOpenCache: 2000 }), 1400);
    assert.equal(variableDefault('thread_cache_size', mysql('5.7'), { maxConnections: 151 }), 9);
    assert.equal(variableDefault('back_log', mysql('8.0'), { maxConnections: 500 }), 500);
    assert.equal(variableDefault('innodb_io_capacity', mysql('8.4')), 10000);
  });

  it("records MariaDB's changes of the defaults", () => {
    assert.equal(variableDefault('innodb_log_file_size', { product: 'mariadb', version: '10.4' }), 48 * 2 ** 20);
    assert.equal(variableDefault('innodb_log_file_size', { product: 'mariadb', version: '10.5' }), 96 * 2 ** 20);
    assert.equal(variableDefault('query_cache_type', { product: 'mariadb', version: '10.0' }), 'ON');
    assert.equal(variableDefault('innodb_buffer_pool_instances', MARIADB_10_11), undefined);
  });
});

describe('mycnf defaults and sizes against mariadbd', () => {
  it('has the defaults mariadbd 10.11 prints with --no-defaults', (t) => {
    const tool = requireTool(t, 'mariadbd');
    if (tool === undefined) return;
    assert.equal(serverSeries(tool), '10.11', "these are MariaDB 10.11 facts; .ci/run installs Debian 12's mariadb-server 10.11");
    const server = serverVariables(tool, undefined, '/');
    assert.equal(server.status, 0, server.stderr);
    let compared = 0;
    for (const key of Object.keys(VARIABLE_DEFAULTS)) {
      const ours = variableDefault(key, MARIADB_10_11);
      const theirs = server.values.get(key);
      if (ours === undefined) {
        assert.equal(theirs, undefined, `${key}: mariadbd 10.11 has it (${theirs}), we say it does not exist`);
        continue;
      }
      assert.equal(printed(ours), theirs, key);
      compared++;
    }
    assert.ok(compared >= 30, `compared ${compared} defaults`);
  });

  it('autosizes thread_cache_size and back_log from max_connections as mariadbd does', (t) => {
    const tool = requireTool(t, 'mariadbd');
    if (tool === undefined) return;
    assert.equal(serverSeries(tool), '10.11', "these are MariaDB 10.11 facts; .ci/run installs Debian 12's mariadb-server 10.11");
    const { dir, cleanup } = temporaryDirectory('autosize');
    try {
      for (const connections of [10, 151, 500, 5000]) {
        const file = path.join(dir, 'my.cnf');
        fs.writeFileSync(file, `[mysqld]\nmax_connections = ${connections}\n`);
        const config = loadMycnf(file, { fs: new ConfigFileSystem({ cwd: dir }), target: MARIADB_10_11 });
        const server = serverVariables(tool, file, dir);
        for (const key of ['thread_cache_size', 'back_log']) {
          assert.equal(String(config.defaultOf(key)), server.values.get(key), `${key} at max_connections=${connections}`);
        }
      }
    } finally {
      cleanup();
    }
  });

  it('reads every memory and connection variable of every fixture to the value mariadbd prints', (t) => {
    const tool = requireTool(t, 'mariadbd');
    if (tool === undefined) return;
    assert.equal(serverSeries(tool), '10.11', "these are MariaDB 10.11 facts; .ci/run installs Debian 12's mariadb-server 10.11");
    let compared = 0;
    for (const tree of fixtureTrees().filter((candidate) => candidate.target.product === 'mariadb')) {
      const copy = materialise(tree);
      try {
        const config = loadMycnf(copy.main, { fs: new ConfigFileSystem({ cwd: copy.dir }), target: tree.target });
        if (config.startupError !== undefined) continue;
        const server = serverVariables(tool, copy.main, copy.dir);
        // An ambiguous option or a value the option parser refuses stops mariadbd before it prints the table.
        const refused = config.uses.flatMap((use) => {
          if (use.status === 'ambiguous') return ['ambiguous option'];
          if (!NUMERIC.has(variableUnit(use.name.key) ?? '') || use.value === undefined) return [];
          const result = parseServerSize(use.value, tree.target, use.name.key);
          return 'error' in result ? [result.error] : [];
        });
        if (refused.length > 0) {
          assert.equal(server.values.size, 0, `${tree.name}: mariadbd refuses it: ${refused[0]}`);
          assert.ok(
            refused.some((message) => server.stderr.includes(message)),
            `${tree.name}: mariadbd says one of ${refused.join(' | ')}\n${server.stderr}`,
          );
          continue;
        }
        assert.ok(server.values.size > 500, `${tree.name}: mariadbd printed its variables (${server.stderr.trim()})`);
        for (const key of Object.keys(VARIABLE_DEFAULTS)) {
          if (!NUMERIC.has(variableUnit(key) ?? '')) continue;
          const size = config.size(key);
          const theirs = server.values.get(key);
          if (size === undefined || theirs === undefined) continue;
          assert.equal(
            String(size.bytes),
            theirs,
            `${tree.name}: ${key} (${size.from === 'default' ? 'default' : `set to ${size.from.value}`})`,
          );
          compared++;
        }
      } finally {
        copy.cleanup();
      }
    }
    assert.ok(compared > 300, `compared ${compared} values`);
  });
});
