import { plannedChildSize, type ChildMemory, type Fact, type HostFacts } from '../../core/host-facts.js';
import type { MemoryConsumer } from '../../core/language.js';
import { lineOf } from '../../core/located.js';
import { versionAtLeast } from '../../core/targets.js';
import { formatBytes } from '../../util/units.js';
import type { ApacheConfig } from './model.js';
import { isPhpModule, type MpmName } from './names.js';
import { estimatePerChild } from './per-child-estimate.js';
import type { ApacheDirectiveUse } from './uses.js';

/** What an Apache config asks of the host at its peak: its processes at the MPM's limits, each as large as a child is. */
export interface ApacheUsage {
  readonly config: ApacheConfig;
  readonly mpm: MpmName;
  /** The limit's name as the config writes it (MaxClients is its old name), else as the target has it: httpd 2.2 knows only MaxClients. */
  readonly limitName: string;
  readonly maxRequestWorkers: number;
  readonly threadsPerChild: number;
  /** Processes at full load. */
  readonly processes: number;
  readonly perChild: Fact<ChildMemory>;
  /** processes x a process's size (plannedChildSize: the 90th percentile of those measured, else the median or the figure given). */
  readonly peak: number;
  /** processes x largest process size. */
  readonly peakAtMax: number;
  readonly php: boolean;
  /**
   * The first line that hands requests to a FastCGI server (php-fpm, as
   * Debian's php8.2-fpm.conf does): its processes are not Apache's, and no
   * Apache config says how many there are or how large.
   */
  readonly fastCgi: ApacheDirectiveUse | undefined;
}

/** The config's usage, or undefined when no MPM is loaded (nothing runs to size). */
export function apacheUsage(config: ApacheConfig, host: HostFacts): ApacheUsage | undefined {
  const mpm = config.mpm;
  if (mpm?.name === undefined) return undefined;
  const modules = [...config.modules.keys()];
  const php = modules.some(isPhpModule);
  const perChild = perChildFor(host.perChild, mpm.name, modules, php);
  const processes = mpm.maxProcesses;
  return {
    config,
    mpm: mpm.name,
    limitName: mpm.values.MaxRequestWorkers.use?.node.name ?? (versionAtLeast(config.httpd, '2.4') ? 'MaxRequestWorkers' : 'MaxClients'),
    maxRequestWorkers: mpm.values.MaxRequestWorkers.value,
    threadsPerChild: mpm.threadsPerChild,
    processes,
    perChild,
    peak: processes * plannedChildSize(perChild.value),
    peakAtMax: processes * perChild.value.max,
    php,
    fastCgi: fastCgiHandOff(config),
  };
}

/** Apache's processes at the MPM's limits, as the host budget counts them. */
export function apacheConsumers(config: ApacheConfig, host: HostFacts): MemoryConsumer[] {
  const usage = apacheUsage(config, host);
  if (usage === undefined) return [];
  const perChild = formatBytes(plannedChildSize(usage.perChild.value));
  const detail =
    usage.mpm === 'prefork'
      ? `${usage.limitName} ${usage.maxRequestWorkers} x ${perChild} per child`
      : `${usage.limitName} ${usage.maxRequestWorkers} / ThreadsPerChild ${usage.threadsPerChild} = ${usage.processes} processes x ${perChild}`;
  const use = config.mpm?.values.MaxRequestWorkers.use;
  return [
    {
      language: 'apache',
      config,
      role: 'web',
      label: 'Apache',
      bytes: usage.peak,
      detail,
      limits: [
        {
          name: usage.limitName,
          value: usage.maxRequestWorkers,
          setAt: use,
          from: use === undefined ? `${usage.mpm}'s default for ${config.root.displayPath}` : `set in ${lineOf(use)}`,
        },
      ],
    },
  ];
}

/**
 * The per-child figure for this config: the one given or measured, unless
 * the children measured run another MPM or PHP than the config (the event
 * Apache still running while the disk says prefork with mod_php: 3.1 MiB a
 * child), whose sizes say nothing of it; then the estimate, saying why.
 */
function perChildFor(given: Fact<ChildMemory> | undefined, mpm: MpmName, modules: readonly string[], php: boolean): Fact<ChildMemory> {
  const running = given?.value.measuredOn;
  if (given !== undefined && (running === undefined || ((running.mpm === undefined || running.mpm === mpm) && running.php === php)))
    return given;
  const estimate = estimatePerChild(mpm, modules);
  if (running === undefined) return estimate;
  const what = (name: string | undefined, withPhp: boolean): string =>
    `${name ?? 'an MPM built in'} ${withPhp ? 'with mod_php' : 'without PHP'}`;
  return {
    ...estimate,
    source: `${estimate.source.replace(/\)$/, '')}; the running Apache's children (${what(running.mpm, running.php)}) are not this config's (${what(mpm, php)}), so their ${formatBytes(given?.value.median ?? 0)} was not used)`,
  };
}

/** `SetHandler "proxy:unix:/run/php/php8.2-fpm.sock|fcgi://localhost"`, `ProxyPassMatch ... fcgi://127.0.0.1:9000/...`. */
function fastCgiHandOff(config: ApacheConfig): ApacheDirectiveUse | undefined {
  if (!config.hasModule('proxy_fcgi_module')) return undefined;
  const toFastCgi = (use: ApacheDirectiveUse): boolean => use.args.some((arg) => /(^|\||^proxy:)fcgi:\/\//i.test(arg));
  return [...config.named('sethandler'), ...config.named('proxypass'), ...config.named('proxypassmatch')]
    .filter(toFastCgi)
    .sort((a, b) => a.order - b.order)[0];
}
