import * as path from 'node:path';
import { formatBytes } from '../../src/util/units.js';
import type { AbResult } from './ab.js';
import type { CgroupCounters } from './cgroup.js';
import type { ChildMemory, ChildMemorySummary } from './child-memory.js';
import type { TuneOutcome } from './tune.js';

/** stock and tuned in every scenario; the event + php-fpm one adds a tutorial's pool and that pool after tune-lint. */
export type ConfigName = 'stock' | 'tuned' | 'tutorial' | 'tutorial-tuned';

/**
 * `web`: Apache prefork and mod_php alone under the cap; `lamp`: a MariaDB the
 * page queries shares the cap; `fpm`: Apache event handing PHP to php-fpm.
 */
export type Scenario = 'web' | 'lamp' | 'fpm';

export interface ConfigDescription {
  name: ConfigName;
  label: string;
  /** Where it comes from: Debian's files, a tutorial's pool, tune-lint's --fix of another config, or a hand-written number. */
  source: 'stock' | 'tutorial' | 'tune-lint' | 'hand-sized (dev only)';
  maxRequestWorkers: number;
  /** The pool's pm.max_children (event + php-fpm). */
  poolChildren?: number;
  /** The MPM, timeout and pool settings the report shows, in its column order. */
  settings: Record<string, string>;
  /** The [mysqld] memory and connection options set in my.cnf (LAMP scenario); unset ones run at their defaults. */
  database?: Record<string, string>;
  /** What `tune-lint --fix` ran and wrote, for a config that is another one after it, and that one's label. */
  tuneLint?: TuneOutcome;
  tunedFrom?: string;
}

export interface RunRecord {
  config: ConfigName;
  concurrency: number;
  /** ab's figures, or why there are none. */
  ab: AbResult | { error: string };
  cgroup: CgroupCounters;
  /** Most PHP processes seen at once (Apache children under prefork, php-fpm children under event), sampled every 200 ms. */
  peakChildren: number;
  /**
   * New error-log lines during the run: how many said AH00161 (reached
   * MaxRequestWorkers), how many were neither that nor start/stop notices, and
   * those distinct messages (PIDs elided).
   */
  errorLog: { lines: number; maxRequestWorkersReached: number; other: number; otherSample: string[] };
  /** php-fpm's log during the run: "reached pm.max_children" warnings and children ended by a signal. */
  phpLog?: { maxChildrenReached: number; childrenSignalled: number };
  /** LAMP scenario: whether mariadbd lived through the run, its peak RSS, or what ended it. */
  database?: { survived: boolean; peakRssBytes?: number; endedBy?: string };
  wallSeconds: number;
}

export interface MeasuredChildren {
  summary: ChildMemorySummary;
  children: ChildMemory[];
  /** The size given to tune-lint: the median PSS rounded up to a whole MiB. */
  passedToTuneLint: string;
}

