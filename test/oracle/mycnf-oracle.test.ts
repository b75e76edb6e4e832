import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { loadMycnf, type MycnfConfig } from '../../src/languages/mycnf/model.js';
import { CORPUS, filesUnder, fixtureTrees, MARIADB_10_11, materialise, temporaryDirectory } from '../helpers/mycnf-fixtures.js';
import { ourArguments, printDefaults } from '../helpers/mycnf-oracle.js';
import { requireTool } from '../helpers/tools.js';

const MYSQL_GROUPS = ['mysqld', 'server', 'mysqld-8.0'];
const OTHER_GROUP_LISTS = [['client'], ['client', 'mysql', 'mysqldump'], ['mysqld_safe', 'safe_mysqld'], ['MYSQLD', 'galera'], [' mysqld']];

/**
 * Our reader and my_print_defaults agree on a file: the same arguments in the
 * same order, byte for byte, or both stop at a reader error (exit status 2).
 */
function assertAgrees(tool: string, file: string, cwd: string, target: DatabaseTarget, label: string): MycnfConfig {
  const config = loadMycnf(file, { fs: new ConfigFileSystem({ cwd }), target });
  const lists: (readonly string[] | undefined)[] = [undefined, ...OTHER_GROUP_LISTS];
  for (const groups of lists) {
    const serverGroups = groups ?? (target.product === 'mariadb' ? ['--mysqld'] : MYSQL_GROUPS);
    const oracle = printDefaults(tool, file, serverGroups, cwd);
    const what = `${label} [${serverGroups.join(' ')}]`;
    if (config.startupError !== undefined) {
      assert.equal(oracle.status, 2, `${what}: my_print_defaults stops too (${config.startupError.message})`);
      continue;
    }
    assert.equal(oracle.status, 0, `${what}: my_print_defaults reads it (${oracle.stderr.trim()})`);
    assert.equal(ourArguments(config, groups), oracle.stdout, `${what}: same arguments in the same order`);
  }
  return config;
}

describe('mycnf reader against my_print_defaults', () => {
  it('agrees on every fixture tree, including the Debian, RHEL and story layouts', (t) => {
    const tool = requireTool(t, 'my_print_defaults');
    if (tool === undefined) return;
    const trees = fixtureTrees();
    assert.ok(trees.length > 20);
    for (const tree of trees) {
      const copy = materialise(tree);
      try {
        const config = assertAgrees(tool, copy.main, copy.dir, tree.target, tree.name);
        if (tree.sysroot) {
          // The same tree read in place with --sysroot gives the same arguments.
          const inPlace = loadMycnf(tree.main, { fs: new ConfigFileSystem({ cwd: tree.dir, sysroot: tree.dir }), target: tree.target });
          assert.equal(ourArguments(inPlace), ourArguments(config), `${tree.name}: --sysroot reads the same files`);
          assert.equal(inPlace.files.length, config.files.length);
        }
      } finally {
        copy.cleanup();
      }
    }
  });

  it('agrees on the installed /etc/mysql tree', (t) => {
    const tool = requireTool(t, 'my_print_defaults');
    if (tool === undefined) return;
    if (!fs.existsSync('/etc/mysql/my.cnf')) {
      t.skip('/etc/mysql/my.cnf is not installed');
      return;
    }
    const config = assertAgrees(tool, '/etc/mysql/my.cnf', '/', MARIADB_10_11, '/etc/mysql/my.cnf');
    assert.ok(config.files.length > 1, 'the Debian tree includes its conf.d directories');
  });

  it('agrees on every file of the shared corpus', (t) => {
    const tool = requireTool(t, 'my_print_defaults');
    if (tool === undefined) return;
    if (!fs.existsSync(CORPUS)) {
      t.skip(`${CORPUS} is not present (it lives outside the repository)`);
      return;
    }
    for (const file of filesUnder(CORPUS)) assertAgrees(tool, file, path.dirname(file), MARIADB_10_11, path.relative(CORPUS, file));
  });

  it('agrees on random option files with includes, odd quoting, CRLF, BOM, NUL and non-ASCII bytes', (t) => {
    const tool = requireTool(t, 'my_print_defaults');
    if (tool === undefined) return;
    const { dir, cleanup } = temporaryDirectory('random');
    try {
      fs.writeFileSync(path.join(dir, 'other.cnf'), '[mysqld]\nfrom_other = 1\n[client]\nport = 3307\n');
      fs.mkdirSync(path.join(dir, 'conf.d'));
      fs.writeFileSync(path.join(dir, 'conf.d', 'a.cnf'), '[mysqld]\nfrom_dir = "a"\n');
      const header = fc.constantFrom('[mysqld]', '[ mysqld ]', '[MySQLd] junk', '[client]', '[mariadb-10.11]', '[galera]', '[mysqld', '[]');
      const name = fc.constantFrom('key_buffer_size', 'skip-name-resolve', 'a b', '', 'x#y', "it's", 'é', 'loose-x');
      const value = fc
        .array(fc.constantFrom('1', '16M', ' ', '\t', '"', "'", '#', ';', '\\', 'n', 's', '=', 'à', '\u00A0', '€', 'x'), { maxLength: 12 })
        .map((parts) => parts.join(''));
      const option = fc
        .tuple(fc.constantFrom('', '  ', '\t'), name, fc.constantFrom('=', ' = ', '\t=', ''), value)
        .map((parts) => parts.join(''));
      const directive = fc.constantFrom(
        '!include other.cnf',
        '!include missing.cnf',
        '!includedir conf.d',
        '!include',
        '!INCLUDE other.cnf',
        '!  include other.cnf  ',
        '!foo',
      );
      const comment = fc.constantFrom('# comment', '; comment', '   # indented', '#', '');
      const line = fc.oneof(
        { weight: 2, arbitrary: header },
        { weight: 6, arbitrary: option },
        { weight: 1, arbitrary: directive },
        { weight: 2, arbitrary: comment },
        { weight: 1, arbitrary: fc.constantFrom('\0', 'a=1\0b', '\r') },
      );
      const file = fc.record({
        lines: fc.array(line, { maxLength: 14 }),
        eol: fc.constantFrom('\n', '\r\n'),
        bom: fc.boolean(),
        finalNewline: fc.boolean(),
        latin1: fc.boolean(),
      });
      fc.assert(
        fc.property(file, (spec) => {
          const text = `${spec.bom ? '\uFEFF' : ''}[mysqld]${spec.eol}${spec.lines.join(spec.eol)}${spec.finalNewline ? spec.eol : ''}`;
          const main = path.join(dir, 'my.cnf');
          fs.writeFileSync(main, Buffer.from(text, spec.latin1 ? 'latin1' : 'utf8'));
          assertAgrees(tool, main, dir, MARIADB_10_11, JSON.stringify(text));
        }),
        { numRuns: 150 },
      );
    } finally {
      cleanup();
    }
  });
});
