import { formatBytes } from '../../src/util/units.js';
import type { AbResult } from './ab.js';
import type { CgroupCounters } from './cgroup.js';
import type { ChildMemory, ChildMemorySummary } from './child-memory.js';
import type { PreforkSettings } from './server-root.js';
import type { TuneOutcome } from './tune.js';

export type ConfigName = 'stock' | 'tuned';

/** `web`: Apache and PHP alone under the cap; `lamp`: a MariaDB the page queries shares the cap. */
export type Scenario = 'web' | 'lamp';

export interface ConfigDescription {
  name: ConfigName;
  label: string;
  prefork: PreforkSettings;
  timeout: string | undefined;
  keepAlive: string | undefined;
  keepAliveTimeout: string | undefined;
  /** The [mysqld] memory and connection options set in my.cnf (LAMP scenario); unset ones run at their defaults. */
  database?: Record<string, string>;
}

export interface RunRecord {
  config: ConfigName;
  concurrency: number;
  /** ab's figures, or why there are none. */
  ab: AbResult | { error: string };
  cgroup: CgroupCounters;
  /** Most Apache children seen at once (sampled from cgroup.procs every 200 ms). */
  peakChildren: number;
  /**
   * New error-log lines during the run: how many said AH00161 (reached
   * MaxRequestWorkers), how many were neither that nor start/stop notices, and
   * those distinct messages (PIDs elided).
   */
  errorLog: { lines: number; maxRequestWorkersReached: number; other: number; otherSample: string[] };
  /** LAMP scenario: whether mariadbd lived through the run, its peak RSS, or what ended it. */
  database?: { survived: boolean; peakRssBytes?: number; endedBy?: string };
  wallSeconds: number;
}

export interface ProofResults {
  version: 1;
  scenario: Scenario;
  date: string;
  machine: { cpus: number; ramBytes: number; swapBytes: number; kernel: string; apache: string; php: string; ab: string };
  /** 1-minute load average before the first and after the last run: other work on the host skews the CPU-bound numbers. */
  loadAverage: { start: number; end: number };
  capBytes: number;
  load: { requests: number; timeLimitSeconds: number; concurrency: number[] };
  perChild: { summary: ChildMemorySummary; children: ChildMemory[]; passedToTuneLint: string; warmup: string };
  /** LAMP scenario: mariadbd's own memory after the warm-up. */
  databaseAfterWarmup?: ChildMemory;
  stock: ConfigDescription;
  tuned: ConfigDescription & { source: 'tune-lint' | 'hand-sized (dev only)'; tuneLint: TuneOutcome | undefined };
  runs: RunRecord[];
  totalSeconds: number;
}

const MIB = 1024 * 1024;

export const mib = (bytes: number): string => `${(bytes / MIB).toFixed(1)} MiB`;

function abCells(run: RunRecord): string[] {
  if ('error' in run.ab) return ['—', '—', `ab gave no report: ${run.ab.error}`, '—', '—'];
  const ab = run.ab;
  const failedShare = ab.complete > 0 ? ` (${((100 * ab.failed) / ab.complete).toFixed(0)} %)` : '';
  const reasons = Object.entries(ab.failedBy)
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  const non2xx = ab.non2xx > 0 ? `; non-2xx ${ab.non2xx}` : '';
  return [
    ab.requestsPerSecond.toFixed(1),
    ab.goodPerSecond.toFixed(1),
    `${ab.failed} / ${ab.complete}${failedShare}${reasons ? ` [${reasons}]` : ''}${non2xx}`,
    `${(ab.meanMs / 1000).toFixed(2)} s`,
    ab.p99Ms === undefined ? '—' : `${(ab.p99Ms / 1000).toFixed(2)} s`,
  ];
}

function databaseCell(run: RunRecord): string {
  if (run.database === undefined) return '—';
  if (!run.database.survived) return `**killed** (${run.database.endedBy ?? 'unknown'})`;
  return run.database.peakRssBytes === undefined ? 'up' : `up, peak RSS ${mib(run.database.peakRssBytes)}`;
}

