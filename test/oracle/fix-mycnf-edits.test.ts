import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import { applyFixes } from '../../src/fix/apply.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import {
  insertMycnfOption,
  planMycnfSetting,
  removeMycnfLine,
  renameMycnfOption,
  replaceMycnfSize,
  replaceMycnfValue,
  sizeInStyleOf,
} from '../../src/languages/mycnf/edits.js';
import { loadMycnf, type MycnfConfig, type MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { FIXTURES, MARIADB_10_11, MYSQL_8_0, materialise, temporaryDirectory } from '../helpers/mycnf-fixtures.js';
import { printDefaults } from '../helpers/mycnf-oracle.js';
import { requireTool } from '../helpers/tools.js';

/*
 * The option-file edit helpers on real option files: each edit is applied,
 * written, and read back by my_print_defaults (the server's own reader), so
 * "the value reads back as intended, and nothing else changed" is the
 * server's verdict, not ours.
 */

const MYSQL_5_7: DatabaseTarget = { product: 'mysql', version: '5.7' };
const M = 2 ** 20;
const G = 2 ** 30;

describe('sizeInStyleOf', () => {
  const cases: [string, number, DatabaseTarget, string | null][] = [
    ['256M', 512 * M, MARIADB_10_11, '512M'],
    ['256M', 2 * G, MARIADB_10_11, '2048M'],
    ['256M', 1.5 * G, MARIADB_10_11, '1536M'],
    ['256m', 768 * M, MARIADB_10_11, '768m'],
    ['1G', 1.5 * G, MARIADB_10_11, '1536M'],
    ['1G', 3 * G, MARIADB_10_11, '3G'],
    ['1G', 1000, MARIADB_10_11, '1000'],
    ['64K', 3 * 1024, MARIADB_10_11, '3K'],
    ['64K', 2 * G, MARIADB_10_11, '2097152K'],
    ['1M', 1536, MARIADB_10_11, '1536'],
    ['268435456', 512 * M, MARIADB_10_11, '536870912'],
    ['1T', 2 ** 41, MARIADB_10_11, '2T'],
    ['1G', 2 ** 41, MARIADB_10_11, '2048G'],
    ['1T', 2 ** 41, MYSQL_5_7, '2048G'],
    ['1T', 2 ** 41, MYSQL_8_0, '2T'],
    ['512MB', 256 * M, MARIADB_10_11, null],
    ['1.5G', G, MARIADB_10_11, null],
    ['', G, MARIADB_10_11, null],
    ['+1G', G, MARIADB_10_11, null],
    ['1G', -1, MARIADB_10_11, null],
    ['1G', 0.5, MARIADB_10_11, null],
  ];
  for (const [written, bytes, target, expected] of cases) {
    it(`${written || '(empty)'} -> ${bytes} on ${target.product} ${target.version}: ${expected ?? 'declined'}`, () => {
      assert.equal(sizeInStyleOf(written, bytes, target), expected);
    });
  }
});

let work: { dir: string; cleanup(): void };
before(() => {
  work = temporaryDirectory('edits');
});
after(() => work.cleanup());

let counter = 0;

/** One option file with this text, loaded as the server reads it. */
function single(text: string | Buffer, target: DatabaseTarget = MARIADB_10_11): { file: string; config: MycnfConfig } {
  const file = path.join(work.dir, `case-${++counter}.cnf`);
  fs.writeFileSync(file, text);
  fs.chmodSync(file, 0o644);
  return { file, config: load(file, target) };
}

function load(file: string, target: DatabaseTarget = MARIADB_10_11): MycnfConfig {
  return loadMycnf(file, { fs: new ConfigFileSystem({ cwd: path.dirname(file) }), target });
}

function use(config: MycnfConfig, key: string): MycnfOptionUse {
  const found = config.effective(key) ?? config.uses.find((candidate) => candidate.name.key === key);
  assert.ok(found !== undefined, `${key} is set`);
  return found;
}

/** Applies the edits and writes every file they touch; returns the new texts by real path. */
function write(edits: readonly TextEdit[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [real, { file, text }] of applyFixes([{ kind: 'tune', edits }])) {
    fs.writeFileSync(real, file.encode(text));
    out.set(real, text);
  }
  return out;
}

/** What the server's reader hands mysqld, one `--name=value` per line. */
function serverArguments(t: TestContext, file: string): string[] | undefined {
  const tool = requireTool(t, 'my_print_defaults');
  if (tool === undefined) return undefined;
  const run = printDefaults(tool, file, ['--mysqld'], path.dirname(file));
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.split('\n').filter((line) => line !== '');
}

describe('replaceMycnfSize / replaceMycnfValue', () => {
  it('keeps the quotes, the unit and the inline comment, and the reader reads the new size', (t) => {
    const { file, config } = single('[mysqld]\ninnodb_buffer_pool_size = "256M"   # about half the RAM\nmax_connections=100\n');
    const edit = replaceMycnfSize(use(config, 'innodb_buffer_pool_size'), 768 * M, config.target);
    assert.ok(edit !== null);
    const text = write([edit]).get(file);
    assert.equal(text, '[mysqld]\ninnodb_buffer_pool_size = "768M"   # about half the RAM\nmax_connections=100\n');
    assert.deepEqual(serverArguments(t, file) ?? [], ['--innodb_buffer_pool_size=768M', '--max_connections=100']);
  });

  it('keeps CRLF around the value (a BOM cannot be there: the reader refuses any option file that starts with one)', (t) => {
    const { file, config } = single('# tuned\r\n[client]\r\nport = 3306\r\n[mysqld]\r\nkey_buffer_size\t= 16M\r\n');
    const edit = replaceMycnfSize(use(config, 'key_buffer_size'), 8 * M, config.target);
    assert.ok(edit !== null);
    write([edit]);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('# tuned\r\n[client]\r\nport = 3306\r\n[mysqld]\r\nkey_buffer_size\t= 8M\r\n'));
    const args = serverArguments(t, file);
    if (args !== undefined) assert.deepEqual(args, ['--key_buffer_size=8M']);
  });

  it('writes a string bare when it reads back bare, else quoted with escapes, and the reader agrees', (t) => {
    const { file, config } = single(
      "[mysqld]\nbind-address = 127.0.0.1 # local only\nsql_mode = 'STRICT_TRANS_TABLES'\ninit_connect = x\n",
    );
    const edits = [
      replaceMycnfValue(use(config, 'bind_address'), '0.0.0.0'),
      replaceMycnfValue(use(config, 'sql_mode'), "it's # not a comment"),
      replaceMycnfValue(use(config, 'init_connect'), 'SET NAMES utf8mb4 # x \\ y'),
    ];
    assert.ok(edits.every((edit) => edit !== null));
    const text = write(edits).get(file);
    assert.equal(
      text,
      "[mysqld]\nbind-address = 0.0.0.0 # local only\nsql_mode = 'it\\'s # not a comment'\ninit_connect = \"SET NAMES utf8mb4 # x \\\\ y\"\n",
    );
    const args = serverArguments(t, file);
    if (args !== undefined) {
      assert.deepEqual(args, ['--bind-address=0.0.0.0', "--sql_mode=it's # not a comment", '--init_connect=SET NAMES utf8mb4 # x \\ y']);
    }
  });

  it('declines values it cannot read for sure, lines the reader sees differently, and skip- forms', () => {
    const { config } = single(
      `[mysqld]\ninnodb_log_buffer_size = 512MB\nsort_buffer_size = 1.5G\njoin_buffer_size =\nread_buffer_size = 1\\M\nskip-external-locking\ninit_file = ${'x'.repeat(5000)}\n`,
    );
    const target = config.target;
    assert.equal(replaceMycnfSize(use(config, 'innodb_log_buffer_size'), M, target), null, '512MB: the suffix is followed by text');
    assert.equal(replaceMycnfSize(use(config, 'sort_buffer_size'), M, target), null, '1.5G: not an integer');
    assert.equal(replaceMycnfSize(use(config, 'join_buffer_size'), M, target), null, 'empty value');
    assert.equal(replaceMycnfSize(use(config, 'read_buffer_size'), M, target), null, 'an escape in the value');
    assert.equal(replaceMycnfValue(use(config, 'external_locking'), 'ON'), null, 'a flag without a value');
    assert.equal(planMycnfSetting(config, 'external_locking', 'ON'), null, 'skip- sets the opposite of its value');
    assert.equal(replaceMycnfValue(use(config, 'init_file'), 'y'), null, 'a line the reader cuts at 4094 bytes');
    const nul = single('[mysqld]\nmax_connections = 10\0 0\n').config;
    assert.equal(replaceMycnfValue(use(nul, 'max_connections'), '20'), null, 'a NUL byte');
    const plain = single('[mysqld]\nmax_connections = 10\n').config;
    assert.equal(replaceMycnfValue(use(plain, 'max_connections'), 'a\nb'), null, 'a line break in the new value');
  });
});