export interface ProofResults {
  version: 2;
  scenario: Scenario;
  /** Swap the group could use beyond its RAM cap (a swap file made for the run), 0 for none. */
  swapBytes: number;
  date: string;
  machine: { cpus: number; ramBytes: number; swapBytes: number; kernel: string; apache: string; php: string; ab: string };
  /** 1-minute load average before the first and after the last run: other work on the host skews the CPU-bound numbers. */
  loadAverage: { start: number; end: number };
  capBytes: number;
  load: { requests: number; timeLimitSeconds: number; concurrency: number[] };
  warmup: string;
  /** Apache's children (the PHP processes under prefork). */
  perChild: MeasuredChildren;
  /** php-fpm's children (event + php-fpm). */
  phpPerChild?: MeasuredChildren;
  /** LAMP scenario: mariadbd's own memory after the warm-up. */
  databaseAfterWarmup?: ChildMemory;
  configs: ConfigDescription[];
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

/** The config a run ran with. */
export function configOf(results: ProofResults, name: ConfigName): ConfigDescription {
  const config = results.configs.find((candidate) => candidate.name === name);
  if (config === undefined) throw new Error(`results have no config named ${name}`);
  return config;
}

const STACK_TITLES: Record<Scenario, string> = {
  web: 'Apache prefork + mod_php',
  lamp: 'Apache prefork + mod_php + MariaDB',
  fpm: 'Apache event + php-fpm',
};

/** The stack and cap in a few words, for the plot's title and the results' heading. */
export function stackTitle(results: ProofResults): string {
  const swap = results.swapBytes > 0 ? ` and ${mib(results.swapBytes)} of swap` : '';
  return `${STACK_TITLES[results.scenario]} under a ${mib(results.capBytes)} memory cap${swap}`;
}

export function resultsTable(results: ProofResults): string {
  const lamp = results.scenario === 'lamp';
  const fpm = results.scenario === 'fpm';
  const swapRun = results.swapBytes > 0;
  const rows = [
    `| config | MaxRequestWorkers |${fpm ? ' pm.max_children |' : ''} -c | req/s (ab) | good req/s | failed / complete | mean | p99 | OOM kills | limit hits | peak memory | peak ${fpm ? 'php-fpm ' : ''}children | swap |${swapRun ? ' peak RAM + swap | major faults |' : ''}${lamp ? ' MariaDB |' : ''}`,
    `|---|---|${fpm ? '---|' : ''}---|---|---|---|---|---|---|---|---|---|---|${swapRun ? '---|---|' : ''}${lamp ? '---|' : ''}`,
  ];
  const order = results.configs.map((config) => config.name);
  const sorted = [...results.runs].sort((a, b) => a.concurrency - b.concurrency || order.indexOf(a.config) - order.indexOf(b.config));
  for (const run of sorted) {
    const config = configOf(results, run.config);
    const cells = [
      config.label,
      String(config.maxRequestWorkers),
      ...(fpm ? [String(config.poolChildren ?? '—')] : []),
      String(run.concurrency),
      ...abCells(run),
      String(run.cgroup.oomKills),
      String(run.cgroup.limitHits),
      mib(run.cgroup.peakBytes),
      String(run.peakChildren),
      run.cgroup.swapBytes === undefined ? 'not accounted' : mib(run.cgroup.swapBytes),
      ...(swapRun
        ? [run.cgroup.peakWithSwapBytes === undefined ? '—' : mib(run.cgroup.peakWithSwapBytes), String(run.cgroup.majorFaults)]
        : []),
      ...(lamp ? [databaseCell(run)] : []),
    ];
    rows.push(`| ${cells.join(' | ')} |`);
  }
  return rows.join('\n');
}

/** What Apache's (and php-fpm's) own error log said, set against what the kernel did. */
function errorLogNote(results: ProofResults): string {
  const name = (run: RunRecord): string => `${configOf(results, run.config).label} -c ${run.concurrency}`;
  const warned = results.runs.filter((run) => run.errorLog.maxRequestWorkersReached > 0).map(name);
  const killed = results.runs.filter((run) => run.cgroup.oomKills > 0);
  const logged = killed.filter((run) => run.errorLog.other > 0);
  const notes = [
    `Apache's error log: \`AH00161 server reached MaxRequestWorkers\` in ${warned.length === 0 ? 'no run' : warned.join(', ')}.`,
  ];
  if (results.scenario === 'fpm') {
    const full = results.runs.filter((run) => (run.phpLog?.maxChildrenReached ?? 0) > 0).map(name);
    const signalled = results.runs.filter((run) => (run.phpLog?.childrenSignalled ?? 0) > 0);
    notes.push(
      `php-fpm's log: "server reached pm.max_children" in ${full.length === 0 ? 'no run' : full.join(', ')}; children ended by a signal in ${
        signalled.length === 0 ? 'no run' : signalled.map((run) => `${name(run)} (${run.phpLog?.childrenSignalled ?? 0})`).join(', ')
      }.`,
    );
  }
  notes.push(
    killed.length === 0
      ? 'No run had OOM kills.'
      : `Runs with OOM kills: ${killed.map((run) => `${name(run)} (${run.cgroup.oomKills})`).join(', ')}; ${
          logged.length === 0
            ? "none of these logged anything in Apache's log beyond start-up and shutdown"
            : `beyond start-up and shutdown, the log of ${logged.map((run) => `${name(run)} said ${run.errorLog.otherSample.map((line) => `"${line}"`).join(', ')} (${run.errorLog.other} line${run.errorLog.other === 1 ? '' : 's'})`).join('; ')}`
        }.`,
  );
  return notes.join(' ');
}

function childrenSentence(who: string, measured: MeasuredChildren, flag: string): string {
  const child = measured.summary;
  return `${child.children} ${who}: median PSS ${mib(child.medianPssBytes)} (max ${mib(child.maxPssBytes)}), median RSS ${mib(child.medianRssBytes)}, median private ${mib(child.medianPrivateBytes)}. Given to tune-lint as \`${flag} ${measured.passedToTuneLint}\` (median PSS rounded up to a whole MiB).`;
}

/** The settings table: one row per config, one column per setting any of them shows. */
function settingsTable(results: ProofResults): string[] {
  const columns = [...new Set(results.configs.flatMap((config) => Object.keys(config.settings)))];
  return [
    `| config | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---|').join('')}`,
    ...results.configs.map((config) => `| ${config.label} | ${columns.map((column) => config.settings[column] ?? '—').join(' | ')} |`),
  ];
}

const PROOF_COMMANDS: Record<Scenario, string> = {
  web: 'npm run proof',
  lamp: 'npm run proof -- --with-mariadb',
  fpm: 'npm run proof -- --stack fpm',
};

/** The body of results.md; the README embeds the same text with the plot's path seen from there. */
export function resultsMarkdown(results: ProofResults, plotPath = 'plot.svg', heading = '##'): string {
  const m = results.machine;
  const command = `${PROOF_COMMANDS[results.scenario]}${results.swapBytes > 0 ? `${results.scenario === 'web' ? ' --' : ''} --swap ${Math.round(results.swapBytes / MIB)}M` : ''}`;
  const page =
    results.scenario === 'lamp'
      ? ', which reads 50 rows from a private MariaDB over its Unix socket on every request (in the same cgroup)'
      : results.scenario === 'fpm'
        ? ', run by php-fpm behind Apache (proxy_fcgi over a Unix socket; both in the same cgroup)'
        : '';
  const lines = [
    `Run ${results.date} by \`${command}\` (bench/proof/run.ts) in ${results.totalSeconds.toFixed(0)} s: ${stackTitle(results)}.`,
    `Machine: ${m.cpus} vCPU, ${formatBytes(m.ramBytes)} RAM, swap ${m.swapBytes === 0 ? 'none' : formatBytes(m.swapBytes)}, Linux ${m.kernel}; ${m.apache}; PHP ${m.php}; ${m.ab}.`,
    `The servers ran in a memory cgroup (v1) capped at ${mib(results.capBytes)}${results.swapBytes > 0 ? ` of RAM and allowed ${mib(results.swapBytes)} of swap beyond it (\`memory.memsw.limit_in_bytes\`; a swap file made for the run)` : ' with no swap'}, a fresh group per run; ab ran on the same host outside the cap. Load average (1 min) ${results.loadAverage.start.toFixed(1)} before the first run, ${results.loadAverage.end.toFixed(1)} after the last.`,
    `Load: \`ab -r -s 30 -t ${results.load.timeLimitSeconds} -n ${results.load.requests} -c C\` on a PHP page holding about 20 MB for about 35 ms of CPU and printing 28,000 bytes${page}.`,
    '',
    resultsTable(results),
    '',
    "good req/s = (complete − failed − non-2xx) / time: ab's own rate also counts responses cut short by a killed child.",
    `OOM kills = \`oom_kill\` in \`memory.oom_control\`; limit hits = \`memory.failcnt\`; peak memory = \`memory.max_usage_in_bytes\`${results.swapBytes > 0 ? '; peak RAM + swap = `memory.memsw.max_usage_in_bytes`; major faults = `pgmajfault` in `memory.stat` (pages read back from swap or disk)' : ''}.`,
    '',
    errorLogNote(results),
    '',
    `${heading} Per-child memory (measured, then given to tune-lint)`,
    '',
    `${results.warmup}. Then ${childrenSentence('Apache children', results.perChild, '--per-child')}${
      results.phpPerChild ? ` And ${childrenSentence('php-fpm children', results.phpPerChild, '--php-per-child')}` : ''
    }`,
    '',
    `${heading} The configs`,
    '',
    ...settingsTable(results),
    '',
  ];
  if (results.scenario === 'lamp') {
    const options = (config: ConfigDescription): string =>
      Object.entries(config.database ?? {})
        .map(([name, value]) => `${name}=${value}`)
        .join(', ') || 'none';
    const db = results.databaseAfterWarmup;
    lines.push(
      `MariaDB shares the cap, started per run with the side's own my.cnf (Debian's stock server settings: memory and connections at their defaults). Memory and connection options set: ${results.configs.map((config) => `${config.name}: ${options(config)}`).join('; ')}.${db ? ` mariadbd after the warm-up: PSS ${mib(db.pssBytes)}, RSS ${mib(db.rssBytes)}.` : ''}`,
      '',
    );
  }
  for (const config of results.configs) {
    if (config.source === 'hand-sized (dev only)') {
      lines.push(`**Dev-only run: "${config.label}" is a hand-written MaxRequestWorkers, not tune-lint's patch.**`, '');
    } else if (config.tuneLint) {
      lines.push(
        `"${config.label}" is the ${config.tunedFrom ?? 'stock'} tree after \`${config.tuneLint.command}\` (exit ${config.tuneLint.exitCode}). What it wrote:`,
        '',
        '```diff',
        config.tuneLint.patch.trimEnd(),
        '```',
        '',
      );
    }
  }
  lines.push(`![requests/s and p99 against concurrency, before and after](${plotPath})`, '');
  return lines.join('\n');
}

/** Where a scenario's results go under bench/proof/results, and the README's markers for them. */
export function resultsPlace(scenario: Scenario, swapBytes: number): { dir: string; marker: string } {
  const name = [scenario === 'web' ? '' : scenario, swapBytes > 0 ? 'swap' : ''].filter((part) => part !== '').join('-');
  return { dir: name, marker: name === '' ? 'latest-results' : `latest-${name}-results` };
}

/** The README with the text between the scenario's result markers replaced; undefined when the markers are missing. */
export function withLatestResults(readme: string, results: ProofResults): string | undefined {
  const { dir, marker } = resultsPlace(results.scenario, results.swapBytes);
  const startMarker = `<!-- ${marker}:start (written by bench/proof/run.ts) -->`;
  const endMarker = `<!-- ${marker}:end -->`;
  const start = readme.indexOf(startMarker);
  const end = readme.indexOf(endMarker);
  if (start < 0 || end < start) return undefined;
  const plotPath = path.posix.join('results', dir, 'plot.svg');
  return `${readme.slice(0, start + startMarker.length)}\n\n${resultsMarkdown(results, plotPath, '###')}\n${readme.slice(end)}`;
}
