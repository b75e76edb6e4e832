import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { onlyRules, removeScratch, runCli, scratchDir, writeFiles, type CliRun } from '../helpers/cli.js';

const dir = scratchDir('exit');
after(() => removeScratch(dir));

const PREFORK = 'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\n<IfModule mpm_prefork_module>\n    MaxClients 20\n</IfModule>\n';
const EVENT =
  'LoadModule mpm_event_module modules/mod_mpm_event.so\n<IfModule mpm_event_module>\n    ServerLimit 4\n    ThreadsPerChild 25\n    MaxRequestWorkers 100\n</IfModule>\n';
writeFiles(dir, {
  'renamed.conf': PREFORK,
  'clean.conf': EVENT,
  'bad/.tune-lint.yaml': 'rules:\n  AP2001: loud\n',
  'bad/x.conf': EVENT,
  // Debian 12's php8.2-fpm files, comments left out, and php.ini's first lines: read as Apache or my.cnf they gave "no problems".
  'www.conf': '[www]\nuser = www-data\ngroup = www-data\nlisten = /run/php/php8.2-fpm.sock\npm = dynamic\npm.max_children = 5\n',
  'php-fpm.conf': '[global]\npid = /run/php/php8.2-fpm.pid\nerror_log = /var/log/php8.2-fpm.log\ninclude=/etc/php/8.2/fpm/pool.d/*.conf\n',
  'php.ini': '[PHP]\nengine = On\nshort_open_tag = Off\nmemory_limit = 128M\n',
  'client.cnf': '[client]\nport = 3306\n[mysqld]\nmax_connections = 20\n',
});

const only = onlyRules;

function lint(args: readonly string[], cwd = dir): CliRun {
  return runCli(['--no-probe', '--host-ram', '2G', '--per-child', '30M', ...args], { cwd });
}

/** Exit 2 with one `tune-lint:` line on stderr, nothing on stdout, and no stack trace. */
function assertUsageError(run: CliRun, expected: RegExp): void {
  assert.equal(run.status, 2, run.stderr);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^tune-lint: [^\n]+\n$/, `not one line: ${JSON.stringify(run.stderr)}`);
  assert.match(run.stderr, expected);
  assert.doesNotMatch(run.stderr, /^\s+at /m);
}

describe('exit codes: 0 nothing at the failure threshold, 1 findings', () => {
  it('0 and "No problems found." when nothing is reported', () => {
    const run = lint([...only({ AP4001: 'warn' }), 'clean.conf']);
    assert.equal(run.status, 0, run.stdout);
    assert.match(run.stdout, /^No problems found\.$/m);
  });

  it('warnings alone exit 0, unless there are more than --max-warnings', () => {
    const warn = [...only({ AP4001: 'warn' }), 'renamed.conf'];
    assert.equal(lint(warn).status, 0);
    assert.equal(lint([...warn, '--max-warnings', '0']).status, 1);
    assert.equal(lint([...warn, '--max-warnings', '1']).status, 0);
    assert.equal(lint([...warn, '--max-warnings', '-1']).status, 0, 'a negative limit is no limit');
  });

  it('--quiet shows errors only and does not count warnings', () => {
    const run = lint([...only({ AP4001: 'warn' }), 'renamed.conf', '--quiet', '--max-warnings', '0']);
    assert.equal(run.status, 0);
    assert.doesNotMatch(run.stdout, /AP4001/);
    assert.doesNotMatch(run.stdout, /Host facts used/);
    const json = JSON.parse(lint([...only({ AP4001: 'warn' }), 'renamed.conf', '--quiet', '--format', 'json']).stdout) as {
      results: { diagnostics: unknown[] }[];
    };
    assert.deepEqual(
      json.results.flatMap((result) => result.diagnostics),
      [],
    );
  });

  it('an error exits 1, with or without --quiet', () => {
    for (const extra of [[], ['--quiet']]) {
      const run = lint([...only({ AP4001: 'error' }), 'renamed.conf', ...extra]);
      assert.equal(run.status, 1);
      assert.match(run.stdout, /3:5 {2}error {2}MaxClients is the httpd 2\.2 name/);
    }
  });

  it('info never fails, even with --max-warnings 0', () => {
    assert.equal(lint([...only({ AP4001: 'info' }), 'renamed.conf', '--max-warnings', '0']).status, 0);
  });

  it('--rule takes a rule name as well as an id', () => {
    const byName = lint([...only({}), '--rule', 'renamed-mpm-directive=error', 'renamed.conf']);
    assert.equal(byName.status, 1);
    assert.match(byName.stdout, /AP4001 renamed-mpm-directive/);
  });

  it('--format diff with problems but nothing to patch: empty stdout, the reason on stderr', () => {
    const run = lint([...only({ AP4001: 'warn' }), '--fix-type', 'tune', '--format', 'diff', 'renamed.conf']);
    assert.equal(run.status, 0);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'tune-lint: 1 problem found, none fixable with --fix-type tune: nothing to patch\n');
    assert.equal(lint([...only({ AP4001: 'warn' }), '--format', 'diff', 'clean.conf']).stderr, '', 'nothing found, nothing to say');
  });

  it('every output format gives the same exit code', () => {
    for (const format of ['stylish', 'json', 'sarif', 'diff']) {
      assert.equal(lint([...only({ AP4001: 'error' }), 'renamed.conf', '--format', format]).status, 1, format);
      assert.equal(lint([...only({ AP4001: 'error' }), 'clean.conf', '--format', format]).status, 0, format);
    }
  });
});