export function resultsTable(results: ProofResults): string {
  const lamp = results.scenario === 'lamp';
  const rows = [
    `| config | MaxRequestWorkers | -c | req/s (ab) | good req/s | failed / complete | mean | p99 | OOM kills | limit hits | peak memory | peak children | swap |${lamp ? ' MariaDB |' : ''}`,
    `|---|---|---|---|---|---|---|---|---|---|---|---|---|${lamp ? '---|' : ''}`,
  ];
  const sorted = [...results.runs].sort((a, b) => a.concurrency - b.concurrency || a.config.localeCompare(b.config));
  for (const run of sorted) {
    const config = run.config === 'stock' ? results.stock : results.tuned;
    rows.push(
      `| ${config.label} | ${config.prefork.maxRequestWorkers} | ${run.concurrency} | ${abCells(run).join(' | ')} | ${run.cgroup.oomKills} | ${run.cgroup.limitHits} | ${mib(run.cgroup.peakBytes)} | ${run.peakChildren} | ${run.cgroup.swapBytes === undefined ? 'not accounted' : mib(run.cgroup.swapBytes)} |${lamp ? ` ${databaseCell(run)} |` : ''}`,
    );
  }
  return rows.join('\n');
}

/** What Apache's own error log said, set against what the kernel did. */
function errorLogNote(results: ProofResults): string {
  const name = (run: RunRecord): string => `${run.config === 'stock' ? results.stock.label : results.tuned.label} -c ${run.concurrency}`;
  const warned = results.runs.filter((run) => run.errorLog.maxRequestWorkersReached > 0).map(name);
  const killed = results.runs.filter((run) => run.cgroup.oomKills > 0);
  const logged = killed.filter((run) => run.errorLog.other > 0);
  return [
    `Apache's error log: \`AH00161 server reached MaxRequestWorkers\` in ${warned.length === 0 ? 'no run' : warned.join(', ')}.`,
    killed.length === 0
      ? 'No run had OOM kills.'
      : `Runs with OOM kills: ${killed.map((run) => `${name(run)} (${run.cgroup.oomKills})`).join(', ')}; ${
          logged.length === 0
            ? 'none of these logged anything beyond start-up and shutdown'
            : `beyond start-up and shutdown, the log of ${logged.map((run) => `${name(run)} said ${run.errorLog.otherSample.map((line) => `"${line}"`).join(', ')} (${run.errorLog.other} line${run.errorLog.other === 1 ? '' : 's'})`).join('; ')}`
        }.`,
  ].join(' ');
}

