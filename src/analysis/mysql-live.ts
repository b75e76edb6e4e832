import type { Fact, HostFacts, MysqlLive } from '../host/facts.js';
import { formatBytes } from '../util/units.js';
import { formatUptime } from '../host/format.js';

/**
 * What the runtime rules read: the counters of the running server, with the
 * span they cover. MySQLTuner's rule of thumb is the one kept here: counters
 * of a server up less than a day describe its start more than its work, so
 * a verdict on them is an early one, and says so.
 */
export interface RuntimeCounters {
  readonly live: MysqlLive;
  readonly source: string;
  /** `the 3 d 4 h since the server started (live: ...)`: where every runtime message says its counters come from, and how young they are. */
  readonly span: string;
  /** Younger than minUptime: the verdict is a note without a patch (see earlyVerdict in the rules' support). */
  readonly early: boolean;
}

/**
 * The server's counters when it was asked: always with `early` (a rule that
 * judges a young server says how young), only from minUptime on without it
 * (MY2004 lowers max_connections from the busiest moment, and a server
 * minutes old has not had it). Undefined otherwise; the Live servers section
 * says why.
 */
export function runtimeCounters(host: HostFacts, minUptime: number, options: { early?: boolean } = {}): RuntimeCounters | undefined {
  const fact: Fact<MysqlLive> | undefined = host.mysqlLive;
  if (fact === undefined) return undefined;
  const early = fact.value.uptime < minUptime;
  if (early && options.early !== true) return undefined;
  const age = `the ${formatUptime(fact.value.uptime)} since the server started (${liveSource(fact.source)})`;
  return {
    live: fact.value,
    source: fact.source,
    span: early
      ? `${age}, an early verdict: counters younger than ${formatUptime(minUptime)} (minUptime) describe its start more than its work`
      : age,
    early,
  };
}

/** `10.11.19-MariaDB via /run/mysqld/mysqld.sock as root`: a live source without its `live (...)` wrapper, for messages that say what was asked. */
export function liveSource(source: string): string {
  return /^live \((.*)\)$/s.exec(source)?.[1] ?? source;
}

/** A status counter as a number; undefined when the server has none of that name. */
export function counter(live: MysqlLive, name: string): number | undefined {
  return numberOf(live.status[name.toLowerCase()]);
}

/** A global variable as a number (ON/OFF as 1/0); undefined when absent or not a number. */
export function variableNumber(live: MysqlLive, name: string): number | undefined {
  return numberOf(live.variables[name.toLowerCase()]);
}

function numberOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const upper = text.toUpperCase();
  if (upper === 'ON' || upper === 'YES') return 1;
  if (upper === 'OFF' || upper === 'NO') return 0;
  const value = Number(text);
  return text.trim() === '' || !Number.isFinite(value) ? undefined : value;
}

/** `36.2 %`, with one decimal below 10 % so small shares do not read as zero. */
export function percent(part: number, whole: number): string {
  const share = whole === 0 ? 0 : (part / whole) * 100;
  return `${share < 10 ? share.toFixed(1) : Math.round(share)} %`;
}

/**
 * `; reached so far: globals 417 MiB + Max_used_connections 27 x 2.9 MiB =
 * 495 MiB in the 3 d 4 h since the server started (...)`: what the running
 * server's busiest moment would have taken at the worst case per connection,
 * next to the worst case, which is what users compare (the peers' "max
 * memory ever allocated"). Empty without live counters.
 */
export function reachedSoFar(mysql: { readonly globalBytes: number; readonly perConnectionBytes: number }, host: HostFacts): string {
  const reached = reachedSoFarLine(mysql, host);
  return reached === '' ? '' : `; ${reached}`;
}

/** The same as a line of its own, for the Live servers section. */
export function reachedSoFarLine(mysql: { readonly globalBytes: number; readonly perConnectionBytes: number }, host: HostFacts): string {
  const live = host.mysqlLive;
  const maxUsed = live === undefined ? undefined : counter(live.value, 'Max_used_connections');
  if (live === undefined || maxUsed === undefined) return '';
  const reached = mysql.globalBytes + maxUsed * mysql.perConnectionBytes;
  return (
    `reached so far: globals ${formatBytes(mysql.globalBytes)} + Max_used_connections ${maxUsed} x ${formatBytes(mysql.perConnectionBytes)} = ` +
    `${formatBytes(reached)} in the ${formatUptime(live.value.uptime)} since the server started (${liveSource(live.source)})`
  );
}

/** Kills older than this may describe limits changed since: HO2002's default window. */
const RECENT_KILLS = 7 * 86_400;

/** `; the kernel killed apache2 3 times for want of memory in the last week (probe: ...)`, or empty: evidence a sizing message cites. */
export function oomEvidence(host: HostFacts, process: RegExp): string {
  const kills = host.oomKills?.value.filter((kill) => process.test(kill.process) && kill.secondsAgo <= RECENT_KILLS) ?? [];
  if (kills.length === 0 || host.oomKills === undefined) return '';
  const name = kills[0]?.process ?? '';
  return `; the kernel killed ${name} ${kills.length === 1 ? 'once' : `${kills.length} times`} for want of memory in the last week (${host.oomKills.source})`;
}
