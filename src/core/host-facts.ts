/*
 * The host facts' shapes, shared by every layer that reads them: the
 * languages (what a server consumes depends on what was measured), the
 * probe and the live mode that gather them, the rules and the reports.
 * Types only; the functions over them are in src/host/facts.ts.
 */

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
  /** The 90th percentile of the processes the figures are of: what a child grows to, where the median is one that has not yet. */
  readonly p90?: number;
  /**
   * Of the processes measured, how many had served requests (CPU time used):
   * the figures are theirs when any had. 0 means every one was idle, and an
   * idle child is a fraction of what it grows to (1.3 MiB idle, 54 MiB after
   * 31 requests, for a php-fpm child measured here): such figures never
   * raise a limit. Absent for a figure given or estimated.
   */
  readonly busy?: number;
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
  /** The accounts, from mysql.global_priv or mysql.user; no password or hash is kept. Absent when not read (a note says why). */
  readonly accounts?: readonly LiveAccount[];
  /** The tables by name, read schema by schema within the live read time; absent when not read (a note says why). */
  readonly tables?: LiveTables;
  /** What the server's error log says, when it is a file the server owns. */
  readonly errorLog?: MysqlErrorLog;
}

/** One account as the live rules judge it. */
export interface LiveAccount {
  readonly user: string;
  readonly host: string;
  /** The authentication plugins that log it in, `mysql_native_password` or `mysql_native_password or unix_socket`. */
  readonly plugin: string;
  /** A password login with an empty password is accepted. */
  readonly passwordless: boolean;
  /** Its password hash equals that of a common password (checked here, the hash never leaves the reader). */
  readonly commonPassword: boolean;
  /** Locked accounts and roles log nobody in. */
  readonly locked: boolean;
}

/** `schema.table` names, the first LIVE_TABLE_NAMES of them, and how many there are. */
export interface TableNames {
  readonly count: number;
  readonly names: readonly string[];
}

export interface LiveTables {
  /** Base tables of every schema read, the server's own `mysql` schema included: what table_definition_cache holds. */
  readonly total: number;
  readonly myisam: TableNames;
  /** InnoDB tables without a primary key. */
  readonly withoutPrimaryKey: TableNames;
  /** Schemas not read within the live read time: the figures above leave them out. */
  readonly unread: readonly string[];
}

/** The tail of the server's error log: how many errors and warnings, and the most frequent of them. */
export interface MysqlErrorLog {
  readonly file: string;
  /** Bytes read from the end of the file. */
  readonly bytesRead: number;
  readonly errors: number;
  readonly warnings: number;
  /** The most frequent messages, numbers masked as `N`, most frequent first. */
  readonly top: readonly LoggedMessage[];
}

export interface LoggedMessage {
  readonly level: 'error' | 'warning';
  readonly message: string;
  readonly count: number;
  /** The date of its last line. */
  readonly last: string;
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

/** The size the plan gives a child: the 90th percentile of measured children (a child grows to it), else the median or the figure given. */
export function plannedChildSize(child: ChildMemory): number {
  return child.p90 ?? child.median;
}

/** Whether a measured size may raise a limit: not when every child measured was idle. */
export function mayRaise(child: ChildMemory | undefined): boolean {
  return child?.busy !== 0;
}
