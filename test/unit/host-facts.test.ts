import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { estimatePerChild } from '../../src/languages/apache/per-child-estimate.js';
import { isPhpModule } from '../../src/languages/apache/names.js';
import type { MountEntry } from '../../src/host/facts.js';
import { filesystemTypeOf, hasNetworkMounts, isNetworkFilesystem, networkMountOf, summarizeChildMemory } from '../../src/host/facts.js';
import { describeHostFacts } from '../../src/host/format.js';

const MIB = 1024 * 1024;

const MOUNTS: MountEntry[] = [
  { mountPoint: '/', fsType: 'ext4', source: '/dev/vda1' },
  { mountPoint: '/var', fsType: 'xfs', source: '/dev/vdb1' },
  { mountPoint: '/var/www', fsType: 'nfs4', source: 'nas:/export/www' },
  { mountPoint: '/var/www-static', fsType: 'ext4', source: '/dev/vdc1' },
  { mountPoint: '/srv/share', fsType: 'cifs', source: '//nas/share' },
  { mountPoint: '/srv/share', fsType: 'tmpfs', source: 'tmpfs' },
];

describe('filesystemTypeOf', () => {
  test('picks the longest mount point that contains the path', () => {
    assert.equal(filesystemTypeOf(MOUNTS, '/var/www/html/index.php')?.fsType, 'nfs4');
    assert.equal(filesystemTypeOf(MOUNTS, '/var/www')?.fsType, 'nfs4');
    assert.equal(filesystemTypeOf(MOUNTS, '/var/log/apache2')?.fsType, 'xfs');
    assert.equal(filesystemTypeOf(MOUNTS, '/etc/apache2')?.fsType, 'ext4');
  });

  test('compares whole path components: /var/www-static is not under /var/www', () => {
    assert.equal(filesystemTypeOf(MOUNTS, '/var/www-static/logo.png')?.source, '/dev/vdc1');
  });

  test('a later mount over the same point hides the earlier one', () => {
    assert.equal(filesystemTypeOf(MOUNTS, '/srv/share/x')?.fsType, 'tmpfs');
  });

  test('no answer for a relative path or an empty table', () => {
    assert.equal(filesystemTypeOf(MOUNTS, 'var/www'), undefined);
    assert.equal(filesystemTypeOf([], '/var/www'), undefined);
  });
});

