import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigFileSystem } from '../../src/core/file-system.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { serverGroups } from '../../src/languages/mycnf/groups.js';
import { loadMycnf, type MycnfConfig } from '../../src/languages/mycnf/model.js';
import { legacySetVariable } from '../../src/languages/mycnf/names.js';
import { dumpMycnfConfig } from '../../src/languages/mycnf/dump.js';
import { FIXTURES, MARIADB_10_11, MYSQL_8_0, temporaryDirectory } from '../helpers/mycnf-fixtures.js';

function layout(name: string, main: string, target: DatabaseTarget): MycnfConfig {
  const dir = path.join(FIXTURES, name);
  return loadMycnf(main, { fs: new ConfigFileSystem({ cwd: dir, sysroot: dir }), target });
}

function reader(name: string, target: DatabaseTarget = MARIADB_10_11): MycnfConfig {
  const dir = path.join(FIXTURES, 'reader', name);
  return loadMycnf('my.cnf', { fs: new ConfigFileSystem({ cwd: dir }), target });
}

function lineOf(config: MycnfConfig, key: string): string | undefined {
  const use = config.effective(key);
  return use === undefined ? undefined : `${use.file.displayPath}:${use.file.position(use.range[0]).line}`;
}

function problems(config: MycnfConfig): string[] {
  return config.problems.map(
    (problem) => `${problem.ruleId} ${problem.severity} ${problem.file.displayPath}:${problem.file.position(problem.range[0]).line}`,
  );
}

const MIB = 2 ** 20;

describe('mycnf model: groups the server reads', () => {
  it('lists the groups of each product and version', () => {
    assert.deepEqual(serverGroups({ product: 'mysql', version: '5.5' }), ['mysqld', 'server', 'mysqld-5.5']);
    assert.deepEqual(serverGroups({ product: 'mysql', version: '8.4.2' }), ['mysqld', 'server', 'mysqld-8.4']);
    assert.deepEqual(serverGroups(MARIADB_10_11), [
      'mysqld',
      'server',
      'mysqld-10.11',
      'mariadb',
      'mariadb-10.11',
      'mariadbd',
      'mariadbd-10.11',
      'client-server',
      'galera',
    ]);
    assert.deepEqual(serverGroups({ product: 'mariadb', version: '10.3' }), [
      'mysqld',
      'server',
      'mysqld-10.3',
      'mariadb',
      'mariadb-10.3',
      'client-server',
      'galera',
    ]);
    assert.deepEqual(serverGroups({ product: 'mariadb', version: '10.0' }), [
      'mysqld',
      'server',
      'mysqld-10.0',
      'mariadb',
      'mariadb-10.0',
      'client-server',
    ]);
    assert.ok(serverGroups({ product: 'mariadb', version: '11.4' }).includes('mariadbd-11.4'));
    assert.deepEqual(serverGroups({ product: 'mysql', version: '8.0' }, '.1'), [
      'mysqld',
      'server',
      'mysqld-8.0',
      'mysqld.1',
      'server.1',
      'mysqld-8.0.1',
    ]);
  });

  it('reads groups case-insensitively and never reads [ mysqld ]', () => {
    const dir = path.join(FIXTURES, 'parser');
    const config = loadMycnf('groups.cnf', { fs: new ConfigFileSystem({ cwd: dir }), target: MARIADB_10_11 });
    assert.equal(config.effective('max_connections')?.group, 'MYSQLD');
    assert.equal(config.effective('max_connections')?.value, '120');
    assert.ok(config.otherOptions.some((use) => use.group === ' mysqld' && use.value === '999'));
    assert.equal(config.effective('sort_buffer_size')?.group, 'mysqld-10.11');
    assert.ok(config.otherOptions.some((use) => use.group === 'mysqld-8.0'));
    const mysql = loadMycnf('groups.cnf', { fs: new ConfigFileSystem({ cwd: dir }), target: MYSQL_8_0 });
    assert.equal(mysql.effective('sort_buffer_size')?.group, 'mysqld-8.0');
    assert.equal(mysql.effective('join_buffer_size'), undefined, '[mariadb] is not a MySQL group');
    assert.equal(mysql.effective('wsrep_on'), undefined);
  });
});

