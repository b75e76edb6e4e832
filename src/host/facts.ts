import { UserError } from '../util/user-error.js';

import type { ChildMemory, HostFactName, MountEntry } from '../core/host-facts.js';

export type {
  Fact,
  ChildMemory,
  RunningApache,
  MysqlLive,
  EngineUse,
  LiveAccount,
  LiveTables,
  TableNames,
  MysqlErrorLog,
  LoggedMessage,
  ApacheLive,
  ApacheStatus,
  LogEvidence,
  OomKill,
  MountEntry,
  HostFacts,
  HostFactName,
} from '../core/host-facts.js';

/** Every fact, in the order people read them. */
export const HOST_FACT_NAMES: readonly HostFactName[] = [
  'ram',
  'cpus',
  'swap',
  'perChild',
  'phpPerChild',
  'apacheRunning',
  'mysqlRunning',
  'mysqlRss',
  'somaxconn',
  'httpdVersion',
  'databaseServer',
  'mounts',
  'mysqlLive',
  'apacheLive',
  'oomKills',
];

/** Bad host input (flag, profile, facts file, config): one line that names the flag or file:line:col. */
export class HostFactsError extends UserError {
  override readonly name = 'HostFactsError';
}

/**
 * The mount that holds `path`: the longest mount point that is the path or a
 * parent directory of it. When the same point is mounted twice the later
 * entry of the table wins, as it hides the earlier one.
 */
export function filesystemTypeOf(mounts: readonly MountEntry[], path: string): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const mount of mounts) {
    if (!isUnder(path, mount.mountPoint)) continue;
    if (best === undefined || mount.mountPoint.length >= best.mountPoint.length) best = mount;
  }
  return best;
}

/**
 * The network or FUSE mount that holds `path` (isNetworkFilesystem), or
 * undefined. A path under none of the table's network mounts is answered
 * from those alone: rules ask this of every place a config serves (10,000
 * on a big tree), and most tables have no network mount at all.
 */
export function networkMountOf(mounts: readonly MountEntry[], path: string): MountEntry | undefined {
  if (!networkMounts(mounts).some((mount) => isUnder(path, mount.mountPoint))) return undefined;
  const mount = filesystemTypeOf(mounts, path);
  return mount !== undefined && isNetworkFilesystem(mount.fsType) ? mount : undefined;
}

/** Whether any entry of the table is a network or FUSE filesystem. */
export function hasNetworkMounts(mounts: readonly MountEntry[]): boolean {
  return networkMounts(mounts).length > 0;
}

const networkMountLists = new WeakMap<readonly MountEntry[], readonly MountEntry[]>();

function networkMounts(mounts: readonly MountEntry[]): readonly MountEntry[] {
  let network = networkMountLists.get(mounts);
  if (network === undefined) {
    network = mounts.filter((mount) => isNetworkFilesystem(mount.fsType));
    networkMountLists.set(mounts, network);
  }
  return network;
}

function isUnder(path: string, mountPoint: string): boolean {
  if (mountPoint === '/') return path.startsWith('/');
  const point = mountPoint.endsWith('/') ? mountPoint.slice(0, -1) : mountPoint;
  // Compared in place: a string made per mount and path, for every place a config serves on a host with network mounts.
  return path.startsWith(point) && (path.length === point.length || path.charCodeAt(point.length) === SLASH);
}

const SLASH = 0x2f;

const NETWORK_FILESYSTEMS = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb3',
  'smbfs',
  'ncpfs',
  'afs',
  'coda',
  'glusterfs',
  'ceph',
  'cephfs',
  'lustre',
  'gpfs',
  'beegfs',
  'davfs',
  'fuse',
  '9p',
  'virtiofs',
  'vboxsf',
  'vmhgfs',
  'prl_fs',
]);

/** FUSE filesystems that only re-present local data: rootless container layers, lxcfs's /proc views. */
const LOCAL_FUSE_FILESYSTEMS = new Set(['fuse.fuse-overlayfs', 'fuse.lxcfs']);

/**
 * Filesystems where Apache's memory-mapping and sendfile can deliver stale or
 * truncated files (core docs of EnableMMAP and EnableSendfile: "network-mounted
 * filesystems"), including the host-shared folders of VMs and FUSE
 * filesystems (sshfs, s3fs, rclone...), whose page cache the kernel cannot keep
 * coherent with the remote side.
 */
export function isNetworkFilesystem(fsType: string): boolean {
  const type = fsType.toLowerCase();
  if (LOCAL_FUSE_FILESYSTEMS.has(type)) return false;
  return NETWORK_FILESYSTEMS.has(type) || type.startsWith('fuse.') || type.startsWith('nfs');
}

/** Median and max of per-process samples (bytes); undefined when there are none. */
export function summarizeChildMemory(samples: readonly number[], metric: 'pss' | 'rss', busy?: number): ChildMemory | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1 ? (sorted[middle] as number) : Math.round(((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2);
  // Nearest rank: the smallest sample that at least 90 % of the samples are at or below.
  const p90 = sorted[Math.max(0, Math.ceil(sorted.length * 0.9) - 1)] as number;
  const summary = { median, max: sorted[sorted.length - 1] as number, count: sorted.length, metric, p90 };
  return busy === undefined ? summary : { ...summary, busy };
}