describe('networkMountOf', () => {
  test('the network mount holding a path, not a local one mounted inside it', () => {
    assert.equal(networkMountOf(MOUNTS, '/var/www/html')?.source, 'nas:/export/www');
    assert.equal(networkMountOf(MOUNTS, '/var/www-static/logo.png'), undefined);
    assert.equal(networkMountOf(MOUNTS, '/srv/share/x'), undefined);
    assert.equal(networkMountOf(MOUNTS, '/etc/apache2'), undefined);
  });

  test('whether a table has a network mount at all', () => {
    assert.equal(hasNetworkMounts(MOUNTS), true);
    assert.equal(hasNetworkMounts(MOUNTS.filter((mount) => !isNetworkFilesystem(mount.fsType))), false);
    assert.equal(hasNetworkMounts([]), false);
  });

  test('answers as the whole table does, for any table and path', () => {
    const component = fc.constantFrom('var', 'www', 'srv', 'a', 'www-static');
    const absolute = fc.array(component, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`);
    const mount = fc.record({
      mountPoint: fc.oneof(
        absolute,
        absolute.map((point) => `${point}/`),
      ),
      fsType: fc.constantFrom('ext4', 'nfs4', 'tmpfs', 'fuse.sshfs', 'fuse.lxcfs'),
      source: fc.constantFrom('a', 'b', 'c'),
    });
    fc.assert(
      fc.property(fc.array(mount, { maxLength: 8 }), absolute, (mounts, where) => {
        const holder = filesystemTypeOf(mounts, where);
        assert.equal(networkMountOf(mounts, where), holder !== undefined && isNetworkFilesystem(holder.fsType) ? holder : undefined);
      }),
    );
  });
});

describe('isNetworkFilesystem', () => {
  test('network and host-shared filesystems', () => {
    for (const type of [
      'nfs',
      'nfs4',
      'cifs',
      'smb3',
      'smbfs',
      'fuse.sshfs',
      'fuse.s3fs',
      'glusterfs',
      'ceph',
      '9p',
      'vboxsf',
      'virtiofs',
      'NFS4',
    ]) {
      assert.equal(isNetworkFilesystem(type), true, type);
    }
  });

  test('local filesystems, including FUSE layers that only re-present local data', () => {
    for (const type of ['ext4', 'xfs', 'btrfs', 'tmpfs', 'overlay', 'zfs', 'fuse.fuse-overlayfs', 'fuse.lxcfs', 'fuseblk']) {
      assert.equal(isNetworkFilesystem(type), false, type);
    }
  });
});

describe('summarizeChildMemory', () => {
  test('median of an odd and an even count, the 90th percentile by nearest rank, and max', () => {
    assert.deepEqual(summarizeChildMemory([30, 10, 20], 'pss'), { median: 20, max: 30, count: 3, metric: 'pss', p90: 30 });
    assert.deepEqual(summarizeChildMemory([40, 10, 20, 30], 'rss'), { median: 25, max: 40, count: 4, metric: 'rss', p90: 40 });
    const twenty = Array.from({ length: 20 }, (_, index) => index + 1);
    assert.equal(summarizeChildMemory(twenty, 'pss')?.p90, 18);
    assert.deepEqual(summarizeChildMemory([5], 'pss', 0), { median: 5, max: 5, count: 1, metric: 'pss', p90: 5, busy: 0 });
    assert.equal(summarizeChildMemory([], 'pss'), undefined);
  });
});

describe('estimatePerChild', () => {
  test('the profile constants of tuning-rules §0.1, labelled as estimates with their reasoning', () => {
    const preforkPhp = estimatePerChild('prefork', ['mpm_prefork_module', 'php_module']);
    assert.equal(preforkPhp.value.median, 64 * MIB);
    assert.match(preforkPhp.source, /^estimate \(prefork with mod_php: 64 MiB/);
    assert.equal(estimatePerChild('prefork', ['mpm_prefork_module', 'rewrite_module']).value.median, 16 * MIB);
    const event = estimatePerChild('event', ['mpm_event_module', 'proxy_fcgi_module']);
    assert.equal(event.value.median, 32 * MIB);
    assert.match(event.source, /^estimate \(event without PHP: 32 MiB per process of 25 threads/);
    assert.equal(estimatePerChild('worker', ['php7_module']).value.median, 96 * MIB);
    assert.equal(event.value.count, 0);
  });

  test('mod_php in each spelling a module list can carry, and not php-fpm', () => {
    for (const name of [
      'php_module',
      'php7_module',
      'php5_module',
      'mod_php7.c',
      'mod_php.c',
      '/usr/lib/apache2/modules/libphp8.2.so',
      'libphp7.so',
      'mod_php5.so',
    ]) {
      assert.equal(isPhpModule(name), true, name);
    }
    for (const name of ['proxy_fcgi_module', 'phpfpm_module', 'mod_proxy.c', 'fcgid_module']) assert.equal(isPhpModule(name), false, name);
  });
});

describe('describeHostFacts', () => {
  test('one line per fact, each saying where it came from', () => {
    const lines = describeHostFacts({
      ram: { value: 500 * MIB, source: '.tune-lint.yaml' },
      cpus: { value: 1.5, source: 'probe (cgroup v1 CPU quota)' },
      perChild: { value: { median: 20 * MIB, max: 23 * MIB, count: 9, metric: 'pss' }, source: 'probe (apache2 children)' },
      mysqlRunning: { value: false, source: 'probe (no mysqld or mariadbd process)' },
      mounts: { value: MOUNTS.slice(0, 3), source: 'profile host.yaml' },
      notes: ['smaps_rollup of PID 7 unreadable (EACCES); used RSS'],
    });
    assert.deepEqual(lines, [
      'RAM 500 MiB (from .tune-lint.yaml)',
      'CPUs 1.5 (probe: cgroup v1 CPU quota)',
      'per child 20 MiB PSS (median of 9 processes, max 23 MiB; probe: apache2 children)',
      'MySQL not running (probe: no mysqld or mariadbd process)',
      'mounts: 3 (from profile host.yaml)',
      '  network filesystem nfs4 at /var/www (nas:/export/www)',
      'note: smaps_rollup of PID 7 unreadable (EACCES); used RSS',
    ]);
  });

  test('given and estimated per-child figures show no spread', () => {
    assert.deepEqual(
      describeHostFacts({ perChild: { value: { median: 20 * MIB, max: 20 * MIB, count: 0, metric: 'pss' }, source: 'flag --per-child' } }),
      ['per child 20 MiB (from flag --per-child)'],
    );
    const [estimate] = describeHostFacts({ perChild: estimatePerChild('prefork', ['php_module']) });
    assert.match(estimate ?? '', /^per child 64 MiB \(estimate: prefork with mod_php/);
  });

  test('nothing known, nothing said', () => {
    assert.deepEqual(describeHostFacts({}), []);
  });
});
