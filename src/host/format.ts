import { formatBytes } from '../util/units.js';
import type { ApacheLive, ChildMemory, Fact, HostFacts, MountEntry, MysqlLive, OomKill } from './facts.js';
import { isNetworkFilesystem } from './facts.js';

/** `(from .tune-lint.yaml)`, or for probe, live and estimate sources the detail: `(probe: cgroup v1 limit)`. */
function origin(source: string): string {
  const detailed = /^(probe|estimate|live) \((.*)\)$/s.exec(source);
  if (detailed !== null) return `(${detailed[1]}: ${detailed[2]})`;
  return `(from ${source})`;
}

/** `per child 20 MiB (from flag --per-child)`, `per child 64 MiB (estimate: prefork with mod_php: ...)`. */
export function perChildLine(fact: Fact<ChildMemory>): string {
  const child = fact.value;
  if (child.count === 0) return `per child ${formatBytes(child.median)} ${origin(fact.source)}`;
  const spread =
    (child.count === 1 ? 'one process' : `median of ${child.count} processes, max ${formatBytes(child.max)}`) +
    (child.busy === undefined ? '' : child.busy === 0 ? ', all idle: never raises a limit' : ` that had served requests`);
  const source = /^probe \((.*)\)$/s.exec(fact.source);
  const provenance = source === null ? `from ${fact.source}` : `probe: ${source[1]}`;
  return `per child ${formatBytes(child.median)} ${child.metric.toUpperCase()} (${spread}; ${provenance})`;
}

function mountLines(fact: Fact<readonly MountEntry[]>): string[] {
  const network = fact.value.filter((mount) => isNetworkFilesystem(mount.fsType));
  const lines = [`mounts: ${fact.value.length} ${origin(fact.source)}`];
  for (const mount of network) lines.push(`  network filesystem ${mount.fsType} at ${mount.mountPoint} (${mount.source})`);
  return lines;
}

/**
 * The facts as people read them, one per line, each with where it came from:
 * `RAM 500 MiB (from .tune-lint.yaml)`,
 * `per child 20 MiB PSS (median of 9 processes, max 23 MiB; probe: apache2 children)`.
 * Notes come last, as `note: ...`.
 */
export function describeHostFacts(facts: HostFacts): string[] {
  const lines: string[] = [];
  if (facts.ram) lines.push(`RAM ${formatBytes(facts.ram.value)} ${origin(facts.ram.source)}`);
  if (facts.cpus) lines.push(`CPUs ${facts.cpus.value} ${origin(facts.cpus.source)}`);
  if (facts.swap) lines.push(`swap ${formatBytes(facts.swap.value)} ${origin(facts.swap.source)}`);
  if (facts.perChild) lines.push(perChildLine(facts.perChild));
  if (facts.phpPerChild) lines.push(`php-fpm ${perChildLine(facts.phpPerChild)}`);
  if (facts.apacheRunning)
    lines.push(`Apache ${facts.apacheRunning.value ? 'running' : 'not running'} ${origin(facts.apacheRunning.source)}`);
  if (facts.mysqlRunning) lines.push(`MySQL ${facts.mysqlRunning.value ? 'running' : 'not running'} ${origin(facts.mysqlRunning.source)}`);
  if (facts.mysqlRss) lines.push(`MySQL RSS ${formatBytes(facts.mysqlRss.value)} ${origin(facts.mysqlRss.source)}`);
  if (facts.somaxconn) lines.push(`net.core.somaxconn ${facts.somaxconn.value} ${origin(facts.somaxconn.source)}`);
  if (facts.httpdVersion) lines.push(`httpd ${facts.httpdVersion.value} ${origin(facts.httpdVersion.source)}`);
  if (facts.databaseServer) lines.push(`database server ${facts.databaseServer.value} ${origin(facts.databaseServer.source)}`);
  if (facts.mounts) lines.push(...mountLines(facts.mounts));
  for (const note of facts.notes ?? []) lines.push(`note: ${note}`);
  return lines;
}

const LIVE_FACT_NAMES = new Set(['mysqlLive', 'apacheLive', 'oomKills']);

/** Facts the running servers and the kernel log gave: the report shows them in a section of their own. */
export function isLiveFact(name: string): boolean {
  return LIVE_FACT_NAMES.has(name);
}