describe('mycnf model: the Debian layout', () => {
  const config = layout('debian', 'etc/mysql/my.cnf', MARIADB_10_11);

  it('reads my.cnf through its symlinks, then conf.d and mariadb.conf.d in name order (with two plugin packages)', () => {
    assert.deepEqual(
      config.files.map((entry) => [entry.source.displayPath, entry.depth, entry.via]),
      [
        ['etc/mysql/my.cnf', 0, 'root'],
        ['etc/mysql/conf.d/mysql.cnf', 1, 'includedir'],
        ['etc/mysql/conf.d/mysqldump.cnf', 1, 'includedir'],
        ['etc/mysql/mariadb.conf.d/50-client.cnf', 1, 'includedir'],
        ['etc/mysql/mariadb.conf.d/50-mysql-clients.cnf', 1, 'includedir'],
        ['etc/mysql/mariadb.conf.d/50-mysqld_safe.cnf', 1, 'includedir'],
        ['etc/mysql/mariadb.conf.d/50-server.cnf', 1, 'includedir'],
        ['etc/mysql/mariadb.conf.d/60-galera.cnf', 1, 'includedir'],
        ['etc/mysql/mariadb.conf.d/provider_bzip2.cnf', 1, 'includedir'],
        ['etc/mysql/mariadb.conf.d/spider.cnf', 1, 'includedir'],
      ],
    );
    assert.equal(config.root.patchPath, 'etc/mysql/mariadb.cnf');
    assert.equal(config.files[1]?.includedFrom?.line, 13);
    assert.deepEqual(config.problems, []);
    assert.equal(config.startupError, undefined);
  });

  it('knows the plugins the packages load and their options', () => {
    assert.deepEqual(config.plugins, [{ library: 'provider_bzip2' }, { library: 'ha_spider' }]);
    const provider = config.effective('provider_bzip2');
    assert.ok(provider !== undefined);
    assert.equal(provider.status, 'plugin');
    assert.deepEqual(provider.plugin, { library: 'provider_bzip2' });
  });

  it('knows the effective options, where each is set, and the defaults of the rest', () => {
    assert.equal(lineOf(config, 'socket'), 'etc/mysql/my.cnf:10');
    assert.equal(lineOf(config, 'max_connections'), 'etc/mysql/mariadb.conf.d/50-server.cnf:21');
    assert.equal(lineOf(config, 'character_set_server'), 'etc/mysql/mariadb.conf.d/50-server.cnf:30');
    assert.deepEqual(config.size('innodb_buffer_pool_size')?.bytes, 512 * MIB);
    assert.equal(config.size('sort_buffer_size')?.from, 'default');
    assert.equal(config.size('sort_buffer_size')?.bytes, 2 * MIB);
    assert.equal(config.defaultOf('thread_cache_size'), 120, 'autosized from max_connections');
    assert.ok(config.otherOptions.some((use) => use.group === 'client' && use.name.key === 'default_character_set'));
    assert.ok(config.uses.every((use) => use.context[0] === `[${use.group}]`));
  });

  it('dumps files, options, effective values and defaults as stable JSON', () => {
    const dump = dumpMycnfConfig(config) as Record<string, unknown>;
    assert.deepEqual(Object.keys(dump), [
      'version',
      'language',
      'root',
      'target',
      'files',
      'groups',
      'options',
      'effective',
      'defaults',
      'problems',
    ]);
    assert.equal(JSON.stringify(dumpMycnfConfig(config)), JSON.stringify(dump));
    assert.deepEqual(dump.target, { product: 'mariadb', version: '10.11' });
    assert.deepEqual((dump.files as unknown[])[1], {
      path: 'etc/mysql/conf.d/mysql.cnf',
      depth: 1,
      includedFrom: { file: 'etc/mysql/my.cnf', line: 13 },
    });
    const effective = dump.effective as Record<string, Record<string, unknown>>;
    assert.deepEqual(effective.key_buffer_size, {
      value: '32M',
      bytes: 32 * MIB,
      file: 'etc/mysql/mariadb.conf.d/50-server.cnf',
      line: 16,
      group: 'mysqld',
    });
    assert.deepEqual(Object.keys(effective), [...Object.keys(effective)].sort());
    const defaults = dump.defaults as Record<string, unknown>;
    assert.equal(defaults.sort_buffer_size, 2 * MIB);
    assert.equal(defaults.max_connections, undefined, 'set, so not a default');
    const options = dump.options as Record<string, unknown>[];
    assert.deepEqual(options[0], {
      name: 'socket',
      key: 'socket',
      group: 'client-server',
      value: '/run/mysqld/mysqld.sock',
      file: 'etc/mysql/my.cnf',
      line: 10,
      effective: true,
    });
  });
});