/** The body of results.md; the README embeds the same text with the plot's path seen from there. */
export function resultsMarkdown(results: ProofResults, plotPath = 'plot.svg', heading = '##'): string {
  const m = results.machine;
  const child = results.perChild.summary;
  const tuned = results.tuned;
  const settingsRow = (config: ConfigDescription): string =>
    `| ${config.label} | ${config.prefork.startServers} | ${config.prefork.minSpareServers} | ${config.prefork.maxSpareServers} | ${config.prefork.maxRequestWorkers} | ${config.prefork.maxConnectionsPerChild} | ${config.timeout ?? '—'} | ${config.keepAlive ?? '—'} | ${config.keepAliveTimeout ?? '—'} |`;
  const lines = [
    `Run ${results.date} by \`npm run proof${results.scenario === 'lamp' ? ' -- --with-mariadb' : ''}\` (bench/proof/run.ts) in ${results.totalSeconds.toFixed(0)} s.`,
    `Machine: ${m.cpus} vCPU, ${formatBytes(m.ramBytes)} RAM, swap ${m.swapBytes === 0 ? 'none' : formatBytes(m.swapBytes)}, Linux ${m.kernel}; ${m.apache}; PHP ${m.php}; ${m.ab}.`,
    `Apache ran in a memory cgroup (v1) capped at ${mib(results.capBytes)}, a fresh group per run; ab ran on the same host outside the cap. Load average (1 min) ${results.loadAverage.start.toFixed(1)} before the first run, ${results.loadAverage.end.toFixed(1)} after the last.`,
    `Load: \`ab -r -s 30 -t ${results.load.timeLimitSeconds} -n ${results.load.requests} -c C\` on a PHP page holding about 20 MB for about 35 ms of CPU and printing 28,000 bytes${results.scenario === 'lamp' ? ', which reads 50 rows from a private MariaDB over its Unix socket on every request (in the same cgroup)' : ''}.`,
    '',
    resultsTable(results),
    '',
    "good req/s = (complete − failed − non-2xx) / time: ab's own rate also counts responses cut short by a killed child.",
    'OOM kills = `oom_kill` in `memory.oom_control`; limit hits = `memory.failcnt`; peak memory = `memory.max_usage_in_bytes`.',
    '',
    errorLogNote(results),
    '',
    `${heading} Per-child memory (measured, then given to tune-lint)`,
    '',
    `${results.perChild.warmup}. Then ${child.children} children: median PSS ${mib(child.medianPssBytes)} (max ${mib(child.maxPssBytes)}), median RSS ${mib(child.medianRssBytes)}, median private ${mib(child.medianPrivateBytes)}. Given to tune-lint as \`--per-child ${results.perChild.passedToTuneLint}\` (median PSS rounded up to a whole MiB).`,
    '',
    `${heading} The two configs`,
    '',
    '| config | StartServers | MinSpare | MaxSpare | MaxRequestWorkers | MaxConnectionsPerChild | Timeout | KeepAlive | KeepAliveTimeout |',
    '|---|---|---|---|---|---|---|---|---|',
    settingsRow(results.stock),
    settingsRow(tuned),
    '',
  ];
  if (results.scenario === 'lamp') {
    const options = (config: ConfigDescription): string =>
      Object.entries(config.database ?? {})
        .map(([name, value]) => `${name}=${value}`)
        .join(', ') || 'none';
    const db = results.databaseAfterWarmup;
    lines.push(
      `MariaDB shares the cap, started per run with the side's own my.cnf (Debian's stock server settings: memory and connections at their defaults). Memory and connection options set: stock: ${options(results.stock)}; tuned: ${options(tuned)}.${db ? ` mariadbd after the warm-up: PSS ${mib(db.pssBytes)}, RSS ${mib(db.rssBytes)}.` : ''}`,
      '',
    );
  }
  if (tuned.tuneLint) {
    lines.push(
      `The tuned config is the stock tree after \`${tuned.tuneLint.command}\` (exit ${tuned.tuneLint.exitCode}). What it wrote:`,
      '',
      '```diff',
      tuned.tuneLint.patch.trimEnd(),
      '```',
      '',
    );
  } else {
    lines.push('**Dev-only run: the "tuned" config is a hand-written MaxRequestWorkers, not tune-lint\'s patch.**', '');
  }
  lines.push(`![requests/s and p99 against concurrency, before and after](${plotPath})`, '');
  return lines.join('\n');
}

/** The README with the text between the scenario's result markers replaced; undefined when the markers are missing. */
export function withLatestResults(readme: string, results: ProofResults): string | undefined {
  const marker = results.scenario === 'lamp' ? 'latest-lamp-results' : 'latest-results';
  const startMarker = `<!-- ${marker}:start (written by bench/proof/run.ts) -->`;
  const endMarker = `<!-- ${marker}:end -->`;
  const start = readme.indexOf(startMarker);
  const end = readme.indexOf(endMarker);
  if (start < 0 || end < start) return undefined;
  const plotPath = results.scenario === 'lamp' ? 'results/lamp/plot.svg' : 'results/plot.svg';
  return `${readme.slice(0, start + startMarker.length)}\n\n${resultsMarkdown(results, plotPath, '###')}\n${readme.slice(end)}`;
}
