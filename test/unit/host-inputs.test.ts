import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { loadAnsibleFacts, parseAnsibleFacts } from '../../src/host/ansible.js';
import { hostFactsFromFlags } from '../../src/host/cli-facts.js';
import type { HostFacts } from '../../src/host/facts.js';
import { HostFactsError } from '../../src/host/facts.js';
import { hostFactsFromConfig, hostFactsToProfileYaml, loadHostProfile, parseHostProfile } from '../../src/host/profile.js';
import { hostFixture, hostModuleUrl, temporaryDirectory } from '../helpers/host-fixtures.js';
import { NOBODY, unreadableByNobody } from '../helpers/host-probe-runner.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** Runs `action` and returns the HostFactsError message it throws; fails on anything else. */
async function hostError(action: () => unknown): Promise<string> {
  try {
    await action();
  } catch (error) {
    assert.ok(error instanceof HostFactsError, `expected a HostFactsError, got ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error.message;
  }
  assert.fail('expected a HostFactsError');
}

/** Fixtures are named relative to the working directory in messages, as a user would type them. */
function relativeFixture(relative: string): string {
  return path.relative(process.cwd(), hostFixture(relative));
}

describe('host flags', () => {
  test('sizes, CPUs and per-child memory from raw flag strings', () => {
    const facts = hostFactsFromFlags({ ram: '512M', cpus: '1.5', perChild: '20MiB' });
    assert.deepEqual(facts, {
      ram: { value: 512 * MIB, source: 'flag --host-ram' },
      cpus: { value: 1.5, source: 'flag --host-cpus' },
      perChild: { value: { median: 20 * MIB, max: 20 * MIB, count: 0, metric: 'pss' }, source: 'flag --per-child' },
    });
    assert.deepEqual(hostFactsFromFlags({}), {});
    assert.equal(hostFactsFromFlags({ ram: '2G' }).ram?.value, 2 * GIB);
  });

  test('malformed values name the flag and what was expected', async () => {
    assert.equal(await hostError(() => hostFactsFromFlags({ ram: 'lots' })), '--host-ram: expected a size such as 512M or 2G, got "lots"');
    assert.equal(
      await hostError(() => hostFactsFromFlags({ ram: '512' })),
      '--host-ram: 512 B is too small for RAM (sizes without a unit are bytes); write a unit, e.g. 512M',
    );
    assert.equal(
      await hostError(() => hostFactsFromFlags({ cpus: 'two' })),
      '--host-cpus: expected a number of CPUs written as digits, such as 2 or 1.5, got "two"',
    );
    assert.match(await hostError(() => hostFactsFromFlags({ cpus: '0' })), /^--host-cpus: expected a number of CPUs greater than 0/);
    assert.match(await hostError(() => hostFactsFromFlags({ perChild: '-20M' })), /^--per-child: expected a size/);
    assert.match(await hostError(() => hostFactsFromFlags({ ram: '2X' })), /^--host-ram: expected a size/);
  });
});

describe('profiles', () => {
  test('every fact of a full profile, labelled with the file', async () => {
    const file = relativeFixture('profiles/web01.yaml');
    const facts = await loadHostProfile(file);
    const source = `profile ${file}`;
    assert.deepEqual(facts, {
      ram: { value: 500 * MIB, source },
      cpus: { value: 1, source },
      swap: { value: 1023 * MIB, source },
      perChild: { value: { median: 15 * MIB, max: 20 * MIB, count: 9, metric: 'pss' }, source },
      phpPerChild: { value: { median: 46 * MIB, max: 46 * MIB, count: 0, metric: 'pss' }, source },
      apacheRunning: { value: true, source },
      mysqlRunning: { value: true, source },
      mysqlRss: { value: 96 * MIB, source },
      somaxconn: { value: 4096, source },
      httpdVersion: { value: '2.4.57', source },
      databaseServer: { value: 'mariadb=10.11.6', source },
      mounts: {
        value: [
          { mountPoint: '/', fsType: 'ext4', source: '/dev/vda1' },
          { mountPoint: '/var/www', fsType: 'nfs4', source: 'nas01.example.org:/export/www' },
        ],
        source,
      },
      oomKills: { value: [], source },
    });
  });

  test('a plain size for perChild', async () => {
    const facts = await loadHostProfile(hostFixture('profiles/minimal.yaml'));
    assert.deepEqual(facts.perChild?.value, { median: 40 * MIB, max: 40 * MIB, count: 0, metric: 'pss' });
    assert.equal(facts.ram?.value, 2 * GIB);
  });

  test('bad profiles: one line with file:line:col, the key and what is wrong', async () => {
    const cases: [string, string][] = [
      ['unknown-key.yaml', ':2:1: per_child: unknown key; did you mean perChild?'],
      ['wrong-type.yaml', ':2:7: cpus: expected a number of CPUs written as digits, such as 2 or 1.5, got "two"'],
      ['bad-size.yaml', ':1:6: ram: expected a size such as 512M or 2G, got "lots"'],
      ['unitless-ram.yaml', ':1:6: ram: 512 B is too small for RAM (sizes without a unit are bytes); write a unit, e.g. 512M'],
      ['bad-mount.yaml', ':4:19: mounts[1].mountPoint: expected an absolute path, got "var/www"'],
      ['per-child-max-below-median.yaml', ':3:8: perChild.max: 15 MiB is below the median 20 MiB'],
      ['duplicate-key.yaml', ':3:1: Map keys must be unique'],
      ['bom-crlf-bad-swap.yaml', ':3:7: swap: expected a size such as 512M or 2G, got "plenty"'],
      ['empty.yaml', ':1:1: the profile is empty; expected host facts such as ram: 2G, cpus: 2, perChild: 40M'],
    ];
    for (const [name, expected] of cases) {
      const file = relativeFixture(`profiles/${name}`);
      assert.equal(await hostError(() => loadHostProfile(file)), `${file}${expected}`, name);
    }
    assert.match(
      await hostError(() => loadHostProfile(relativeFixture('profiles/not-a-mapping.yaml'))),
      /not-a-mapping\.yaml:1:1: expected a mapping of host facts \(ram, cpus, .*\), got a list$/,
    );
  });

  test('the servers a profile names must be ones a target can be', async () => {
    assert.equal(
      await hostError(() => parseHostProfile('databaseServer: mysql=10.6\n', 'host.yaml')),
      'host.yaml:1:17: databaseServer: unsupported mysql target "10.6": MySQL has no version 10 (did you mean mariadb=10.6?)',
    );
    assert.equal(
      await hostError(() => parseHostProfile('httpdVersion: apache\n', 'host.yaml')),
      'host.yaml:1:15: httpdVersion: expected an httpd release like 2.4.71, got "apache"',
    );
  });

  test('YAML syntax errors carry the position too', async () => {
    assert.match(await hostError(() => parseHostProfile('ram: 2G\nmounts: [\n', 'host.yaml')), /^host\.yaml:\d+:\d+: /);
  });

  test('missing or unreadable files name the flag', async () => {
    assert.equal(await hostError(() => loadHostProfile('no/such/host.yaml')), '--profile no/such/host.yaml: no such file');
    assert.match(await hostError(() => loadHostProfile(hostFixture('profiles'))), /^--profile .*profiles is a directory, not a file$/);
  });

  test('probe --yaml output reads back as the same facts', async () => {
    const facts: HostFacts = {
      ram: { value: 25276063744, source: 'probe (MemTotal)' },
      cpus: { value: 1.5, source: 'probe (cgroup v1 CPU quota)' },
      swap: { value: 0, source: 'probe (SwapTotal)' },
      perChild: { value: { median: 21418598, max: 23 * MIB + 512, count: 4, metric: 'pss' }, source: 'probe (apache2 children)' },
      apacheRunning: { value: true, source: 'probe (apache2 PID 42)' },
      mysqlRunning: { value: false, source: 'probe (no mysqld or mariadbd process)' },
      mysqlRss: { value: 85 * MIB, source: 'probe (VmRSS of mariadbd PID 7)' },
      somaxconn: { value: 4096, source: 'probe (/proc/sys/net/core/somaxconn)' },
      mounts: {
        value: [
          { mountPoint: '/', fsType: 'ext4', source: '/dev/vda' },
          { mountPoint: '/proc', fsType: 'proc', source: 'proc' },
          { mountPoint: '/srv/web root "quoted"', fsType: 'nfs4', source: 'nas:/export/a b' },
        ],
        source: 'probe (/proc/self/mountinfo)',
      },
      notes: ['a note\nwith a newline'],
    };
    const text = await hostFactsToProfileYaml(facts);
    assert.match(text, /^ram: 24683656K {2}# probe \(MemTotal\)$/m);
    assert.match(text, /^# note: a note with a newline$/m);
    const back = await parseHostProfile(text, 'host.yaml');
    const source = 'profile host.yaml';
    assert.equal(back.notes, undefined);
    for (const name of ['ram', 'cpus', 'swap', 'perChild', 'apacheRunning', 'mysqlRunning', 'mysqlRss', 'somaxconn'] as const) {
      assert.deepEqual(back[name], { value: facts[name]?.value, source }, name);
    }
    assert.deepEqual(back.mounts?.value, [facts.mounts?.value[0], facts.mounts?.value[2]], 'pseudo filesystems are left out');
  });
});

describe('.tune-lint.yaml host section', () => {
  test('values the config loader parsed, labelled with its source', () => {
    const facts = hostFactsFromConfig({ ram: '2G', cpus: 2, perChild: '40M' }, '.tune-lint.yaml');
    assert.deepEqual(facts.ram, { value: 2 * GIB, source: '.tune-lint.yaml' });
    assert.deepEqual(facts.cpus, { value: 2, source: '.tune-lint.yaml' });
    assert.equal(facts.perChild?.value.median, 40 * MIB);
  });

  test('errors name the config file and the key path', async () => {
    assert.equal(
      await hostError(() => hostFactsFromConfig({ ram: 'lots' }, 'repo/.tune-lint.yaml')),
      'repo/.tune-lint.yaml: host.ram: expected a size such as 512M or 2G, got "lots"',
    );
    assert.equal(
      await hostError(() => hostFactsFromConfig({ cpu: 2 }, '.tune-lint.yaml')),
      '.tune-lint.yaml: host.cpu: unknown key; did you mean cpus?',
    );
    assert.equal(
      await hostError(() => hostFactsFromConfig({ perChild: { median: '20M', metric: 'uss' } }, '.tune-lint.yaml')),
      '.tune-lint.yaml: host.perChild.metric: expected pss or rss, got "uss"',
    );
  });
});

describe('Ansible facts', () => {
  const web01 = (facts: HostFacts, file: string) => {
    const source = `ansible facts ${file}`;
    assert.deepEqual(facts.ram, { value: 500 * MIB, source });
    assert.deepEqual(facts.cpus, { value: 1, source });
    assert.deepEqual(facts.swap, { value: 1023 * MIB, source });
    assert.deepEqual(facts.mounts, {
      value: [
        { mountPoint: '/', fsType: 'ext4', source: '/dev/vda1' },
        { mountPoint: '/var/www', fsType: 'nfs4', source: 'nas01.example.org:/export/www' },
      ],
      source,
    });
    assert.equal(facts.notes, undefined);
  };

  test('ansible -m setup --tree output ({"ansible_facts": ...})', () => {
    const file = relativeFixture('ansible/web01.json');
    web01(loadAnsibleFacts(file), file);
  });

  test('the terminal output of ansible -m setup, with its HOST | SUCCESS => header', () => {
    const file = relativeFixture('ansible/web01-setup-output.txt');
    web01(loadAnsibleFacts(file), file);
  });

  test('a jsonfile fact-cache entry, with the container caveat as a note', () => {
    const file = relativeFixture('ansible/fact-cache/db01');
    const facts = loadAnsibleFacts(file);
    assert.equal(facts.ram?.value, 3935 * MIB);
    assert.equal(facts.cpus?.value, 2);
    assert.equal(facts.swap?.value, 0);
    assert.deepEqual(facts.mounts?.value, [{ mountPoint: '/', fsType: 'overlay', source: 'overlay' }]);
    assert.deepEqual(facts.notes, [
      `${file} describes a docker container: ansible_memtotal_mb is the RAM of its host, not the container's memory limit; give ram in a profile or with --host-ram if the container is limited`,
    ]);
  });

  test('bad facts files: clear errors with positions', async () => {
    const rel = (name: string) => relativeFixture(`ansible/${name}`);
    assert.equal(
      await hostError(() => loadAnsibleFacts(rel('bad-memtotal.json'))),
      `${rel('bad-memtotal.json')}:4:9: ansible_memtotal_mb: expected a whole number of at least 1, got "lots"`,
    );
    assert.match(
      await hostError(() => loadAnsibleFacts(rel('truncated.json'))),
      new RegExp(`^${rel('truncated.json')}(:\\d+:\\d+)?: not valid JSON \\(.*\\); expected Ansible facts$`),
    );
    assert.match(
      await hostError(() => loadAnsibleFacts(rel('not-facts.json'))),
      /not-facts\.json: not an Ansible facts file; expected \{"ansible_facts": \{\.\.\.\}\}/,
    );
    assert.equal(
      await hostError(() => loadAnsibleFacts(rel('web02-unreachable.txt'))),
      `${rel('web02-unreachable.txt')}:1:1: ansible reported web02 UNREACHABLE!; there are no facts in this file`,
    );
    assert.equal(
      await hostError(() => loadAnsibleFacts(rel('web03-no-hardware.json'))),
      `${rel('web03-no-hardware.json')}: no ansible_memtotal_mb, ansible_processor_vcpus or ansible_mounts; gather the hardware facts (gather_subset: hardware)`,
    );
    assert.equal(await hostError(() => loadAnsibleFacts('missing/web09.json')), '--facts missing/web09.json: no such file');
  });

  test('output of several hosts is refused, pointing at the second', async () => {
    const one = fs.readFileSync(hostFixture('ansible/web01-setup-output.txt'), 'utf8');
    const message = await hostError(() => parseAnsibleFacts(one + one.replace('web01 |', 'web02 |'), 'all.txt'));
    assert.match(message, /^all\.txt:\d+:1: this output holds the facts of several hosts/);
    assert.equal(Number(/^all\.txt:(\d+):/.exec(message)?.[1]), one.split('\n').length);
  });

  test('an unreadable facts file (permission denied) is a one-line error', async (t) => {
    const { dir, remove } = temporaryDirectory('tune-lint-facts-');
    t.after(remove);
    const file = path.join(dir, 'web01.json');
    fs.copyFileSync(hostFixture('ansible/web01.json'), file);
    fs.chmodSync(file, 0o600);
    if (process.geteuid?.() !== 0) {
      fs.chmodSync(file, 0o000);
      assert.match(await hostError(() => loadAnsibleFacts(file)), /^--facts .*web01\.json: cannot read \(EACCES\)$/);
      return;
    }
    // Root reads any file, so the reading is done by nobody, as a user without access would.
    const unreadable = unreadableByNobody();
    if (unreadable !== undefined) {
      t.skip(unreadable);
      return;
    }
    fs.chmodSync(dir, 0o755);
    const script = `import(${JSON.stringify(hostModuleUrl('ansible.js'))}).then((m) => { try { m.loadAnsibleFacts(${JSON.stringify(file)}); console.log('read'); } catch (e) { console.log(e.name + ': ' + e.message); } })`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      uid: NOBODY,
      gid: NOBODY,
      encoding: 'utf8',
      cwd: '/',
    });
    assert.equal(run.stderr, '');
    assert.equal(run.stdout.trim(), `HostFactsError: --facts ${file}: cannot read (EACCES)`);
  });
});