describe('mycnf model: the RHEL layout on MySQL 8.0', () => {
  const config = layout('rhel', 'etc/my.cnf', MYSQL_8_0);

  it('reads the versioned group and lets my.cnf.d override my.cnf', () => {
    assert.deepEqual(config.serverGroups, ['mysqld', 'server', 'mysqld-8.0']);
    assert.equal(config.size('innodb_redo_log_capacity')?.bytes, 512 * MIB);
    assert.equal(lineOf(config, 'log_error'), 'etc/my.cnf.d/mysql-server.cnf:5');
    assert.equal(
      config.uses
        .filter((use) => use.name.key === 'log_error')
        .map((use) => use.effective)
        .join(),
      'false,true',
    );
    assert.equal(config.size('max_connections')?.bytes, 300);
    assert.equal(config.size('thread_stack')?.bytes, MIB, 'MySQL 8.0 default');
    assert.equal(config.defaultOf('back_log'), 300, 'MySQL 8.0: back_log = max_connections');
  });
});

describe('mycnf model: the tuning story', () => {
  it('sees set-variable as what it is on every current server: an unknown option', () => {
    const config = layout('story', 'etc/mysql/my.cnf', MARIADB_10_11);
    const legacy = config.uses.filter((use) => use.name.key === 'set_variable');
    assert.equal(legacy.length, 5);
    assert.ok(legacy.every((use) => use.status === 'unknown'));
    assert.deepEqual(
      legacy.map((use) => {
        const meant = legacySetVariable(use.name, use.value);
        return `${meant?.name.key}=${meant?.value}`;
      }),
      ['max_connections=15', 'max_user_connections=15', 'query_cache_limit=16M', 'query_cache_size=64M', 'query_cache_type=1'],
    );
    assert.equal(config.effective('max_connections'), undefined);
    assert.equal(config.size('max_connections')?.from, 'default');
  });

  it('expands the classic abbreviations where the target does', () => {
    const mariadb = layout('story', 'etc/mysql/my.cnf', MARIADB_10_11);
    assert.equal(mariadb.size('key_buffer_size')?.bytes, 16 * MIB);
    assert.equal(mariadb.effective('key_buffer_size')?.name.abbreviation, 'key_buffer');
    assert.equal(mariadb.effective('myisam_recover_options')?.value, 'BACKUP');
    assert.equal(mariadb.size('thread_stack')?.bytes, 128 * 1024);
    assert.ok(mariadb.otherOptions.some((use) => use.group === 'isamchk'));
    const old = layout('story', 'etc/mysql/my.cnf', { product: 'mysql', version: '5.5' });
    assert.equal(old.size('key_buffer_size')?.bytes, 16 * MIB);
    const current = layout('story', 'etc/mysql/my.cnf', MYSQL_8_0);
    assert.equal(current.uses.find((use) => use.name.raw === 'key_buffer')?.status, 'abbreviation-refused');
    assert.equal(current.size('key_buffer_size')?.from, 'default');
  });
});

