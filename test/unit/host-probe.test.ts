import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { filesystemTypeOf } from '../../src/host/facts.js';
import { listProcesses, parseMountInfo, ProcReader } from '../../src/host/proc.js';
import type { MemoryTotals } from '../../src/host/probe.js';
import { probeHost } from '../../src/host/probe.js';
import { describeHostFacts } from '../../src/host/format.js';
import { PeakSampler } from '../../src/host/measure.js';
import { parseDatabaseVersion } from '../../src/host/servers.js';
import { elfWithRodata } from '../helpers/elf.js';
import { cgroupV1ShouldBeCreatable, createV1Group } from '../helpers/host-cgroup.js';
import { smapsRollup, statFile, statusFile, temporaryDirectory, writeTree } from '../helpers/host-fixtures.js';
import { NOBODY, probeInChildProcess, unreadableByNobody } from '../helpers/host-probe-runner.js';
import { inCI, requireTool } from '../helpers/tools.js';

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

function meminfoKb(field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(fs.readFileSync('/proc/meminfo', 'utf8'));
  assert.ok(match, `${field} in /proc/meminfo`);
  return Number(match[1]);
}

const linux = fs.existsSync('/proc/self/status');

describe('probe of this machine, against the kernel', { skip: linux ? false : 'not Linux: no /proc' }, () => {
  test('RAM, swap, CPUs, somaxconn and mounts match /proc and nproc', async (t) => {
    const facts = await probeHost();
    const memTotal = meminfoKb('MemTotal') * KIB;
    assert.ok(facts.ram, 'RAM probed');
    if (facts.ram.source === 'probe (MemTotal)') assert.equal(facts.ram.value, memTotal);
    else {
      assert.match(facts.ram.source, /^probe \(cgroup v[12] limit\)$/);
      assert.ok(facts.ram.value < memTotal);
    }
    assert.deepEqual(facts.swap, { value: meminfoKb('SwapTotal') * KIB, source: 'probe (SwapTotal)' });

    const nprocPath = requireTool(t, 'nproc');
    if (nprocPath === undefined) return;
    const nproc = Number(spawnSync(nprocPath, { encoding: 'utf8' }).stdout.trim());
    assert.ok(facts.cpus, 'CPUs probed');
    if (facts.cpus.source === 'probe (CPU affinity)') assert.equal(facts.cpus.value, nproc);
    else assert.ok(facts.cpus.value <= nproc);

    assert.deepEqual(facts.somaxconn?.value, Number(fs.readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim()));
    const mountLines = fs.readFileSync('/proc/self/mountinfo', 'utf8').trim().split('\n');
    assert.equal(facts.mounts?.value.length, mountLines.length);

    const findmnt = requireTool(t, 'findmnt');
    if (findmnt === undefined) return;
    for (const where of [process.cwd(), '/proc/self', '/sys/fs/cgroup', '/']) {
      const expected: string[] = spawnSync(findmnt, ['-n', '-o', 'FSTYPE,TARGET', '-T', where], { encoding: 'utf8' })
        .stdout.trim()
        .split(/\s+/);
      const found = filesystemTypeOf(facts.mounts.value, where);
      assert.deepEqual([found?.fsType, found?.mountPoint], expected, where);
    }
  });

  test('a process named mariadbd is seen from /proc, with its RSS', async (t) => {
    const { dir, remove } = temporaryDirectory('tune-lint-mysqld-');
    t.after(remove);
    const fakeServer = path.join(dir, 'mariadbd');
    fs.copyFileSync('/bin/sleep', fakeServer);
    fs.chmodSync(fakeServer, 0o755);
    const child = spawn(fakeServer, ['60'], { stdio: 'ignore' });
    t.after(() => child.kill('SIGKILL'));
    const pid = child.pid as number;
    await new Promise((resolve) => child.once('spawn', resolve));
    const seen = listProcesses(new ProcReader())?.find((process) => process.pid === pid);
    assert.equal(seen?.name, 'mariadbd');
    const facts = await probeHost();
    assert.equal(facts.mysqlRunning?.value, true);
    assert.match(facts.mysqlRunning.source, /^probe \(mariadbd PIDs? /);
    assert.ok((facts.mysqlRss?.value ?? 0) >= (seen.rss ?? Infinity), 'mysqlRss includes this process');
  });
});

describe('cgroup limits, for real', { skip: linux ? false : 'not Linux: no /proc' }, () => {
  test('inside a memory cgroup of 300 MiB with half a CPU, the probe says so; systeminformation does not', async (t) => {
    const name = `tune-lint-test-${process.pid}-${Date.now()}`;
    const memory = createV1Group('memory', name, [['memory.limit_in_bytes', String(300 * MIB)]]);
    if (!memory.ok) {
      // Creating groups needs root and a writable v1 hierarchy (cgroup v2 would need a delegated subtree).
      if (inCI && cgroupV1ShouldBeCreatable()) assert.fail(`CI=true and this environment should allow cgroups: ${memory.reason}`);
      t.skip(memory.reason);
      return;
    }
    t.after(memory.remove);
    const limit = Number(fs.readFileSync(path.join(memory.dir, 'memory.limit_in_bytes'), 'utf8').trim());
    const cpu = createV1Group('cpu', name, [
      ['cpu.cfs_period_us', '100000'],
      ['cpu.cfs_quota_us', '50000'],
    ]);
    if (cpu.ok) t.after(cpu.remove);
    else t.diagnostic(`CPU quota part not run: ${cpu.reason}`);

    const joins = [`echo $$ > '${memory.dir}/cgroup.procs'`];
    if (cpu.ok) joins.push(`echo $$ > '${cpu.dir}/cgroup.procs'`);
    const inside = await probeInChildProcess({ shellBefore: joins, askSystemInformation: true });
    assert.deepEqual(inside.facts.ram, { value: limit, source: 'probe (cgroup v1 limit)' });
    assert.equal(inside.systeminformation?.memTotal, meminfoKb('MemTotal') * KIB, 'si.mem() reports MemTotal, blind to the limit');
    if (cpu.ok) {
      assert.deepEqual(inside.facts.cpus, { value: 0.5, source: 'probe (cgroup v1 CPU quota)' });
      assert.ok(inside.systeminformation.cpuCores >= 1, 'si.cpu() counts CPUs, blind to the quota');
    }
  });
});

const totals =
  (total: number, swapTotal = 0) =>
  async (): Promise<MemoryTotals> => ({ total, swapTotal });

function mountinfo(...lines: string[]): string {
  return `${['22 27 0:21 / /proc rw,relatime - proc proc rw', '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda1 rw', ...lines].join(
    '\n',
  )}\n`;
}

describe('probe on prepared /proc and /sys trees', () => {
  const fakeRoot = (t: { after: (fn: () => void) => void }, files: Record<string, string>) => {
    const { dir, remove } = temporaryDirectory('tune-lint-fakeroot-');
    t.after(remove);
    writeTree(dir, { '/proc/self/status': statusFile('node', 4242, 1, 50000), ...files });
    return dir;
  };

  test('cgroup v1 in a container that sees only its own subtree (mount root /docker/abc)', async (t) => {
    const root = fakeRoot(t, {
      '/proc/self/cgroup': '5:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n0::/\n',
      '/proc/self/mountinfo': mountinfo(
        '35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory',
        '32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct',
      ),
      '/sys/fs/cgroup/memory/memory.limit_in_bytes': '536870912\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '150000\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    });
    const facts = await probeHost({ root, memory: totals(8 * GIB, GIB), cpuAffinity: () => 4 });
    assert.deepEqual(facts.ram, { value: 512 * MIB, source: 'probe (cgroup v1 limit)' });
    assert.deepEqual(facts.cpus, { value: 1.5, source: 'probe (cgroup v1 CPU quota)' });
    assert.deepEqual(facts.swap, { value: GIB, source: 'probe (SwapTotal)' });
  });

  test('cgroup v1: a limit on a parent group applies; unlimited values and -1 quotas do not', async (t) => {
    const root = fakeRoot(t, {
      '/proc/self/cgroup': '4:memory:/lxc/web/app\n2:cpu:/lxc/web/app\n',
      '/proc/self/mountinfo': mountinfo(
        '35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory',
        '32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu',
      ),
      '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712\n',
      '/sys/fs/cgroup/memory/lxc/memory.limit_in_bytes': '9223372036854771712\n',
      '/sys/fs/cgroup/memory/lxc/web/memory.limit_in_bytes': '268435456\n',
      '/sys/fs/cgroup/memory/lxc/web/app/memory.limit_in_bytes': '9223372036854771712\n',
      '/sys/fs/cgroup/cpu/lxc/web/app/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/lxc/web/app/cpu.cfs_period_us': '100000\n',
    });
    const facts = await probeHost({ root, memory: totals(8 * GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.ram, { value: 256 * MIB, source: 'probe (cgroup v1 limit)' });
    assert.deepEqual(facts.cpus, { value: 2, source: 'probe (CPU affinity)' });
  });

  test('cgroup v2: memory.max and cpu.max of the group and its ancestors', async (t) => {
    const root = fakeRoot(t, {
      '/proc/self/cgroup': '0::/system.slice/apache2.service\n',
      '/proc/self/mountinfo': mountinfo('30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate'),
      '/sys/fs/cgroup/system.slice/apache2.service/memory.max': 'max\n',
      '/sys/fs/cgroup/system.slice/memory.max': '1073741824\n',
      '/sys/fs/cgroup/system.slice/apache2.service/cpu.max': '200000 100000\n',
      '/sys/fs/cgroup/system.slice/cpu.max': 'max 100000\n',
    });
    const facts = await probeHost({ root, memory: totals(4 * GIB), cpuAffinity: () => 8 });
    assert.deepEqual(facts.ram, { value: GIB, source: 'probe (cgroup v2 limit)' });
    assert.deepEqual(facts.cpus, { value: 2, source: 'probe (cgroup v2 CPU quota)' });
  });

  test('cgroup v2 in a cgroup namespace (0::/) and a limit above MemTotal', async (t) => {
    const root = fakeRoot(t, {
      '/proc/self/cgroup': '0::/\n',
      '/proc/self/mountinfo': mountinfo('30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw'),
      '/sys/fs/cgroup/memory.max': String(64 * GIB),
      '/sys/fs/cgroup/cpu.max': '33333 100000\n',
    });
    const facts = await probeHost({ root, memory: totals(4 * GIB), cpuAffinity: () => 8 });
    assert.deepEqual(facts.ram, { value: 4 * GIB, source: 'probe (MemTotal)' });
    assert.deepEqual(facts.cpus, { value: 0.33, source: 'probe (cgroup v2 CPU quota)' });
  });

  const apacheTree = (extra: Record<string, string>) => ({
    '/proc/self/cgroup': '0::/\n',
    '/proc/self/mountinfo': mountinfo('40 27 0:50 / /srv/web\\040root rw - nfs4 nas:/export/web\\040root rw'),
    '/proc/sys/net/core/somaxconn': '4096\n',
    '/proc/1/status': statusFile('systemd', 1, 0, 12000),
    '/proc/2/status': statusFile('kthreadd', 2, 0),
    '/proc/100/status': statusFile('apache2', 100, 1, 9000),
    '/proc/100/smaps_rollup': smapsRollup(9000, 4000),
    '/proc/101/status': statusFile('apache2', 101, 100, 30000),
    '/proc/101/smaps_rollup': smapsRollup(30000, 20000),
    '/proc/102/status': statusFile('apache2', 102, 100, 32000),
    '/proc/102/smaps_rollup': smapsRollup(32000, 23000),
    '/proc/103/status': statusFile('apache2', 103, 100, 31000),
    '/proc/103/smaps_rollup': smapsRollup(31000, 15000),
    '/proc/200/status': statusFile('mysqld', 200, 1, 90000),
    '/proc/uptime': '7200.50 7000.00\n',
    '/dev/kmsg':
      '6,1001,3600000000,-;Out of memory: Killed process 4242 (apache2) total-vm:312000kB, anon-rss:98000kB\n' +
      '6,1002,3700000000,-;Memory cgroup out of memory: Killed process 77 (node) total-vm:1000kB\n' +
      '6,1003,7000000000,-;oom-kill:constraint=CONSTRAINT_MEMCG\n' +
      '6,1004,7100000000,-;Memory cgroup out of memory: Killed process 900 (mariadbd) total-vm:900000kB\n',
    ...extra,
  });

  test('Apache children by PSS (the parent left out), mysqld by RSS, mounts with escapes, somaxconn', async (t) => {
    const root = fakeRoot(t, apacheTree({ '/proc/104/cmdline': 'apache2\0-k\0start\0' }));
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.perChild, {
      value: { median: 20000 * KIB, max: 23000 * KIB, count: 3, metric: 'pss', p90: 23000 * KIB },
      source: 'probe (apache2 children)',
    });
    assert.deepEqual(facts.apacheRunning, { value: true, source: 'probe (apache2 PID 100)' });
    assert.deepEqual(facts.mysqlRunning, { value: true, source: 'probe (mysqld PID 200)' });
    assert.deepEqual(facts.mysqlRss, { value: 90000 * KIB, source: 'probe (VmRSS of mysqld PID 200)' });
    assert.deepEqual(facts.somaxconn, { value: 4096, source: 'probe (/proc/sys/net/core/somaxconn)' });
    assert.deepEqual(facts.oomKills, {
      value: [
        { process: 'apache2', pid: 4242, secondsAgo: 3601 },
        { process: 'mariadbd', pid: 900, secondsAgo: 101 },
      ],
      source: 'probe (kernel log, /dev/kmsg)',
    });
    assert.deepEqual(facts.mounts?.value[2], { mountPoint: '/srv/web root', fsType: 'nfs4', source: 'nas:/export/web root' });
    assert.equal(facts.notes, undefined);
  });

  test('children that served requests give the size; idle ones only when none has, and then never raise a limit', async (t) => {
    // 101 and 102 have used 0.4 s and 0.9 s of CPU; 103 (the smallest) was only forked.
    const served = {
      '/proc/101/stat': statFile('apache2', 101, 100, 30, 10),
      '/proc/102/stat': statFile('apache2 (worker)', 102, 100, 70, 20),
      '/proc/103/stat': statFile('apache2', 103, 100, 1, 1),
    };
    const facts = await probeHost({ root: fakeRoot(t, apacheTree(served)), memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.perChild?.value, { median: 21500 * KIB, max: 23000 * KIB, count: 2, metric: 'pss', p90: 23000 * KIB, busy: 2 });
    const idle = {
      '/proc/101/stat': statFile('apache2', 101, 100, 1, 0),
      '/proc/102/stat': statFile('apache2', 102, 100, 0, 2),
      '/proc/103/stat': statFile('apache2', 103, 100, 1, 1),
    };
    const idleFacts = await probeHost({ root: fakeRoot(t, apacheTree(idle)), memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual([idleFacts.perChild?.value.busy, idleFacts.perChild?.value.count], [0, 3]);
    assert.match(describeHostFacts(idleFacts).join('\n'), /all idle: never raises a limit/);
  });

  test('a zombie of the name is no running server', async (t) => {
    const zombie = statusFile('apache2', 700, 1).replace('State:\tS (sleeping)', 'State:\tZ (zombie)');
    const root = fakeRoot(t, {
      '/proc/self/cgroup': '0::/\n',
      '/proc/1/status': statusFile('systemd', 1, 0, 12000),
      '/proc/700/status': zombie,
    });
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.apacheRunning, { value: false, source: 'probe (no apache2 or httpd process of root)' });
  });

  test('measure: a child served when its CPU time grew over the run, whichever round held the most memory', (t) => {
    const root = fakeRoot(
      t,
      apacheTree({ '/proc/101/stat': statFile('apache2', 101, 100, 5, 1), '/proc/102/stat': statFile('apache2', 102, 100, 3, 0) }),
    );
    const sampler = new PeakSampler(root);
    sampler.sample();
    // A short load: the children grew no bigger, so the first round stays the peak; only 102's CPU time moved, by one tick.
    writeTree(root, {
      '/proc/101/smaps_rollup': smapsRollup(29000, 19000),
      '/proc/101/stat': statFile('apache2', 101, 100, 5, 1),
      '/proc/102/stat': statFile('apache2', 102, 100, 3, 1),
    });
    sampler.sample();
    const notes: string[] = [];
    const sizes = sampler.sizes(notes);
    assert.equal(sampler.rounds, 2);
    assert.deepEqual(sizes.apache, { median: 23000 * KIB, max: 23000 * KIB, count: 1, metric: 'pss', p90: 23000 * KIB, busy: 1 });
    assert.deepEqual(notes, []);
  });

  test('the children measured say which MPM and PHP they run, from the libraries they have mapped', async (t) => {
    const maps = [
      '55d0 r-xp 0 08:01 1 /usr/sbin/apache2',
      '7f00 r-xp 0 08:01 2 /usr/lib/apache2/modules/mod_mpm_event.so',
      '7f10 r-xp 0 08:01 3 /usr/lib/x86_64-linux-gnu/libc.so.6',
      '',
    ].join('\n');
    const root = fakeRoot(t, apacheTree({ '/proc/101/maps': maps }));
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.perChild?.value.measuredOn, { mpm: 'event', php: false });
    const prefork = fakeRoot(
      t,
      apacheTree({
        '/proc/101/maps': maps.replace('mod_mpm_event.so', 'mod_mpm_prefork.so').replace('libc.so.6', '../apache2/modules/libphp8.2.so'),
      }),
    );
    assert.deepEqual((await probeHost({ root: prefork, memory: totals(GIB), cpuAffinity: () => 2 })).perChild?.value.measuredOn, {
      mpm: 'prefork',
      php: true,
    });
  });

  test('a child whose PSS cannot be read: RSS for all children, and a note', async (t) => {
    const root = fakeRoot(t, apacheTree({}));
    fs.rmSync(path.join(root, 'proc/102/smaps_rollup'));
    fs.mkdirSync(path.join(root, 'proc/102/smaps_rollup'));
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.perChild?.value, { median: 31000 * KIB, max: 32000 * KIB, count: 3, metric: 'rss', p90: 32000 * KIB });
    assert.deepEqual(facts.notes, [
      'smaps_rollup of PID 102 unreadable (EISDIR); used RSS, which counts shared pages in every process and so over-estimates (run as root for PSS)',
    ]);
  });

  test('a child that exits while being read is left out; a kernel without smaps_rollup is read through smaps', async (t) => {
    const root = fakeRoot(t, apacheTree({ '/proc/102/smaps': 'Rss: 32000 kB\nPss:  10000 kB\nRss: 100 kB\nPss:  1000 kB\n' }));
    fs.rmSync(path.join(root, 'proc/102/smaps_rollup'));
    fs.rmSync(path.join(root, 'proc/103/smaps_rollup'));
    fs.rmSync(path.join(root, 'proc/103/status'));
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.perChild?.value, { median: 15500 * KIB, max: 20000 * KIB, count: 2, metric: 'pss', p90: 20000 * KIB });
  });

  test('Apache without children, no MySQL, unreadable somaxconn: facts as far as they go, and notes', async (t) => {
    const root = fakeRoot(t, {
      '/proc/self/cgroup': '0::/\n',
      '/proc/self/mountinfo': mountinfo(),
      '/proc/100/status': statusFile('httpd', 100, 1, 9000),
    });
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.apacheRunning, { value: true, source: 'probe (httpd PID 100)' });
    assert.equal(facts.perChild, undefined);
    assert.deepEqual(facts.mysqlRunning, { value: false, source: 'probe (no mysqld or mariadbd process of root or mysql)' });
    assert.deepEqual(facts.notes, [
      'httpd PID 100 runs without children to measure',
      'net.core.somaxconn unreadable (ENOENT)',
      `${root}/proc/uptime unreadable (ENOENT): OOM kills not checked`,
    ]);
  });

  test('no /proc at all: empty facts and notes, never an exception', async (t) => {
    const { dir, remove } = temporaryDirectory('tune-lint-noproc-');
    t.after(remove);
    const failing = async (): Promise<MemoryTotals> => {
      throw new Error('no meminfo');
    };
    const facts = await probeHost({
      root: dir,
      memory: failing,
      cpuAffinity: () => {
        throw new Error('no sched_getaffinity');
      },
    });
    assert.deepEqual(facts, {
      notes: [
        'no /proc on this machine: cgroup limits, processes, mounts and somaxconn were not probed',
        'memory totals unavailable (no meminfo)',
        'CPU count unavailable (no sched_getaffinity)',
      ],
    });
  });

  test('no /proc, but systeminformation and the CPU count still answer (as on macOS)', async (t) => {
    const { dir, remove } = temporaryDirectory('tune-lint-noproc-');
    t.after(remove);
    const facts = await probeHost({ root: dir });
    assert.equal(facts.ram?.source, 'probe (MemTotal)');
    assert.ok(facts.ram.value > 0);
    assert.equal(facts.cpus?.source, 'probe (CPU affinity)');
    assert.equal(facts.apacheRunning, undefined);
    assert.equal(facts.mounts, undefined);
    assert.deepEqual(facts.notes, ['no /proc on this machine: cgroup limits, processes, mounts and somaxconn were not probed']);
  });

  test('with hidepid, a user who cannot see other processes gets no "not running" claims', async (t) => {
    const unreadable = unreadableByNobody();
    if (unreadable !== undefined) {
      t.skip(unreadable);
      return;
    }
    const root = fakeRoot(t, {
      '/proc/self/cgroup': '0::/\n',
      '/proc/self/mountinfo': `${['22 27 0:21 / /proc rw,relatime - proc proc rw,hidepid=invisible', '27 1 254:0 / / rw - ext4 /dev/vda1 rw'].join('\n')}\n`,
    });
    fs.chmodSync(root, 0o755);
    const asNobody = await probeInChildProcess({ uid: NOBODY, root });
    assert.equal(asNobody.facts.apacheRunning, undefined);
    assert.equal(asNobody.facts.mysqlRunning, undefined);
    assert.ok(asNobody.facts.notes?.some((note) => note.startsWith('/proc is mounted with hidepid')));
    const asRoot = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 1 });
    assert.equal(asRoot.apacheRunning?.value, false);
  });
});