describe('renameMycnfOption', () => {
  it('keeps dashes, the loose- prefix, upper case, and the = column under spaces and tabs', (t) => {
    const { file, config } = single(
      '[mysqld]\nkey-buffer       = 16M\nloose-thread_cache = 8\nTABLE_CACHE\t\t= 64\nmyisam-recover\t= BACKUP\nsort_buffer=2M\n',
    );
    const edits = [
      renameMycnfOption(use(config, 'key_buffer_size'), 'key_buffer_size'),
      renameMycnfOption(use(config, 'thread_cache_size'), 'thread_cache_size'),
      renameMycnfOption(config.uses.find((candidate) => candidate.line.rawName === 'TABLE_CACHE') as MycnfOptionUse, 'table_open_cache'),
      renameMycnfOption(use(config, 'myisam_recover_options'), 'myisam_recover_options'),
      renameMycnfOption(use(config, 'sort_buffer_size'), 'sort_buffer_size'),
    ];
    assert.ok(edits.every((edit) => edit !== null));
    assert.equal(
      write(edits).get(file),
      '[mysqld]\nkey-buffer-size  = 16M\nloose-thread_cache_size = 8\nTABLE_OPEN_CACHE\t= 64\nmyisam-recover-options\t= BACKUP\nsort_buffer_size=2M\n',
    );
    const args = serverArguments(t, file);
    if (args !== undefined) {
      assert.deepEqual(args, [
        '--key-buffer-size=16M',
        '--loose-thread_cache_size=8',
        '--TABLE_OPEN_CACHE=64',
        '--myisam-recover-options=BACKUP',
        '--sort_buffer_size=2M',
      ]);
    }
  });
});

