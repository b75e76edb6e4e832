import { UserError } from '../util/user-error.js';

/**
 * What tune-lint knows about the machine a config will run on. Every fact
 * carries its source, because a sizing message is only as good as the facts
 * behind it and people must be able to check them.
 */
export interface Fact<T> {
  readonly value: T;
  /** 'probe (MemTotal)', 'flag --host-ram', 'profile host.yaml', 'ansible facts web01.json', '.tune-lint.yaml', 'estimate (...)' */
  readonly source: string;
}

/** Memory of one Apache child process, in bytes. `count` is 0 when the figure was given or estimated, not measured. */
export interface ChildMemory {
  readonly median: number;
  readonly max: number;
  readonly count: number;
  readonly metric: 'pss' | 'rss';
  /** For measured children: the MPM and whether PHP runs in them, as the libraries they have mapped show. */
  readonly measuredOn?: RunningApache;
}

/** What a running Apache's children are, from `/proc/PID/maps`: the MPM module mapped (when it is a module) and mod_php. */
export interface RunningApache {
  readonly mpm: 'prefork' | 'worker' | 'event' | undefined;
  readonly php: boolean;
}

/** What a running MySQL or MariaDB server said, read-only, over its local socket. */
export interface MysqlLive {
  /** As a target: `mariadb=10.11.19`, `mysql=8.0.36`. */
  readonly server: string;
  /** Seconds since the server started: the span its counters cover. */
  readonly uptime: number;
  /** SHOW GLOBAL VARIABLES, names lower-cased. */
  readonly variables: Readonly<Record<string, string>>;
  /** SHOW GLOBAL STATUS, names lower-cased. */
  readonly status: Readonly<Record<string, string>>;
  /** Tables, data and index bytes per storage engine, of the tables the account can see; absent when the query was skipped (a note says why). */
  readonly engines?: readonly EngineUse[];
}

export interface EngineUse {
  readonly engine: string;
  readonly tables: number;
  readonly dataBytes: number;
  readonly indexBytes: number;
}

/** What a running Apache said about itself: its mod_status page on a loopback address, and its error log. */
export interface ApacheLive {
  readonly status?: ApacheStatus;
  /** AH00161/AH00484 "server reached MaxRequestWorkers" lines of the error log. */
  readonly maxWorkersReached?: LogEvidence;
}

/** `/server-status?auto`: the scoreboard at the moment it was read, and the totals since the start. */
export interface ApacheStatus {
  readonly url: string;
  readonly busyWorkers: number;
  readonly idleWorkers: number;
  /** Slots of the scoreboard: one character per worker the server may run. */
  readonly scoreboardSlots: number;
  readonly totalAccesses?: number;
  readonly uptime?: number;
  readonly mpm?: string;
}

export interface LogEvidence {
  readonly file: string;
  readonly count: number;
  /** The dates of the first and last line, as the log writes them. */
  readonly first: string;
  readonly last: string;
}

/** A process the kernel's OOM killer ended, from the kernel log. */
export interface OomKill {
  readonly process: string;
  readonly pid: number;
  /** How long before the probe the kernel killed it, in seconds. */
  readonly secondsAgo: number;
}

export interface MountEntry {
  readonly mountPoint: string;
  readonly fsType: string;
  /** The mounted device or remote share, e.g. `/dev/vda1` or `nas:/export/www`. */
  readonly source: string;
}

export interface HostFacts {
  /** Bytes; when probing, the lower of MemTotal and the cgroup memory limit. */
  readonly ram?: Fact<number>;
  /** May be fractional: a cgroup CPU quota of 150000/100000 is 1.5 CPUs. */
  readonly cpus?: Fact<number>;
  readonly swap?: Fact<number>;
  /** Apache children, never the parent. */
  readonly perChild?: Fact<ChildMemory>;
  /** php-fpm children (the pools' workers), never the master. */
  readonly phpPerChild?: Fact<ChildMemory>;
  readonly apacheRunning?: Fact<boolean>;
  readonly mysqlRunning?: Fact<boolean>;
  readonly mysqlRss?: Fact<number>;
  readonly mounts?: Fact<readonly MountEntry[]>;
  readonly somaxconn?: Fact<number>;
  /** The httpd release this host runs, or has installed: `2.4.71`. */
  readonly httpdVersion?: Fact<string>;
  /** The database server this host runs, or has installed, as a target: `mariadb=10.11.19`, `mysql=8.0.36`. */
  readonly databaseServer?: Fact<string>;
  /** The running database server's variables, counters and data sizes. */
  readonly mysqlLive?: Fact<MysqlLive>;
  /** The running Apache's status page and error log. */
  readonly apacheLive?: Fact<ApacheLive>;
  /** Apache, php-fpm and database processes the kernel killed for want of memory. */
  readonly oomKills?: Fact<readonly OomKill[]>;
  /** Fallbacks taken and measurements that failed, one sentence each. */
  readonly notes?: readonly string[];
  /** What the running servers could not be asked, and why: one sentence each. */
  readonly liveNotes?: readonly string[];
}

export type HostFactName = Exclude<keyof HostFacts, 'notes' | 'liveNotes'>;

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
export function summarizeChildMemory(samples: readonly number[], metric: 'pss' | 'rss'): ChildMemory | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median =
    sorted.length % 2 === 1 ? (sorted[middle] as number) : Math.round(((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2);
  return { median, max: sorted[sorted.length - 1] as number, count: sorted.length, metric };
}