describe('parseMountInfo', () => {
  test('optional fields, octal escapes and the separator', () => {
    const [entry] = parseMountInfo('36 35 98:0 /mnt1 /mnt\\0402 rw,noatime master:1 shared:2 - ext3 /dev/root rw,errors=continue\n');
    assert.deepEqual(entry, {
      root: '/mnt1',
      mountPoint: '/mnt 2',
      mountOptions: ['rw', 'noatime'],
      fsType: 'ext3',
      source: '/dev/root',
      superOptions: ['rw', 'errors=continue'],
    });
    assert.deepEqual(parseMountInfo('garbage\n\n'), []);
  });
});

describe('the servers a host runs: trusted by owner, versions read from their binaries, nothing run', () => {
  test('the version a server reports, MySQL and MariaDB told apart', () => {
    assert.deepEqual(parseDatabaseVersion('Ver 10.11.19-MariaDB-0+deb12u1 Debian 12'), { product: 'mariadb', version: '10.11.19' });
    assert.deepEqual(parseDatabaseVersion('Ver 8.0.36 MySQL Community Server - GPL'), { product: 'mysql', version: '8.0.36' });
    assert.deepEqual(parseDatabaseVersion('Ver 8.0.36-28 Percona Server (GPL), Release 28'), { product: 'mysql', version: '8.0.36' });
  });

  /** A fake root with `/proc/self` and these processes, each `[name, pid, ppid, uid, exe]`; an exe is linked as /proc/PID/exe. */
  const hostWith = (t: { after: (fn: () => void) => void }, processes: readonly [string, number, number, number, string?][]) => {
    const { dir, remove } = temporaryDirectory('tune-lint-servers-');
    t.after(remove);
    const files: Record<string, string> = { '/proc/self/status': statusFile('node', 4242, 1, 50000) };
    for (const [name, pid, ppid, uid] of processes) {
      files[`/proc/${pid}/status`] = statusFile(name, pid, ppid, 9000, uid);
      files[`/proc/${pid}/cmdline`] = `${name}\0`;
    }
    writeTree(dir, files);
    for (const [, pid, , , exe] of processes) if (exe !== undefined) fs.symlinkSync(exe, path.join(dir, 'proc', String(pid), 'exe'));
    return dir;
  };

  /** A program that leaves `ran` beside itself if anything ever runs it. */
  const tripwire = (dir: string, name: string): { program: string; ran: () => boolean } => {
    const program = path.join(dir, name);
    fs.writeFileSync(
      program,
      `#!/bin/sh\ntouch "${dir}/ran"\necho "${name}  Ver 99.1.1 for Linux"\necho "Server version: Apache/9.9.9"\n`,
      {
        mode: 0o755,
      },
    );
    return { program, ran: () => fs.existsSync(path.join(dir, 'ran')) };
  };

  test("a local user's program named mariadbd or apache2 is not run, not believed, not measured", async (t) => {
    const { dir: bin, remove } = temporaryDirectory('tune-lint-tripwire-');
    t.after(remove);
    const mariadbd = tripwire(bin, 'mariadbd');
    const root = hostWith(t, [
      ['mariadbd', 300, 1, 1000, mariadbd.program],
      ['apache2', 400, 1, 1000, mariadbd.program],
      ['apache2', 401, 400, 1000],
    ]);
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.equal(mariadbd.ran(), false, 'the program was run');
    assert.equal(facts.databaseServer, undefined);
    assert.equal(facts.httpdVersion, undefined);
    assert.deepEqual(facts.mysqlRunning, { value: false, source: 'probe (no mysqld or mariadbd process of root or mysql)' });
    assert.deepEqual(facts.apacheRunning, { value: false, source: 'probe (no apache2 or httpd process of root)' });
    assert.equal(facts.perChild, undefined, "the look-alike's children are not measured");
    assert.ok(
      facts.notes?.includes(
        'mariadbd PID 300 runs as uid 1000, not as root, this user or mysql: not taken for the database server, nor measured, nor asked',
      ),
      JSON.stringify(facts.notes),
    );
    assert.ok(facts.notes?.some((note) => note.startsWith('apache2 PID 400 runs as uid 1000, not as root or this user')));
  });

  test("even root's own server is not run for its version: a binary that is not ELF gives a note", async (t) => {
    const { dir: bin, remove } = temporaryDirectory('tune-lint-tripwire-');
    t.after(remove);
    const mysqld = tripwire(bin, 'mysqld');
    const root = hostWith(t, [['mysqld', 200, 1, 0, mysqld.program]]);
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.equal(mysqld.ran(), false, 'the binary was run');
    assert.deepEqual(facts.mysqlRunning, { value: true, source: 'probe (mysqld PID 200)' });
    assert.equal(facts.databaseServer, undefined);
    assert.ok(facts.notes?.includes(`no version read from ${mysqld.program}, PID 200: not an ELF binary`), JSON.stringify(facts.notes));
  });

  test("the mysql account's server is believed; MySQL's release from its .rodata, MariaDB's and httpd's too", async (t) => {
    const { dir: bin, remove } = temporaryDirectory('tune-lint-elf-');
    t.after(remove);
    const binary = (name: string, rodata: string, padding = 0) => {
      const file = path.join(bin, name);
      fs.writeFileSync(file, elfWithRodata(rodata, padding), { mode: 0o755 });
      return file;
    };
    // As in MySQL 9.7.4's mysqld: "9.7.4.0" before the option group "mysqld-9.7", "MySQL 9.7.4" after.
    const mysqld = binary('mysqld', 'x\x009.7.4.0\0option 9.7.45x\0mysqld-9.7\0init\0MySQL 9.7.4\0');
    // MariaDB has its "mysqld-10.11" group too, followed by "mariadb-10.11"; its version names the product.
    const mariadbd = binary('mariadbd', '8.0.36\0mysqld-10.11\0mariadb-10.11\0' + 'y'.repeat(100) + '10.11.19-MariaDB\0', 2 * MIB);
    const httpd = binary('httpd', 'Apache/2\0Apache/2.4.62 (Red Hat)\0');
    const root = hostWith(t, [
      ['mysqld', 200, 1, 27, mysqld],
      ['httpd', 100, 1, 0, httpd],
    ]);
    writeTree(root, { '/etc/passwd': 'root:x:0:0:root:/root:/bin/bash\nmysql:x:27:27:MySQL Server:/var/lib/mysql:/sbin/nologin\n' });
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.databaseServer, { value: 'mysql=9.7.4', source: `probe (version in ${mysqld}, PID 200)` });
    assert.deepEqual(facts.httpdVersion, { value: '2.4.62', source: `probe (version in ${httpd}, PID 100)` });
    fs.unlinkSync(path.join(root, 'proc', '200', 'exe'));
    fs.symlinkSync(mariadbd, path.join(root, 'proc', '200', 'exe'));
    const again = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(again.databaseServer, { value: 'mariadb=10.11.19', source: `probe (version in ${mariadbd}, PID 200)` });
  });

  test('an installed binary counts only when root owns it and every directory above it', async (t) => {
    if (process.geteuid?.() !== 0) {
      if (inCI) assert.fail('CI=true runs as root: a file of another user is made here');
      t.skip('needs root to give a file to another user');
      return;
    }
    const root = hostWith(t, []);
    writeTree(root, { '/usr/sbin/mariadbd': '', '/usr/libexec/mysqld': '' });
    fs.writeFileSync(path.join(root, 'usr/sbin/mariadbd'), elfWithRodata('10.11.6-MariaDB\0'), { mode: 0o755 });
    fs.writeFileSync(path.join(root, 'usr/libexec/mysqld'), elfWithRodata('\0mysqld-8.0\0 8.0.36\0'), { mode: 0o755 });
    for (const dir of ['', 'usr', 'usr/sbin', 'usr/libexec']) fs.chmodSync(path.join(root, dir), 0o755);
    const installed = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(installed.databaseServer, { value: 'mariadb=10.11.6', source: 'probe (version in /usr/sbin/mariadbd, installed)' });
    fs.chownSync(path.join(root, 'usr/sbin/mariadbd'), 1000, 1000);
    const userOwned = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(userOwned.databaseServer, { value: 'mysql=8.0.36', source: 'probe (version in /usr/libexec/mysqld, installed)' });
    fs.chmodSync(path.join(root, 'usr/libexec'), 0o777);
    const writableDirectory = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.equal(writableDirectory.databaseServer, undefined);
  });

  test('a --help --verbose run alone: no server runs', async (t) => {
    const root = hostWith(t, []);
    writeTree(root, {
      '/proc/300/status': statusFile('mariadbd', 300, 1, 60000),
      '/proc/300/cmdline': 'mariadbd\0--help\0--verbose\0',
    });
    const facts = await probeHost({ root, memory: totals(GIB), cpuAffinity: () => 2 });
    assert.deepEqual(facts.mysqlRunning, { value: false, source: 'probe (no mysqld or mariadbd process of root or mysql)' });
  });
});
