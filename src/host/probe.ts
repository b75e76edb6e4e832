import * as os from 'node:os';
import type { ChildMemory, HostFacts } from './facts.js';
import { summarizeChildMemory } from './facts.js';
import type { CgroupContext, ProcessInfo } from './proc.js';
import { readOomKills } from './kernel-log.js';
import { probeServerVersions, type ServerVersions } from './servers.js';
import { linted, type ServerKind } from './instances.js';
import { apacheProcesses, databaseProcesses, phpFpmProcesses, type ServerProcesses } from './running.js';
import {
  cpuQuota,
  listProcesses,
  mappedApache,
  memoryLimit,
  parseCgroupFile,
  parseKeyedLines,
  parseMountInfo,
  ProcReader,
  readPss,
} from './proc.js';

export interface MemoryTotals {
  readonly total: number;
  readonly swapTotal: number;
}

export interface ProbeOptions {
  /** Where /proc and /sys are read from; tests point it at a fake tree. */
  readonly root?: string;
  /** MemTotal and SwapTotal; by default from systeminformation's si.mem(). */
  readonly memory?: () => Promise<MemoryTotals>;
  /** CPUs this process may run on; by default os.availableParallelism() (sched_getaffinity, what nproc prints). */
  readonly cpuAffinity?: () => number;
  /** The main configs linted, as paths on this machine: where several servers of a kind run, only the one started with one of them is measured. */
  readonly linted?: readonly string[];
}

/**
 * systeminformation is used for what it does well and cheaply: si.mem() reads
 * /proc/meminfo on Linux without a subprocess (about 4 ms) and has answers on
 * macOS, the BSDs and Windows too. It is not used for CPUs (si.cpu() spawns
 * lscpu, ~50-65 ms, and counts os.cpus(), blind to affinity and cgroup quota)
 * nor processes (si.processes() spawns ps and has no PSS). Loading it costs
 * about 50 ms, so it is imported only here, only when probing.
 */
async function systemMemory(): Promise<MemoryTotals> {
  // The named export: the bin requires this CommonJS package (bin/tune-lint.cjs), which has no default export then.
  const { mem } = await import('systeminformation');
  const memory = await mem();
  return { total: memory.total, swapTotal: memory.swaptotal };
}

/** A child can exit while it is read: these codes mean it is gone, not that reading was denied. */
const VANISHED = new Set(['ENOENT', 'ESRCH']);

type MutableFacts = { -readonly [K in keyof HostFacts]: HostFacts[K] };

/**
 * The facts this machine gives. Never throws: each measurement that fails
 * falls back to the next source or is left out, with a note saying so.
 */
export async function probeHost(options: ProbeOptions = {}): Promise<HostFacts> {
  const reader = new ProcReader(options.root ?? '/');
  const facts: MutableFacts = {};
  const notes: string[] = [];
  const hasProc = reader.read('/proc/self/status').ok;
  if (!hasProc) notes.push('no /proc on this machine: cgroup limits, processes, mounts and somaxconn were not probed');

  const mountTable = hasProc ? readMountTable(reader, notes) : undefined;
  const cgroups: CgroupContext | undefined = mountTable === undefined ? undefined : readCgroups(reader, mountTable, notes);

  // Processes first: the servers' binaries asked for their versions there run while memory and CPUs are probed.
  const processNotes: string[] = [];
  const versions = hasProc ? probeProcesses(reader, mountTable, facts, processNotes, options.linted ?? []) : undefined;
  await probeMemory(options, reader, cgroups, facts, notes);
  probeCpus(options, reader, cgroups, facts, notes);
  if (versions !== undefined) {
    notes.push(...processNotes);
    // Noted after the versions, as these are read while the binaries run.
    const laterNotes: string[] = [];
    if (mountTable !== undefined) {
      const mounts = mountTable.map(({ mountPoint, fsType, source }) => ({ mountPoint, fsType, source }));
      facts.mounts = { value: mounts, source: 'probe (/proc/self/mountinfo)' };
    }
    const somaxconn = reader.read('/proc/sys/net/core/somaxconn');
    const value = somaxconn.ok ? Number(somaxconn.text.trim()) : NaN;
    if (Number.isSafeInteger(value) && value > 0) facts.somaxconn = { value, source: 'probe (/proc/sys/net/core/somaxconn)' };
    else laterNotes.push(`net.core.somaxconn unreadable (${somaxconn.ok ? 'not a number' : somaxconn.code})`);
    const kills =
      reader.root === '/' ? readOomKills(laterNotes) : readOomKills(laterNotes, `${reader.root}/dev/kmsg`, `${reader.root}/proc/uptime`);
    if (kills !== undefined) facts.oomKills = { value: kills, source: 'probe (kernel log, /dev/kmsg)' };
    const said = await versions;
    Object.assign(facts, said.facts);
    notes.push(...said.notes, ...laterNotes);
  }
  if (notes.length > 0) facts.notes = notes;
  return facts;
}

