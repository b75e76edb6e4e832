import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { jsonDiagnostics } from '../fuzz/child.js';
import { removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';
import { said } from '../helpers/rule-fixtures.js';

/*
 * With no --target and no target: in .tune-lint.yaml, the option files are
 * linted for an assumed MariaDB 10.11: a MySQL 8 host's
 * options are then no "refuses to start" error, and no safe fix deletes a
 * MySQL option MariaDB merely ignores.
 */

const dir = scratchDir('assumed-target');
after(() => removeScratch(dir));
writeFiles(dir, {
  // Percona Server's innodb_corrupt_table_action is in no MySQL or MariaDB option list: it names neither product.
  'my.cnf': '[mysqld]\ninnodb_corrupt_table_action = warn\ndefault_authentication_plugin = mysql_native_password\n',
  'mysql8.cnf': '[mysqld]\ngtid_mode = ON\nmysqlx-bind-address = 127.0.0.1\n',
  'both.cnf': '[mysqld]\ngtid_mode = ON\naria_pagecache_buffer_size = 64M\n',
  'redo.cnf': '[mysqld]\ninnodb_log_file_size = 256M\n',
  'mysql-host.yaml': 'ram: 2G\ndatabaseServer: mysql=8.0.36\n',
});

function findings(args: readonly string[], file = 'my.cnf'): { ruleId: string; severity: string; message: string }[] {
  return jsonDiagnostics(runCli(['--no-probe', '--format', 'json', ...args, file], { cwd: dir }).stdout).filter((diagnostic) =>
    diagnostic.ruleId.startsWith('MY'),
  );
}

describe('an assumed database target', () => {
  it('makes an option MariaDB lacks a warning that says how to set the target, and offers no fix removing a MySQL option', () => {
    const assumed = findings([]);
    const unknown = assumed.find((diagnostic) => diagnostic.ruleId === 'MY1006');
    assert.equal(unknown?.severity, 'warn');
    assert.match(said(unknown), /the assumed server, has no such option.*give --target mysql=8\.0/);
    const diff = runCli(['--no-probe', '--format', 'diff', 'my.cnf'], { cwd: dir });
    assert.doesNotMatch(diff.stdout, /^-default_authentication_plugin/m);
  });

  it("says once, in the host facts, that the server is assumed; a host's own server (a probe, a profile) names it", () => {
    const stylish = runCli(['--no-probe', 'my.cnf'], { cwd: dir }).stdout;
    assert.equal(stylish.split('database server MariaDB 10.11, assumed').length - 1, 1);
    const profiled = runCli(['--profile', 'mysql-host.yaml', '--format', 'json', 'redo.cnf'], { cwd: dir });
    const deprecated = jsonDiagnostics(profiled.stdout).find((diagnostic) => diagnostic.ruleId === 'MY4004');
    assert.match(deprecated?.message ?? '', /deprecated since MySQL 8\.0\.30/, 'linted for the MySQL 8.0.36 the profile names');
    const fromProfile = runCli(['--profile', 'mysql-host.yaml', 'redo.cnf'], { cwd: dir }).stdout;
    assert.match(fromProfile, /database server mysql=8\.0\.36 \(from profile mysql-host\.yaml\)/);
    assert.doesNotMatch(fromProfile, /assumed/);
    const overridden = runCli(['--profile', 'mysql-host.yaml', '--target', 'mariadb=10.11', '--format', 'json', 'redo.cnf'], { cwd: dir });
    assert.equal(jsonDiagnostics(overridden.stdout).filter((diagnostic) => diagnostic.ruleId === 'MY4004').length, 0, '--target wins');
  });

  it('named with --target mariadb=10.11, the same options are what they are on MariaDB: an error, and the no-op removed', () => {
    const named = findings(['--target', 'mariadb=10.11']);
    assert.equal(named.find((diagnostic) => diagnostic.ruleId === 'MY1006')?.severity, 'error');
    const diff = runCli(['--no-probe', '--format', 'diff', '--target', 'mariadb=10.11', 'my.cnf'], { cwd: dir });
    assert.match(diff.stdout, /^-default_authentication_plugin/m);
  });

  it('is inferred from options only one product takes, and said with them; options of both products infer nothing', () => {
    const stylish = runCli(['--no-probe', 'mysql8.cnf'], { cwd: dir }).stdout;
    assert.match(
      stylish,
      /database server MySQL 8\.0, inferred from the files: gtid_mode \(mysql8\.cnf:2\), mysqlx-bind-address \(mysql8\.cnf:3\)/,
    );
    assert.deepEqual(
      findings([], 'mysql8.cnf').filter((diagnostic) => diagnostic.ruleId === 'MY1006'),
      [],
      'linted as MySQL 8.0',
    );
    const mixed = runCli(['--no-probe', 'both.cnf'], { cwd: dir }).stdout;
    assert.match(mixed, /database server MariaDB 10\.11, assumed/);
  });
});