describe('mycnf model: bad input', () => {
  it('reports an include cycle once and still reads what the server reads', () => {
    const config = reader('include-cycle');
    assert.deepEqual(problems(config), ['TL0006 error b.cnf:3', 'TL0006 warn b.cnf:3']);
    assert.match(config.problems[0]?.message ?? '', /include cycle a\.cnf -> b\.cnf -> a\.cnf/);
    assert.equal(config.files.length, 11);
    // The deepest round (b.cnf at depth 10) sets max_connections last.
    assert.equal(config.effective('max_connections')?.value, '20');
    assert.equal(config.effective('wait_timeout')?.file.displayPath, 'a.cnf');
  });

  it('warns about a missing !include and reads on', () => {
    const config = reader('missing-include');
    assert.deepEqual(problems(config), ['TL0002 warn my.cnf:3', 'TL0002 warn my.cnf:4']);
    assert.match(config.problems[0]?.message ?? '', /no such file .*working directory/);
    assert.equal(config.effective('wait_timeout')?.value, '600');
  });

  it('stops the server at a missing !includedir in the file given', () => {
    const config = reader('missing-includedir');
    assert.deepEqual(problems(config), ['TL0002 error my.cnf:3']);
    assert.equal(config.startupError, config.problems[0]);
    assert.match(
      config.startupError?.message ?? '',
      /refuses to start: Can't read dir of 'does-not-exist\.d' \(Errcode: 2 "No such file or directory"\)$/,
    );
    assert.equal(config.effective('wait_timeout'), undefined);
  });

  it('skips only the rest of an included file at its reader error', () => {
    const config = reader('nested-errors');
    assert.deepEqual(problems(config), [
      'MY1001 error bad-group.cnf:3',
      'MY1001 error no-group.cnf:2',
      'MY1001 error bad-include.cnf:3',
      'TL0002 error bad-includedir.cnf:3',
    ]);
    assert.equal(config.startupError, undefined);
    for (const [key, value] of [
      ['sort_buffer_size', '1M'],
      ['read_buffer_size', '1M'],
      ['read_rnd_buffer_size', '1M'],
      ['wait_timeout', '600'],
    ]) {
      assert.equal(config.effective(key as string)?.value, value, key);
    }
    assert.equal(config.effective('join_buffer_size'), undefined);
    assert.match(
      config.problems[1]?.message ?? '',
      /^option "join_buffer_size" comes before any \[group\] header; the server reports "error: Found option without preceding group in config file: .*no-group\.cnf at line: 2" and ignores the rest of no-group\.cnf$/,
    );
  });

  it('follows includes 10 levels deep and no further, with the server warning', () => {
    const config = reader('include-depth');
    assert.equal(Math.max(...config.files.map((entry) => entry.depth)), 10);
    assert.equal(config.effective('init_connect')?.value, 'level 10');
    assert.deepEqual(problems(config), ['TL0006 warn level10.cnf:3']);
    assert.match(
      config.problems[0]?.message ?? '',
      /Warning: skipping '!include level11\.cnf' directive as maximum includerecursion level was reached in file .*level10\.cnf at line 3"$/,
    );
  });

  it('says the server refuses to start for each reader-fatal syntax, in its own words', () => {
    const dir = path.join(FIXTURES, 'parser');
    const load = (name: string): MycnfConfig => loadMycnf(name, { fs: new ConfigFileSystem({ cwd: dir }), target: MARIADB_10_11 });
    const expectations: [string, RegExp][] = [
      [
        'missing-bracket.cnf',
        /^group header "\[mysqld" has no closing "\]"; the server refuses to start: error: Wrong group definition in config file: .*missing-bracket\.cnf at line 1$/,
      ],
      [
        'option-before-group.cnf',
        /^option "max_connections" comes before any \[group\] header; the server refuses to start: error: Found option without preceding group in config file: .* at line: 2$/,
      ],
      [
        'include-without-path.cnf',
        /^!include has no path; the server refuses to start: error: Wrong '!include' directive in config file: .* at line 3$/,
      ],
      ['bom.cnf', /byte order mark, which the server reads as part of line 1, .*refuses to start/],
    ];
    for (const [name, message] of expectations) {
      const config = load(name);
      assert.equal(config.startupError?.ruleId, 'MY1001', name);
      assert.match(config.startupError.message, message, name);
    }
    const mysql = loadMycnf('option-before-group.cnf', { fs: new ConfigFileSystem({ cwd: dir }), target: MYSQL_8_0 });
    assert.match(mysql.startupError?.message ?? '', /Found option without preceding group in config file .* at line 2$/);
  });

  it('reports NUL bytes, lines beyond the read limit and characters the reader breaks', () => {
    const dir = path.join(FIXTURES, 'parser');
    const load = (name: string): MycnfConfig => loadMycnf(name, { fs: new ConfigFileSystem({ cwd: dir }), target: MARIADB_10_11 });
    assert.deepEqual(problems(load('nul.cnf')), ['TL0001 error nul.cnf:2', 'TL0001 error nul.cnf:3']);
    assert.deepEqual(problems(load('long-line.cnf')), ['TL0001 error long-line.cnf:3']);
    assert.match(
      load('long-line.cnf').problems[0]?.message ?? '',
      /^line is 4118 bytes long; the server reads at most 4094 bytes at a time/,
    );
    const utf8 = load('utf8.cnf');
    assert.deepEqual(problems(utf8), ['TL0001 error utf8.cnf:5']);
    assert.match(utf8.problems[0]?.message ?? '', /ends with "à", whose last UTF-8 byte 0xA0 the server takes for a blank/);
  });

  it('never throws on a missing, unreadable or odd file given as the root', () => {
    const { dir, cleanup } = temporaryDirectory('bad-root');
    try {
      const fileSystem = new ConfigFileSystem({ cwd: dir });
      const missing = loadMycnf('nope.cnf', { fs: fileSystem, target: MARIADB_10_11 });
      assert.deepEqual(problems(missing), ['TL0002 error nope.cnf:1']);
      assert.equal(missing.files.length, 0);
      fs.mkdirSync(path.join(dir, 'adir.cnf'));
      assert.match(loadMycnf('adir.cnf', { fs: fileSystem, target: MARIADB_10_11 }).problems[0]?.message ?? '', /is a directory/);
      fs.writeFileSync(path.join(dir, 'open.cnf'), '[mysqld]\nmax_connections = 5\n');
      fs.chmodSync(path.join(dir, 'open.cnf'), 0o666);
      const worldWritable = loadMycnf('open.cnf', { fs: fileSystem, target: MARIADB_10_11 });
      assert.match(worldWritable.problems[0]?.message ?? '', /world-writable \(mode 0666\); the server ignores it/);
      assert.equal(worldWritable.effective('max_connections'), undefined);
      if (spawnSync('mkfifo', [path.join(dir, 'pipe.cnf')]).status === 0) {
        fs.writeFileSync(path.join(dir, 'main.cnf'), '[mysqld]\n!include pipe.cnf\n!include adir.cnf\nmax_connections = 7\n');
        const odd = loadMycnf('main.cnf', { fs: fileSystem, target: MARIADB_10_11 });
        assert.deepEqual(problems(odd), ['TL0002 warn main.cnf:2', 'TL0002 warn main.cnf:3']);
        assert.match(odd.problems[1]?.message ?? '', /^!include adir\.cnf: is a directory; the server reads nothing from it$/);
        assert.equal(odd.effective('max_connections')?.value, '7');
      }
      fs.symlinkSync('loop.cnf', path.join(dir, 'loop.cnf'));
      fs.writeFileSync(path.join(dir, 'loops.cnf'), '[mysqld]\n!include loop.cnf\nmax_connections = 8\n');
      const loop = loadMycnf('loops.cnf', { fs: fileSystem, target: MARIADB_10_11 });
      assert.match(loop.problems[0]?.message ?? '', /!include loop\.cnf: .*too many levels of symbolic links/);
      assert.equal(loop.effective('max_connections')?.value, '8');
      fs.writeFileSync(path.join(dir, 'huge.cnf'), `[mysqld]\ninit_connect = "${'x'.repeat(2 * 1024 * 1024)}"\nmax_connections = 6\n`);
      const huge = loadMycnf('huge.cnf', { fs: fileSystem, target: MARIADB_10_11 });
      assert.deepEqual(problems(huge), ['TL0001 error huge.cnf:2']);
      assert.equal(huge.effective('max_connections')?.value, '6');
      if (process.getuid?.() !== 0) {
        fs.writeFileSync(path.join(dir, 'secret.cnf'), '[mysqld]\nmax_connections = 9\n');
        fs.chmodSync(path.join(dir, 'secret.cnf'), 0o000);
        fs.writeFileSync(path.join(dir, 'uses-secret.cnf'), '[mysqld]\n!include secret.cnf\n');
        assert.match(
          loadMycnf('uses-secret.cnf', { fs: fileSystem, target: MARIADB_10_11 }).problems[0]?.message ?? '',
          /cannot open it without a word$/,
        );
      }
    } finally {
      cleanup();
    }
  });

  it('keeps every message to one sentence without a final period', () => {
    const configs = ['include-cycle', 'missing-include', 'missing-includedir', 'nested-errors', 'include-depth'].map((name) =>
      reader(name),
    );
    for (const problem of configs.flatMap((config) => config.problems)) {
      assert.ok(!problem.message.endsWith('.'), problem.message);
      assert.ok(!problem.message.includes('\n'), problem.message);
    }
  });
});