function readMountTable(reader: ProcReader, notes: string[]): ReturnType<typeof parseMountInfo> | undefined {
  const read = reader.read('/proc/self/mountinfo');
  if (read.ok) return parseMountInfo(read.text);
  notes.push(`/proc/self/mountinfo unreadable (${read.code}): no mount table, no cgroup limits`);
  return undefined;
}

function readCgroups(reader: ProcReader, mounts: ReturnType<typeof parseMountInfo>, notes: string[]): CgroupContext | undefined {
  const read = reader.read('/proc/self/cgroup');
  if (read.ok) return { memberships: parseCgroupFile(read.text), mounts };
  notes.push(`/proc/self/cgroup unreadable (${read.code}): cgroup limits not checked`);
  return undefined;
}

async function probeMemory(
  options: ProbeOptions,
  reader: ProcReader,
  cgroups: CgroupContext | undefined,
  facts: MutableFacts,
  notes: string[],
): Promise<void> {
  let totals: MemoryTotals | undefined;
  try {
    totals = await (options.memory ?? systemMemory)();
  } catch (error) {
    notes.push(`memory totals unavailable (${error instanceof Error ? error.message : String(error)})`);
  }
  const limit = cgroups === undefined ? undefined : memoryLimit(reader, cgroups);
  const total = totals !== undefined && Number.isFinite(totals.total) && totals.total > 0 ? totals.total : undefined;
  if (limit !== undefined && (total === undefined || limit.value < total)) {
    facts.ram = { value: limit.value, source: `probe (cgroup v${limit.version} limit)` };
  } else if (total !== undefined) {
    facts.ram = { value: total, source: 'probe (MemTotal)' };
  }
  if (totals !== undefined && Number.isFinite(totals.swapTotal) && totals.swapTotal >= 0) {
    facts.swap = { value: totals.swapTotal, source: 'probe (SwapTotal)' };
  }
}

function probeCpus(
  options: ProbeOptions,
  reader: ProcReader,
  cgroups: CgroupContext | undefined,
  facts: MutableFacts,
  notes: string[],
): void {
  let affinity: number | undefined;
  try {
    affinity = (options.cpuAffinity ?? os.availableParallelism)();
  } catch (error) {
    notes.push(`CPU count unavailable (${error instanceof Error ? error.message : String(error)})`);
  }
  const quota = cgroups === undefined ? undefined : cpuQuota(reader, cgroups);
  if (quota !== undefined && (affinity === undefined || quota.value < affinity)) {
    facts.cpus = { value: Math.round(quota.value * 100) / 100, source: `probe (cgroup v${quota.version} CPU quota)` };
  } else if (affinity !== undefined && affinity > 0) {
    facts.cpus = { value: affinity, source: 'probe (CPU affinity)' };
  }
}

/** One child as measured: PSS when it could be read, RSS always. */
export interface ChildSample {
  readonly pid: number;
  readonly rss: number;
  readonly pss: number | undefined;
  /** Why PSS is missing (EACCES for another user's process when not root). */
  readonly pssError: string | undefined;
  /** User and system CPU time the process has used, in seconds; undefined when /proc/PID/stat cannot be read. */
  readonly cpuSeconds: number | undefined;
}

