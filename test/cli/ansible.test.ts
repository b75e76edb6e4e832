import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CLI, removeScratch, runCli, scratchDir } from '../helpers/cli.js';
import { repoPath } from '../helpers/paths.js';
import { requireTool } from '../helpers/tools.js';

const STORY = repoPath('fixtures', 'apache', 'story-stock-prefork');

/*
 * The Ansible role with the real ansible-playbook (ansible-core from Debian)
 * against two inventory hosts on this machine (local connection), each linting
 * the story tree with its own RAM, the results fetched to the controller, and
 * `tune-lint fleet` over them. The package step is off (tune_lint_install:
 * false): CI installs and removes the .deb itself; here the bin of this build
 * runs.
 */
describe('ansible/site.yml', () => {
  it('lints every inventory host, fetches <host>.json and .diff, and fleet reads them', (t) => {
    const playbook = requireTool(t, 'ansible-playbook');
    if (playbook === undefined) return;
    const dir = scratchDir('tune-lint-ansible-');
    t.after(() => removeScratch(dir));
    const hostArgs = (ram: string): string =>
      JSON.stringify([
        '--no-probe',
        '--host-ram',
        ram,
        '--per-child',
        '20M',
        '--sysroot',
        STORY,
        path.join(STORY, 'etc/apache2/apache2.conf'),
      ]);
    const python = spawnSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).stdout.trim();
    fs.writeFileSync(
      path.join(dir, 'inventory.yml'),
      [
        'all:',
        '  vars:',
        '    ansible_connection: local',
        `    ansible_python_interpreter: ${python}`,
        '    ansible_become: false',
        '  hosts:',
        '    small-vps:',
        `      tune_lint_args: ${hostArgs('500M')}`,
        '    big-box:',
        `      tune_lint_args: ${hostArgs('8G')}`,
        '',
      ].join('\n'),
    );
    const results = path.join(dir, 'results');
    const run = spawnSync(
      playbook,
      [
        '-i',
        path.join(dir, 'inventory.yml'),
        repoPath('ansible', 'site.yml'),
        '-e',
        JSON.stringify({ tune_lint_install: false, tune_lint_command: CLI, tune_lint_results: results }),
      ],
      {
        encoding: 'utf8',
        timeout: 300_000,
        env: {
          ...process.env,
          ANSIBLE_NOCOLOR: '1',
          ANSIBLE_HOME: path.join(dir, 'ansible-home'),
          ANSIBLE_LOCAL_TEMP: path.join(dir, 'tmp'),
          ANSIBLE_REMOTE_TEMP: path.join(dir, 'tmp'),
        },
      },
    );
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /small-vps\s+: ok=\d+ +changed=\d+ +unreachable=0 +failed=0/);
    assert.deepEqual(fs.readdirSync(results).sort(), ['big-box.diff', 'big-box.json', 'small-vps.diff', 'small-vps.json']);
    assert.match(fs.readFileSync(path.join(results, 'small-vps.diff'), 'utf8'), /^\+\s+MaxRequestWorkers\s+\d+$/m);
    const fleet = runCli(['fleet', results], { cwd: dir });
    assert.equal(fleet.status, 1, fleet.stderr);
    assert.match(
      fleet.stdout,
      /^Hosts, most over-committed first:\n {2}small-vps +peak 3 GiB of 500 MiB, 2\.5 GiB over RAM .*\n {2}big-box +peak /m,
    );
  });

  it('installs the package through a private directory, never through a fixed /tmp path', async () => {
    const { parse } = await import('yaml');
    const tasks = parse(fs.readFileSync(repoPath('ansible/roles/tune_lint/tasks/main.yml'), 'utf8')) as Record<string, unknown>[];
    const strings = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : typeof value === 'object' && value !== null ? Object.values(value).flatMap(strings) : [];
    assert.deepEqual(
      strings(tasks).filter((text) => /(^|[\s"'])\/tmp\b/.test(text)),
      [],
      'a path in /tmp, where any local user may create or replace the package between copy and install',
    );
    const install = tasks.find((task) => Array.isArray(task.block)) as {
      block: Record<string, Record<string, string>>[];
      always: unknown[];
    };
    const [made, copied, ...installs] = install.block;
    assert.deepEqual(made?.['ansible.builtin.tempfile'], { state: 'directory', prefix: 'tune-lint-' });
    assert.equal(copied?.['ansible.builtin.copy']?.dest, '{{ tune_lint_package_dir.path }}/{{ tune_lint_package | basename }}');
    for (const task of installs) {
      const module = task['ansible.builtin.apt'] ?? task['ansible.builtin.dnf'];
      assert.ok((module?.deb ?? module?.name ?? '').startsWith('{{ tune_lint_package_dir.path }}/'), JSON.stringify(task));
    }
    assert.match(JSON.stringify(install.always), /"state":"absent"/);
  });
});
