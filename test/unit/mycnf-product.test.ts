import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { loadMycnf } from '../../src/languages/mycnf/model.js';
import { inferDatabaseTarget } from '../../src/languages/mycnf/product.js';
import { temporaryDirectory } from '../helpers/host-fixtures.js';

const ASSUMED: DatabaseTarget = { product: 'mariadb', version: '10.11', assumed: true };

/** The target the option files show, read from a tree of them under a sysroot. */
function inferred(t: { after: (fn: () => void) => void }, files: Record<string, string>): DatabaseTarget | undefined {
  const { dir, remove } = temporaryDirectory('tune-lint-product-');
  t.after(remove);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const config = loadMycnf(path.join(dir, 'etc/mysql/my.cnf'), { fs: new ConfigFileSystem({ cwd: dir, sysroot: dir }), target: ASSUMED });
  return inferDatabaseTarget(config, ASSUMED);
}

describe('the database product, from the option files', () => {
  it("Ubuntu's mysql.conf.d layout is MySQL; the series it does not show is said to be taken", (t) => {
    const target = inferred(t, {
      '/etc/mysql/my.cnf': '!includedir /etc/mysql/conf.d/\n!includedir /etc/mysql/mysql.conf.d/\n',
      '/etc/mysql/conf.d/mysql.cnf': '[mysql]\n',
      '/etc/mysql/mysql.conf.d/mysqld.cnf': '[mysqld]\npid-file = /var/run/mysqld/mysqld.pid\n',
    });
    assert.deepEqual(target, {
      product: 'mysql',
      version: '8.0',
      inferredFrom: 'the mysql.conf.d directory; nothing shows the series, 8.0 taken',
    });
  });

  it('an option only 5.7 has names the series; [mariadb] names MariaDB, which keeps the version it was read with', (t) => {
    const fiveSeven = inferred(t, { '/etc/mysql/my.cnf': '[mysqld]\ninnodb_support_xa = 1\nlog_error_verbosity = 2\n' });
    assert.deepEqual([fiveSeven?.product, fiveSeven?.version], ['mysql', '5.7']);
    const mariadb = inferred(t, { '/etc/mysql/my.cnf': '[mysqld]\nport = 3306\n[mariadb]\nlog_warnings = 2\n' });
    assert.deepEqual([mariadb?.product, mariadb?.version, mariadb?.inferredFrom], ['mariadb', '10.11', '[mariadb] (etc/mysql/my.cnf:4)']);
  });

  it('infers nothing from options both products take, nor from slave_parallel_workers, which MariaDB takes as an alias', (t) => {
    assert.equal(inferred(t, { '/etc/mysql/my.cnf': '[mysqld]\nmax_connections = 100\nslave_parallel_workers = 4\n' }), undefined);
  });
});