describe('exit code 2: one clear line on stderr, no stack trace', () => {
  const cases: [string, string[], RegExp, string?][] = [
    ['a main file that does not exist', ['nope.conf'], /^tune-lint: nope\.conf: no such file$/m],
    ['a directory as main file', ['bad'], /^tune-lint: bad is a directory, not a file$/m],
    [
      'a mistake in .tune-lint.yaml found upward',
      ['x.conf'],
      /^tune-lint: \.tune-lint\.yaml:2:11: severity must be off, info, warn or error, not "loud"$/m,
      'bad',
    ],
    ['--config naming no file', ['--config', 'none.yaml', 'clean.conf'], /^tune-lint: none\.yaml: no such config file$/m],
    ['--rule without a severity', ['--rule', 'AP2001', 'clean.conf'], /^tune-lint: --rule AP2001: expected ID=off\|info\|warn\|error/m],
    ['--rule with an unknown rule', ['--rule', 'XX0000=off', 'clean.conf'], /^tune-lint: --rule XX0000=off: unknown rule "XX0000"/m],
    ['--target with an unknown product', ['--target', 'nginx=1.25', 'clean.conf'], /^tune-lint: --target: invalid target "nginx=1\.25"/m],
    [
      '--format with an unknown format',
      ['--format', 'yaml', 'clean.conf'],
      /^tune-lint: option '--format <format>' argument 'yaml' is invalid/m,
    ],
    ['an unknown option', ['--colour', 'clean.conf'], /^tune-lint: unknown option '--colour'/m],
    [
      '--max-warnings that is not a number',
      ['--max-warnings', 'many', 'clean.conf'],
      /^tune-lint: option '--max-warnings <n>' argument 'many' is invalid\. expected a whole number$/m,
    ],
    ['--host-ram that is not a size', ['--host-ram', 'big', 'clean.conf'], /^tune-lint: --host-ram: /m],
    ['--profile naming no file', ['--profile', 'host.yaml', 'clean.conf'], /^tune-lint: --profile host\.yaml: no such file$/m],
    [
      '--sysroot that is not a directory',
      ['--sysroot', 'clean.conf', 'clean.conf'],
      /^tune-lint: --sysroot clean\.conf: not a directory$/m,
    ],
    [
      '--target with an empty item',
      ['--target', 'httpd=2.4,,,', 'clean.conf'],
      /^tune-lint: --target: invalid target "httpd=2\.4,,,": an empty item/m,
    ],
    [
      '--include-base that is no directory',
      ['--include-base', '/nonexistent', 'clean.conf'],
      /^tune-lint: --include-base \/nonexistent: not a directory$/m,
    ],
    ['an empty --server-root', ['--server-root', '', 'clean.conf'], /^tune-lint: --server-root: empty; /m],
    ['an empty --define', ['--define', '', 'clean.conf'], /^tune-lint: --define: an empty name; /m],
    ['an empty path', [''], /^tune-lint: an empty path was given as a config to read; /m],
    ['an empty path to dump', ['dump', ''], /^tune-lint: an empty path was given as a config to read; /m],
    ['php.ini', ['php.ini'], /^tune-lint: php\.ini: php\.ini \(its \[PHP\] section\)/m],
    [
      'no path and no system config under --sysroot',
      ['--sysroot', 'bad'],
      /^tune-lint: no config given and none found at \/etc\/apache2\/apache2\.conf, .* under --sysroot bad; give the main config files to lint$/m,
    ],
  ];
  for (const [what, args, expected, cwd] of cases) {
    it(what, () => {
      const run = runCli(['--no-probe', ...args], { cwd: cwd === undefined ? dir : path.join(dir, cwd) });
      assertUsageError(run, expected);
    });
  }

  it('an option file with client groups is still an option file; a php-fpm pool named .conf is read as php-fpm, and says so', () => {
    assert.equal(lint(['client.cnf']).status, 0);
    assert.equal(lint(['--lang', 'mycnf', 'www.conf']).status, 0);
    const pool = lint(['www.conf']);
    assert.equal(pool.status, 1);
    assert.match(pool.stdout, /^Read as:\n {2}www\.conf: a php-fpm configuration /m);
    assert.match(
      pool.stdout,
      /error +\[www\] pm\.min_spare_servers\(0\) is not positive; expected at least 1 +PF1001 process-manager-refused/,
    );
  });

  it('says which language a main file the name does not place was read as, and names the --lang that reads it otherwise', () => {
    writeFiles(dir, { 'vhost-example': 'ServerName example.com\n', 'db-settings': '[mysqld]\nmax_connections = 5\n' });
    const apache = lint(['vhost-example']);
    assert.match(apache.stdout, /^Read as:\n  vhost-example: an Apache httpd config .*; --lang mycnf reads it as an option file$/m);
    assert.match(
      lint(['db-settings']).stdout,
      /^  db-settings: a MySQL\/MariaDB option file .*; --lang apache reads it as an httpd config$/m,
    );
    assert.doesNotMatch(lint(['client.cnf']).stdout, /Read as:/, 'the name says');
    assert.doesNotMatch(lint(['--lang', 'apache', 'vhost-example']).stdout, /Read as:/, '--lang says');
  });

  it("--debug adds the stack trace, of the module build: the files and functions are the sources'", () => {
    const run = runCli(['--no-probe', '--debug', 'nope.conf'], { cwd: dir });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^tune-lint: \w*Error: nope\.conf: no such file\n\s+at /);
    assert.match(run.stderr, /^\s+at loadAll \(file:\/\/\/.*\/dist\/src\/lint\.js:\d+:\d+\)$/m);
  });
});
