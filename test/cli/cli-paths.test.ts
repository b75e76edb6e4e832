import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { assembleTree, removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';

interface Report {
  host?: Record<string, { value: unknown; source: string }>;
  hosts?: { name: string | null; facts: Record<string, { value: unknown; source: string }> }[];
  results: { file: string; language: string | null; host?: string | null; diagnostics: { ruleId: string; file: string }[] }[];
}

const scratches: string[] = [];
after(() => scratches.forEach(removeScratch));

function json(args: readonly string[], cwd: string): Report {
  const run = runCli(['--no-probe', '--format', 'json', ...args], { cwd });
  assert.equal(run.stderr, '');
  assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}`);
  return JSON.parse(run.stdout) as Report;
}

describe('paths: discovery under --sysroot', () => {
  const parent = scratchDir('discover');
  scratches.push(parent);
  const root = path.join(parent, 'root');
  writeFiles(root, {
    'etc/apache2/apache2.conf':
      'LoadModule mpm_prefork_module m.so\nLoadModule php_module libphp.so\nIncludeOptional /etc/apache2/conf.d/*.conf\n',
    'etc/apache2/conf.d/mpm.conf': 'MaxRequestWorkers 40\n',
    'etc/mysql/my.cnf': '[mysqld]\nmax_connections = 10\n',
  });

  it('with no path, finds the system configs inside the sysroot and lints them together as one host', () => {
    const report = json(['--sysroot', 'root', '--host-ram', '1G', '--per-child', '20M'], parent);
    assert.deepEqual(
      report.results.map((result) => [result.file, result.language]),
      [
        ['root/etc/apache2/apache2.conf', 'apache'],
        ['root/etc/apache2/conf.d/mpm.conf', 'apache'],
        ['root/etc/mysql/my.cnf', 'mycnf'],
      ],
    );
    assert.equal(report.hosts, undefined);
    const crossService = report.results.flatMap((result) => result.diagnostics).find((diagnostic) => diagnostic.ruleId === 'HO1001');
    assert.ok(crossService !== undefined, 'max_connections 10 against 40 mod_php workers: HO1001 sees both configs');
  });

  it('an absolute path outside the sysroot is the path as the server sees it', () => {
    const report = json(['--sysroot', 'root', '/etc/mysql/my.cnf'], parent);
    assert.deepEqual(
      report.results.map((result) => result.file),
      ['root/etc/mysql/my.cnf'],
    );
  });

  it('dump takes the same server path inside the sysroot', () => {
    const run = runCli(['dump', '--json', '--sysroot', 'root', '/etc/mysql/my.cnf'], { cwd: parent });
    assert.equal(run.status, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { root: string }).root, 'root/etc/mysql/my.cnf');
  });

  it('a path given twice is linted once', () => {
    const report = json(['--sysroot', 'root', 'root/etc/mysql/my.cnf', '/etc/mysql/my.cnf'], parent);
    assert.equal(report.results.length, 1);
  });
});

describe('paths: language by name, by content, or --lang', () => {
  const dir = scratchDir('lang');
  scratches.push(dir);
  writeFiles(dir, {
    server: '# no extension\n[mysqld]\nmax_connections = 10\n',
    frontend: '# no extension\nLoadModule mpm_event_module m.so\n',
    'site.cnf': 'Listen 80\n',
    'site.conf': '[mysqld]\n',
  });

  it('a name without an extension is read by its first meaningful line', () => {
    assert.equal(json(['server'], dir).results[0]?.language, 'mycnf');
    assert.equal(json(['frontend'], dir).results[0]?.language, 'apache');
  });

  it('.cnf is my.cnf and .conf is Apache, whatever the content', () => {
    assert.equal(json(['site.cnf'], dir).results[0]?.language, 'mycnf');
    assert.equal(json(['site.conf'], dir).results[0]?.language, 'apache');
  });

  it('--lang forces the language of every path', () => {
    assert.equal(json(['--lang', 'apache', 'server'], dir).results[0]?.language, 'apache');
    assert.equal(json(['--lang', 'mycnf', 'site.conf'], dir).results[0]?.language, 'mycnf');
  });
});

describe('paths: a repository of several hosts (.tune-lint.yaml overrides with host:)', () => {
  const root = assembleTree(['fixtures/cli/repo-fleet'], 'fleet');
  scratches.push(root);
  const paths = ['hosts/lamp1/apache2.conf', 'hosts/lamp1/my.cnf', 'hosts/web2/httpd.conf', 'hosts/legacy/httpd.conf'];

  it("each host is linted apart, with its own facts; JSON lists the hosts and names each result's host", () => {
    const report = json(paths, root);
    assert.equal(report.host, undefined);
    assert.deepEqual(
      report.hosts?.map((host) => [host.name, host.facts.ram?.value, host.facts.ram?.source]),
      [
        ['lamp1', 1024 ** 3, '.tune-lint.yaml overrides[0]'],
        ['web2', 4 * 1024 ** 3, '.tune-lint.yaml overrides[1]'],
        [null, 2 * 1024 ** 3, '.tune-lint.yaml'],
      ],
    );
    for (const result of report.results) {
      const expected = result.file.startsWith('hosts/lamp1/') ? 'lamp1' : result.file.startsWith('hosts/web2/') ? 'web2' : null;
      assert.equal(result.host, expected, result.file);
    }
  });

  it('run from a subdirectory, the config is found upward and its globs stay relative to it', () => {
    const report = json(['apache2.conf', 'my.cnf'], path.join(root, 'hosts', 'lamp1'));
    assert.equal(report.host?.ram?.source, `${path.join(root, '.tune-lint.yaml')} overrides[0]`);
  });

  it('--print-config shows what a path is linted with: its host group, facts, targets, budget and rules', () => {
    const lamp = JSON.parse(runCli(['--print-config', 'hosts/lamp1/my.cnf'], { cwd: root }).stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(lamp), ['file', 'config', 'extends', 'hostGroup', 'host', 'target', 'budget', 'rules']);
    assert.equal(lamp.hostGroup, 'lamp1');
    assert.deepEqual(lamp.target, { httpd: '2.4', mariadb: '10.11' });
    assert.equal((lamp.budget as Record<string, number>).apacheShare, 0.4);
    assert.deepEqual((lamp.host as Record<string, { value: unknown }>).cpus, { value: 1, source: '.tune-lint.yaml overrides[0]' });
    assert.deepEqual((lamp.rules as Record<string, unknown>).MY2004, ['error', { factor: 3 }]);
    assert.equal((lamp.rules as Record<string, unknown>).AP4001, 'warn');
    const legacy = JSON.parse(
      runCli(['--print-config', 'hosts/legacy/httpd.conf', '--rule', 'HO2001=off', '--target', 'mysql=8.0', '--host-ram', '3G'], {
        cwd: root,
      }).stdout,
    ) as Record<string, unknown>;
    assert.equal(legacy.hostGroup, null);
    assert.equal((legacy.rules as Record<string, unknown>).AP4001, 'info', 'the glob override');
    assert.equal((legacy.rules as Record<string, unknown>).HO2001, 'off', '--rule wins');
    assert.deepEqual(legacy.target, { httpd: '2.4', mysql: '8.0' });
    assert.deepEqual((legacy.host as Record<string, unknown>).ram, { value: 3 * 1024 ** 3, source: 'flag --host-ram' });
    assert.equal((legacy.budget as Record<string, number>).apacheShare, 0.5);
  });
});