/** Measures each child; children that exit while being read are dropped. */
export function measureChildren(reader: ProcReader, children: readonly ProcessInfo[]): ChildSample[] {
  const samples: ChildSample[] = [];
  for (const child of children) {
    const pss = readPss(reader, child.pid);
    if (!pss.ok && VANISHED.has(pss.code)) continue;
    const status = reader.read(`/proc/${child.pid}/status`);
    const rss = status.ok ? parseRss(status.text) : undefined;
    if (rss === undefined) continue;
    samples.push({
      pid: child.pid,
      rss,
      pss: pss.ok ? pss.bytes : undefined,
      pssError: pss.ok ? undefined : pss.code,
      cpuSeconds: cpuSecondsOf(reader, child.pid),
    });
  }
  return samples;
}

/** Clock ticks per second of /proc/PID/stat's times: USER_HZ, 100 on every Linux architecture that ships a server. */
const TICKS_PER_SECOND = 100;

/** utime + stime of /proc/PID/stat (fields 14 and 15, counted after the command name, which may hold spaces and parentheses). */
function cpuSecondsOf(reader: ProcReader, pid: number): number | undefined {
  const stat = reader.read(`/proc/${pid}/stat`);
  if (!stat.ok) return undefined;
  const fields = stat.text.slice(stat.text.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / TICKS_PER_SECOND : undefined;
}

/**
 * CPU time above which a child has served requests: a php-fpm or prefork
 * child that ran one PHP request has used tens of milliseconds, one that was
 * only forked has used a few at most.
 */
const BUSY_CPU_SECONDS = 0.05;

function parseRss(statusText: string): number | undefined {
  const match = /^(\d+)\s*kB$/.exec(parseKeyedLines(statusText).get('VmRSS') ?? '');
  return match === null ? undefined : Number(match[1]) * 1024;
}

/**
 * PSS of every child when all could be read; otherwise RSS of every child (one
 * metric for all, so median and max compare like with like), with a note.
 */
export function childMemoryFrom(
  samples: readonly ChildSample[],
  notes: string[],
  served: (sample: ChildSample) => boolean = (sample) => (sample.cpuSeconds ?? 0) >= BUSY_CPU_SECONDS,
): ChildMemory | undefined {
  // The children that have served requests, when any have: an idle child is a fraction of what it grows to.
  const busy = samples.filter(served);
  const measured = busy.length > 0 ? busy : samples;
  // Without any process's CPU time nothing says whether the children had served requests.
  const busyCount = samples.every((sample) => sample.cpuSeconds === undefined) ? undefined : busy.length;
  const denied = measured.find((sample) => sample.pss === undefined);
  if (denied === undefined)
    return summarizeChildMemory(
      measured.map((sample) => sample.pss as number),
      'pss',
      busyCount,
    );
  notes.push(
    `smaps_rollup of PID ${denied.pid} unreadable (${denied.pssError ?? 'unknown'}); used RSS, ` +
      'which counts shared pages in every process and so over-estimates (run as root for PSS)',
  );
  return summarizeChildMemory(
    measured.map((sample) => sample.rss),
    'rss',
    busyCount,
  );
}

function pidList(processes: readonly ProcessInfo[]): string {
  const pids = processes.map((entry) => entry.pid);
  return `${pids.length === 1 ? 'PID' : 'PIDs'} ${pids.slice(0, 5).join(', ')}${pids.length > 5 ? ', ...' : ''}`;
}

/** The Apache, php-fpm and MySQL processes into `facts`; their versions, which the binaries are asked for, when they have answered. */
function probeProcesses(
  reader: ProcReader,
  mounts: ReturnType<typeof parseMountInfo> | undefined,
  facts: MutableFacts,
  notes: string[],
  mains: readonly string[],
): Promise<ServerVersions> {
  const processes = listProcesses(reader);
  if (processes === undefined) {
    notes.push('/proc cannot be listed: Apache and MySQL processes not probed');
    return Promise.resolve({ facts: {}, notes: [] });
  }
  // With hidepid, processes of other users are invisible: not seeing Apache proves nothing.
  const procMount = mounts?.find((mount) => mount.mountPoint === '/proc' && mount.fsType === 'proc');
  const hidden =
    procMount?.superOptions.some((option) => /^hidepid=(1|2|noaccess|invisible)$/.test(option)) === true && process.geteuid?.() !== 0;
  if (hidden)
    notes.push("/proc is mounted with hidepid: other users' processes are invisible, so a missing Apache or MySQL is not reported");

  const instance = (found: ServerProcesses, kind: ServerKind): ServerProcesses => {
    const chosen = linted(reader, found, kind, mains);
    if (chosen.note !== undefined) notes.push(chosen.note);
    return chosen.processes;
  };
  const apache = probeApache(instance(apacheProcesses(reader, processes), 'apache'), reader, hidden, facts, notes);
  probePhpFpm(instance(phpFpmProcesses(reader, processes), 'php-fpm'), reader, facts, notes);
  const mysql = probeMysql(instance(databaseProcesses(reader, processes), 'database'), hidden, facts, notes);
  return probeServerVersions(reader, { apache, mysql });
}

/** Whether Apache runs, and the memory of its children; the processes seen, parents first. */
function probeApache(
  apache: ServerProcesses,
  reader: ProcReader,
  hidden: boolean,
  facts: MutableFacts,
  notes: string[],
): readonly ProcessInfo[] {
  if (apache.impostorNote !== undefined) notes.push(apache.impostorNote);
  const apacheName = apache.parents[0]?.name ?? 'apache2';
  if (apache.parents.length > 0) {
    facts.apacheRunning = { value: true, source: `probe (${apacheName} ${pidList(apache.parents)})` };
  } else if (!hidden) {
    facts.apacheRunning = { value: false, source: 'probe (no apache2 or httpd process of root)' };
  }
  if (apache.parents.length > 0 && apache.children.length === 0) {
    notes.push(`${apacheName} ${pidList(apache.parents)} runs without children to measure`);
  }
  const perChild = childMemoryFrom(measureChildren(reader, apache.children), notes);
  if (perChild !== undefined) {
    const child = apache.children[0];
    const measuredOn = child === undefined ? undefined : mappedApache(reader, child.pid);
    facts.perChild = { value: measuredOn === undefined ? perChild : { ...perChild, measuredOn }, source: `probe (${apacheName} children)` };
  }
  return [...apache.parents, ...apache.children];
}

/** The memory of php-fpm's children, for the pools' share of the budget; the master is left out. */
function probePhpFpm(fpm: ServerProcesses, reader: ProcReader, facts: MutableFacts, notes: string[]): void {
  if (fpm.impostorNote !== undefined) notes.push(fpm.impostorNote);
  const perChild = childMemoryFrom(measureChildren(reader, fpm.children), notes);
  if (perChild !== undefined) facts.phpPerChild = { value: perChild, source: `probe (${fpm.children[0]?.name ?? 'php-fpm'} children)` };
}

/** Whether MySQL or MariaDB runs, and its resident memory; the server processes seen. */
function probeMysql(database: ServerProcesses, hidden: boolean, facts: MutableFacts, notes: string[]): readonly ProcessInfo[] {
  const { parents: mysql, impostorNote } = database;
  if (impostorNote !== undefined) notes.push(impostorNote);
  if (mysql.length === 0) {
    if (!hidden) facts.mysqlRunning = { value: false, source: 'probe (no mysqld or mariadbd process of root or mysql)' };
    return mysql;
  }
  const name = (mysql[0] as ProcessInfo).name;
  facts.mysqlRunning = { value: true, source: `probe (${name} ${pidList(mysql)})` };
  const measured = mysql.filter((entry) => entry.rss !== undefined);
  if (measured.length > 0) {
    const rss = measured.reduce((sum, entry) => sum + (entry.rss as number), 0);
    facts.mysqlRss = { value: rss, source: `probe (VmRSS of ${name} ${pidList(measured)})` };
  }
  return mysql;
}