describe('removeMycnfLine', () => {
  it('removes the whole line with its line ending, and on a last line without one the ending before it', (t) => {
    const { file, config } = single('[mysqld]\r\nquery_cache_size = 0\r\nmax_connections = 15\r\nquery_cache_type = 0');
    const edits = [removeMycnfLine(use(config, 'query_cache_size')), removeMycnfLine(use(config, 'query_cache_type'))];
    assert.ok(edits.every((edit) => edit !== null));
    assert.equal(write(edits).get(file), '[mysqld]\r\nmax_connections = 15');
    const args = serverArguments(t, file);
    if (args !== undefined) assert.deepEqual(args, ['--max_connections=15']);
  });

  it('keeps the line ending of an !include that would become the last line (found by the long fuzz run)', () => {
    // The server reads a last !include line without a line ending without its last character: a.cn.
    const { file, config } = single('[mysqld]\n!include conf.d/a.cnf\nquery_cache_size = 64M');
    const edit = removeMycnfLine(use(config, 'query_cache_size'));
    assert.ok(edit !== null);
    assert.equal(write([edit]).get(file), '[mysqld]\n!include conf.d/a.cnf\n');
  });

  it('declines a line whose inline comment would be lost', () => {
    const { config } = single('[mysqld]\nquery_cache_size = 0 # see ticket 42\n');
    assert.equal(removeMycnfLine(use(config, 'query_cache_size')), null);
  });
});