describe('mycnf model: plugin libraries', () => {
  const load = (text: string): MycnfConfig => {
    const { dir, cleanup } = temporaryDirectory('plugins');
    try {
      fs.writeFileSync(path.join(dir, 'my.cnf'), text);
      return loadMycnf('my.cnf', { fs: new ConfigFileSystem({ cwd: dir }), target: MARIADB_10_11 });
    } finally {
      cleanup();
    }
  };
  it('plugin_load_add adds, plugin_load replaces, name=library loads that plugin alone', () => {
    const config = load(
      '[mysqld]\nplugin_load_add = disks\nplugin_load = ha_archive;BLACKHOLE=ha_blackhole.so\nplugin-load-add = server_audit.so\narchive = ON\nblackhole = ON\nserver_audit_logging = ON\ndisks = ON\n',
    );
    assert.deepEqual(config.plugins, [
      { library: 'ha_archive' },
      { library: 'ha_blackhole', plugin: 'blackhole' },
      { library: 'server_audit' },
    ]);
    const statuses = new Map(config.uses.map((use) => [use.name.key, use.status]));
    assert.deepEqual(
      ['archive', 'blackhole', 'server_audit_logging', 'disks'].map((key) => statuses.get(key)),
      ['plugin', 'plugin', 'plugin', 'unknown'],
    );
  });
  it('a plugin named in name=library owns only its own options; MySQL targets are left alone', () => {
    const config = load('[mysqld]\nplugin_load_add = SERVER_AUDIT=server_audit\nserver_audit_logging = ON\n');
    assert.equal(config.effective('server_audit_logging')?.status, 'plugin');
    const other = load('[mysqld]\nplugin_load_add = other=server_audit\nserver_audit_logging = ON\n');
    assert.equal(other.effective('server_audit_logging')?.status, 'unknown');
  });
});
