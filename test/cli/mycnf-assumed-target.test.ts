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
writeFiles(dir, { 'my.cnf': '[mysqld]\ngtid_mode = ON\ndefault_authentication_plugin = mysql_native_password\n' });

function findings(args: readonly string[]): { ruleId: string; severity: string; message: string }[] {
  return jsonDiagnostics(runCli(['--no-probe', '--format', 'json', ...args, 'my.cnf'], { cwd: dir }).stdout).filter((diagnostic) =>
    diagnostic.ruleId.startsWith('MY'),
  );
}

describe('an assumed database target', () => {
  it('makes an option MariaDB lacks a warning that says how to set the target, and offers no fix removing a MySQL option', () => {
    const assumed = findings([]);
    const unknown = assumed.find((diagnostic) => diagnostic.ruleId === 'MY1006');
    assert.equal(unknown?.severity, 'warn');
    assert.match(said(unknown), /give --target mysql=8\.0.*is assumed because nothing names the server/);
    const diff = runCli(['--no-probe', '--format', 'diff', 'my.cnf'], { cwd: dir });
    assert.doesNotMatch(diff.stdout, /^-default_authentication_plugin/m);
  });

  it('named with --target mariadb=10.11, the same options are what they are on MariaDB: an error, and the no-op removed', () => {
    const named = findings(['--target', 'mariadb=10.11']);
    assert.equal(named.find((diagnostic) => diagnostic.ruleId === 'MY1006')?.severity, 'error');
    const diff = runCli(['--no-probe', '--format', 'diff', '--target', 'mariadb=10.11', 'my.cnf'], { cwd: dir });
    assert.match(diff.stdout, /^-default_authentication_plugin/m);
  });
});
