import * as os from 'node:os';
import type { ChildMemory } from '../core/host-facts.js';
import { mappedApache, ProcReader, listProcesses } from './proc.js';
import { childMemoryFrom, measureChildren, type ChildSample } from './probe.js';
import { apacheProcesses, phpFpmProcesses } from './running.js';

/**
 * Why a URL may be loaded: its host is this machine (loopback, or an address
 * of one of its interfaces, written as an IP). Names other than `localhost`
 * are refused rather than resolved: a name can point anywhere, and the load
 * must never leave the host. Undefined when allowed, else the reason.
 */
export function refusedTarget(url: URL, ownAddresses: readonly string[] = interfaceAddresses()): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs are measured, not ${url.protocol}`;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (host === 'localhost' || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1') return undefined;
  if (ownAddresses.includes(host)) return undefined;
  return `${url.hostname} is not this host: tune-lint measure loads only loopback or this machine's own addresses (${[...new Set(['127.0.0.1', '::1', ...ownAddresses])].join(', ')})`;
}

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .map((entry) => entry.address.toLowerCase());
}

/** What ab says of a run: the rate, the failures, and the 99th percentile of the time a request took. */
export interface LoadSummary {
  readonly complete: number;
  readonly failed: number;
  readonly non2xx: number;
  readonly perSecond: number;
  /** Milliseconds; undefined when ab printed no percentile table (no request completed). */
  readonly p99: number | undefined;
}

/** ab's report, as `ab -q` prints it. */
export function parseAbReport(text: string): LoadSummary | undefined {
  const number = (pattern: RegExp): number | undefined => {
    const match = pattern.exec(text);
    return match === null ? undefined : Number(match[1]);
  };
  const complete = number(/^Complete requests:\s+(\d+)/m);
  const perSecond = number(/^Requests per second:\s+([\d.]+)/m);
  if (complete === undefined || perSecond === undefined) return undefined;
  return {
    complete,
    failed: number(/^Failed requests:\s+(\d+)/m) ?? 0,
    non2xx: number(/^Non-2xx responses:\s+(\d+)/m) ?? 0,
    perSecond,
    p99: number(/^\s+99%\s+(\d+)/m),
  };
}

/** One round of samples of the servers' children. */
interface Round {
  readonly apache: readonly ChildSample[];
  readonly php: readonly ChildSample[];
  readonly bytes: number;
}

/**
 * Samples Apache's and php-fpm's children (those of trusted parents, as the
 * probe finds them) while a load runs, and keeps the round in which they held
 * the most memory: the peak the limits must hold.
 */
export class PeakSampler {
  private readonly reader: ProcReader;
  private peak: Round | undefined;
  /** Each child's CPU time in the first round, before the load. */
  private readonly cpuBefore = new Map<number, number | undefined>();
  /** Each child's CPU time in the last round that saw it. */
  private readonly cpuLatest = new Map<number, number>();
  rounds = 0;

  constructor(root = '/') {
    this.reader = new ProcReader(root);
  }

  sample(): void {
    const processes = listProcesses(this.reader);
    if (processes === undefined) return;
    const apache = measureChildren(this.reader, apacheProcesses(this.reader, processes).children);
    const php = measureChildren(this.reader, phpFpmProcesses(this.reader, processes).children);
    const bytes = [...apache, ...php].reduce((sum, sample) => sum + (sample.pss ?? sample.rss), 0);
    for (const sample of [...apache, ...php]) {
      if (this.rounds === 0) this.cpuBefore.set(sample.pid, sample.cpuSeconds);
      if (sample.cpuSeconds !== undefined) this.cpuLatest.set(sample.pid, sample.cpuSeconds);
    }
    this.rounds++;
    if (this.peak === undefined || bytes > this.peak.bytes) this.peak = { apache, php, bytes };
  }

  /**
   * The children's sizes at the peak; a child counts as one that served
   * requests when its CPU time grew between the first round and the last
   * (a static page costs a child too little CPU for the probe's threshold,
   * yet it was serving). Any round may be the peak, the first among them
   * when a short load left the children no bigger.
   */
  sizes(notes: string[]): { apache: ChildMemory | undefined; php: ChildMemory | undefined; apachePid: number | undefined } {
    const peak = this.peak;
    if (peak === undefined) return { apache: undefined, php: undefined, apachePid: undefined };
    const served = (sample: ChildSample): boolean => {
      const latest = this.cpuLatest.get(sample.pid);
      if (latest === undefined) return false;
      if (!this.cpuBefore.has(sample.pid)) return true;
      const before = this.cpuBefore.get(sample.pid);
      return before === undefined || latest > before;
    };
    return {
      apache: childMemoryFrom(peak.apache, notes, served),
      php: childMemoryFrom(peak.php, notes, served),
      apachePid: peak.apache[0]?.pid,
    };
  }

  /** What the probe reads of an Apache child's mapped libraries: its MPM and whether PHP runs in it. */
  measuredOn(pid: number): ReturnType<typeof mappedApache> {
    return mappedApache(this.reader, pid);
  }
}