/** `3 d 4 h`, `2 h 5 min`, `40 s`: how long the counters have been counting. */
export function formatUptime(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const minutes = Math.floor((seconds % 3_600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return `${minutes} min ${seconds % 60} s`;
  return `${seconds} s`;
}

/** The runtime rules' default minUptime: counters younger than a day describe the server's start. */
const RUNTIME_RULES_WAIT = 86_400;

function mysqlLiveLines(fact: Fact<MysqlLive>, minUptime: number): string[] {
  const live = fact.value;
  const [product, version] = live.server.split('=');
  const lines = [
    `${product === 'mysql' ? 'MySQL' : 'MariaDB'} ${version ?? ''} up ${formatUptime(live.uptime)}: ` +
      `${Object.keys(live.variables).length} variables, ${Object.keys(live.status).length} status counters ${origin(fact.source)}`,
  ];
  if (live.uptime < minUptime) {
    lines.push(
      `  counters cover only ${formatUptime(live.uptime)}, less than the ${formatUptime(minUptime)} firm verdicts wait for (--min-uptime): ` +
        "the runtime rules' verdicts are early ones, notes without patches; MY2004 and MY2012 wait",
    );
  }
  for (const engine of live.engines ?? []) {
    lines.push(
      `  ${engine.engine}: ${engine.tables} ${engine.tables === 1 ? 'table' : 'tables'}, ` +
        `${formatBytes(engine.dataBytes)} data, ${formatBytes(engine.indexBytes)} indexes`,
    );
  }
  if (live.tables !== undefined) {
    const { total, myisam, withoutPrimaryKey, unread } = live.tables;
    lines.push(
      `  tables: ${total} in all, ${myisam.count} MyISAM, ${withoutPrimaryKey.count} InnoDB without a primary key` +
        (unread.length === 0 ? '' : ` (not read: ${unread.join(', ')})`),
    );
  }
  if (live.accounts !== undefined) {
    const locked = live.accounts.filter((account) => account.locked).length;
    lines.push(`  accounts: ${live.accounts.length}${locked === 0 ? '' : `, ${locked} locked`}`);
  }
  if (live.errorLog !== undefined) {
    const { file, errors, warnings, bytesRead } = live.errorLog;
    lines.push(
      `  error log ${file}: ${errors} ${errors === 1 ? 'error' : 'errors'}, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'} in its last ${formatBytes(bytesRead)}`,
    );
  }
  return lines;
}

function apacheLiveLines(fact: Fact<ApacheLive>): string[] {
  const { status, maxWorkersReached } = fact.value;
  const lines: string[] = [];
  if (status !== undefined) {
    const accesses = status.totalAccesses === undefined ? '' : `, ${status.totalAccesses} requests`;
    const uptime = status.uptime === undefined ? '' : ` in ${formatUptime(status.uptime)}`;
    lines.push(
      `Apache${status.mpm === undefined ? '' : ` (${status.mpm})`}: ${status.busyWorkers} busy and ${status.idleWorkers} idle workers, ` +
        `${status.scoreboardSlots} scoreboard slots${accesses}${uptime} (live: ${status.url})`,
    );
  }
  if (maxWorkersReached !== undefined) {
    const { count, first, last, file } = maxWorkersReached;
    lines.push(
      `Apache reached MaxRequestWorkers ${count === 1 ? 'once' : `${count} times`} (${count === 1 ? first : `${first} to ${last}`}; live: ${file})`,
    );
  }
  return lines;
}

function oomLines(fact: Fact<readonly OomKill[]>): string[] {
  if (fact.value.length === 0) return [`no server process killed for want of memory ${origin(fact.source)}`];
  const byProcess = new Map<string, number>();
  for (const kill of fact.value) byProcess.set(kill.process, (byProcess.get(kill.process) ?? 0) + 1);
  const counts = [...byProcess].map(([name, count]) => `${name} ${count}x`).join(', ');
  const last = fact.value[fact.value.length - 1] as OomKill;
  return [`OOM kills: ${counts}; the last ${formatUptime(last.secondsAgo)} ago ${origin(fact.source)}`];
}

/** The Live servers section: what the servers said, from where, and what could not be asked and why. */
export function describeLive(facts: HostFacts, minUptime = RUNTIME_RULES_WAIT, reached = ''): string[] {
  const lines: string[] = [];
  if (facts.mysqlLive) lines.push(...mysqlLiveLines(facts.mysqlLive, minUptime));
  if (reached !== '') lines.push(`  ${reached}`);
  if (facts.apacheLive) lines.push(...apacheLiveLines(facts.apacheLive));
  if (facts.oomKills) lines.push(...oomLines(facts.oomKills));
  for (const note of facts.liveNotes ?? []) lines.push(`not read: ${note}`);
  return lines;
}