describe('insertMycnfOption', () => {
  it('Debian fixture: goes after the commented-out line for the same option in 50-server.cnf [mysqld], as an admin uncomments it', (t) => {
    const tree = materialise({
      name: 'debian',
      dir: path.join(FIXTURES, 'debian'),
      main: 'etc/mysql/my.cnf',
      sysroot: true,
      target: MARIADB_10_11,
    });
    try {
      uncommentsTemplate(
        t,
        tree.main,
        path.join(tree.dir, 'etc/mysql/mariadb.conf.d/50-server.cnf'),
        'log_error',
        '/var/log/mysql/mariadb.err',
      );
    } finally {
      tree.cleanup();
    }
  });

  it('installed Debian /etc/mysql (copied): an option Debian ships commented out goes after its "#name = value" line', (t) => {
    const server = '/etc/mysql/mariadb.conf.d/50-server.cnf';
    if (!fs.existsSync(server) || !fs.existsSync('/etc/mysql/my.cnf')) {
      t.skip('no installed Debian MariaDB configuration in /etc/mysql');
      return;
    }
    const root = fs.mkdtempSync(path.join(work.dir, 'etc-'));
    // Only the option files my.cnf reads: debian.cnf holds a password and is never copied.
    for (const relative of ['mariadb.cnf', 'conf.d', 'mariadb.conf.d']) {
      fs.cpSync(path.join('/etc/mysql', relative), path.join(root, 'etc/mysql', relative), { recursive: true, verbatimSymlinks: true });
    }
    fs.mkdirSync(path.join(root, 'etc/alternatives'));
    fs.symlinkSync('/etc/mysql/mariadb.cnf', path.join(root, 'etc/alternatives/my.cnf'));
    fs.symlinkSync('/etc/alternatives/my.cnf', path.join(root, 'etc/mysql/my.cnf'));
    const tree = materialise({ name: 'installed', dir: root, main: 'etc/mysql/my.cnf', sysroot: true, target: MARIADB_10_11 });
    try {
      const serverFile = path.join(tree.dir, 'etc/mysql/mariadb.conf.d/50-server.cnf');
      // The stock file comments out max_connections, key_buffer_size...; whichever this host has not set since.
      const config = load(tree.main);
      const template = fs
        .readFileSync(serverFile, 'utf8')
        .split('\n')
        .map((line) => /^#([a-z_]+)\s*=\s*(\S+)$/.exec(line))
        .find((match) => match !== null && config.effective(match[1] as string) === undefined);
      if (template === undefined || template === null) {
        t.skip('every option 50-server.cnf comments out is set on this host');
        return;
      }
      uncommentsTemplate(t, tree.main, serverFile, template[1] as string, template[2] as string);
    } finally {
      tree.cleanup();
    }
  });

  it('story: goes after the last option of [mysqld], aligned like it, in the file the server reads it from', (t) => {
    const tree = materialise({
      name: 'story',
      dir: path.join(FIXTURES, 'story'),
      main: 'etc/mysql/my.cnf',
      sysroot: true,
      target: MARIADB_10_11,
    });
    try {
      const config = load(tree.main);
      const before = serverArguments(t, tree.main);
      const plan = insertMycnfOption(config, 'innodb_buffer_pool_size', '64M');
      assert.ok(plan !== null);
      const original = fs.readFileSync(tree.main, 'utf8').split('\n');
      const last = original.findIndex((line) => line.startsWith('max_binlog_size'));
      assert.equal(plan.where, `my.cnf:${last + 2}`);
      write([plan.edit]);
      const now = fs.readFileSync(tree.main, 'utf8').split('\n');
      assert.equal(original[last], 'max_binlog_size         = 100M');
      assert.equal(now[last + 1], 'innodb_buffer_pool_size = 64M');
      assert.deepEqual([...now.slice(0, last + 1), ...now.slice(last + 2)], original);
      const afterArgs = serverArguments(t, tree.main);
      if (before !== undefined && afterArgs !== undefined) {
        const index = before.indexOf('--max_binlog_size=100M');
        assert.deepEqual(afterArgs, [...before.slice(0, index + 1), '--innodb_buffer_pool_size=64M', ...before.slice(index + 1)]);
      }
    } finally {
      tree.cleanup();
    }
  });

  it("copies the neighbour's dashes, tabs and CRLF, and a last line without a line ending keeps having none", () => {
    const { file, config } = single('[mysqld]\r\nmax-allowed-packet\t= 16M\r\nskip-name-resolve');
    const plan = insertMycnfOption(config, 'max_connections', '15');
    assert.ok(plan !== null);
    assert.equal(write([plan.edit]).get(file), '[mysqld]\r\nmax-allowed-packet\t= 16M\r\nskip-name-resolve\r\nmax-connections\t\t= 15');
  });

  it('prefers [mysqld] to [server] and [mariadb], and never uses [client-server] or a versioned group', (t) => {
    const { file, config } = single(
      '[client-server]\nsocket = /run/mysqld/mysqld.sock\n[mysqld]\nport = 3306\n[mariadb-10.11]\nlocal_infile = 0\n[server]\n',
    );
    const plan = insertMycnfOption(config, 'max_connections', '15');
    assert.ok(plan !== null);
    assert.equal(plan.where, `${path.basename(file)}:5`);
    write([plan.edit]);
    const args = serverArguments(t, file);
    if (args !== undefined)
      assert.deepEqual(args, ['--socket=/run/mysqld/mysqld.sock', '--port=3306', '--max_connections=15', '--local_infile=0']);
  });

  it('appends a [mysqld] section to the main file when no server section exists', (t) => {
    const { file, config } = single('[client]\nuser = app\n');
    const plan = insertMycnfOption(config, 'max_connections', '15');
    assert.ok(plan !== null);
    assert.equal(plan.where, `${path.basename(file)}:5`);
    assert.equal(write([plan.edit]).get(file), '[client]\nuser = app\n\n[mysqld]\nmax_connections = 15\n');
    const args = serverArguments(t, file);
    if (args !== undefined) assert.deepEqual(args, ['--max_connections=15']);
  });

  it('declines when the server refuses the config (the reader stops, so later sections are unknown)', () => {
    const { config } = single('max_connections = 10\n[mysqld]\nport = 3306\n');
    assert.notEqual(config.startupError, undefined);
    assert.equal(insertMycnfOption(config, 'max_connections', '15'), null);
  });
});

/**
 * Inserts `key = value` into a tree whose [mysqld] in `serverFile` has a
 * commented-out `#key = ...` line: the new line is that line uncommented with
 * the new value, every other line is unchanged, and the reader hands the
 * server exactly one more argument.
 */
function uncommentsTemplate(t: TestContext, main: string, serverFile: string, key: string, value: string): void {
  const config = load(main);
  assert.equal(config.effective(key), undefined, `${key} is not set yet`);
  const before = serverArguments(t, main);
  const plan = insertMycnfOption(config, key, value);
  assert.ok(plan !== null);
  const original = fs.readFileSync(serverFile, 'utf8').split('\n');
  const commented = original.findLastIndex((line) => new RegExp(`^#${key}\\s*=`).test(line));
  assert.ok(commented > 0, `${serverFile} has a commented-out ${key} line`);
  assert.equal(plan.where, `${path.relative(path.dirname(main), fs.realpathSync(serverFile))}:${commented + 2}`);
  write([plan.edit]);
  const now = fs.readFileSync(serverFile, 'utf8').split('\n');
  const template = original[commented] as string;
  const uncommented = `${template.slice(1, template.indexOf('=') + 1)}${/=(\s*)/.exec(template)?.[1] ?? ''}${value}`;
  assert.deepEqual(now, [...original.slice(0, commented + 1), uncommented, ...original.slice(commented + 1)]);
  const afterArgs = serverArguments(t, main);
  if (before !== undefined && afterArgs !== undefined) {
    const added = afterArgs.filter((arg) => !before.includes(arg));
    assert.deepEqual(added, [`--${key}=${value}`]);
    assert.deepEqual(
      afterArgs.filter((arg) => arg !== added[0]),
      before,
    );
  }
}

describe('planMycnfSetting', () => {
  it('edits the line in effect, in the included file that sets it last, in its own unit', (t) => {
    const tree = materialise({
      name: 'debian',
      dir: path.join(FIXTURES, 'debian'),
      main: 'etc/mysql/my.cnf',
      sysroot: true,
      target: MARIADB_10_11,
    });
    try {
      const config = load(tree.main);
      const effective = config.effective('innodb_buffer_pool_size');
      assert.ok(effective !== undefined, 'the Debian fixture sets innodb_buffer_pool_size');
      const plan = planMycnfSetting(config, 'innodb_buffer_pool_size', { bytes: 768 * M });
      assert.ok(plan !== null);
      assert.equal(plan.where, `${effective.file.displayPath}:${effective.file.position(effective.range[0]).line}`);
      write([plan.edit]);
      const args = serverArguments(t, tree.main);
      if (args !== undefined)
        assert.equal(args.filter((arg) => /^--innodb[-_]buffer[-_]pool[-_]size=/.test(arg)).pop(), `--${effective.line.rawName}=768M`);
    } finally {
      tree.cleanup();
    }
  });

  it('inserts a size it has to write itself in the largest exact unit', () => {
    const { file, config } = single('[mysqld]\nport = 3306\n');
    const plan = planMycnfSetting(config, 'innodb_buffer_pool_size', { bytes: 1.5 * G });
    assert.ok(plan !== null);
    assert.equal(write([plan.edit]).get(file), '[mysqld]\nport = 3306\ninnodb_buffer_pool_size = 1536M\n');
  });
});
