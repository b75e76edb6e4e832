import { estimatePerChild } from './per-child-estimate.js';
import type { PhpFpmConfig } from '../languages/phpfpm/model.js';
import { poolSizings, type PoolSizing } from './php-pools.js';
import type { ChildMemory, Fact, HostFacts } from '../host/facts.js';
import { versionAtLeast } from '../core/targets.js';
import { lineOf } from '../core/located.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../languages/apache/model.js';
import type { MpmName } from '../languages/apache/names.js';
import { isPhpModule } from '../languages/apache/names.js';
import type { MycnfConfig } from '../languages/mycnf/model.js';
import { formatBytes, formatPercent } from '../util/units.js';
import { remembered } from '../util/remembered.js';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** Every number of the sizing model; `.tune-lint.yaml` `budget:` overrides them. */
export interface Budget {
  /** Share of RAM for Apache when a database runs on the same host (the classic "50% of RAM to Apache"). */
  readonly apacheShare: number;
  /** OS reserve: this share of RAM, clamped to [osReserveMin, osReserveMax]. */
  readonly osReserveShare: number;
  readonly osReserveMin: number;
  readonly osReserveMax: number;
  /** MySQLTuner's alarm: worst-case MySQL memory above this share of RAM on a dedicated host. */
  readonly mysqlMaxShare: number;
  /** Connections kept free for cron, CLI and admin on top of the web tier's. */
  readonly adminConnections: number;
  /** Over the Apache budget by up to this share is a note; beyond it, an error with a fix. */
  readonly overcommitTolerance: number;
}

export const DEFAULT_BUDGET: Budget = {
  apacheShare: 0.5,
  osReserveShare: 0.1,
  osReserveMin: 64 * MIB,
  osReserveMax: 1 * GIB,
  mysqlMaxShare: 0.85,
  adminConnections: 10,
  overcommitTolerance: 0.1,
};

export interface ApacheSizing {
  readonly config: ApacheConfig;
  readonly mpm: MpmName;
  /** The limit's name as the config writes it (MaxClients is its old name), else as the target has it: httpd 2.2 knows only MaxClients. */
  readonly limitName: string;
  readonly maxRequestWorkers: number;
  readonly threadsPerChild: number;
  /** Processes at full load. */
  readonly processes: number;
  readonly perChild: Fact<ChildMemory>;
  /** processes x median process size. */
  readonly peak: number;
  /** processes x largest process size. */
  readonly peakAtMax: number;
  readonly php: boolean;
  /** Processes the budget holds at the median size (undefined without RAM). */
  readonly processesThatFit: number | undefined;
  /** True when the peak exceeds the budget by more than the tolerance: AP2001 lowers MaxRequestWorkers. */
  readonly overcommitted: boolean;
  /** MaxRequestWorkers after the sizing fix: the suggestion when overcommitted, else the current value. */
  readonly plannedMaxRequestWorkers: number;
  /**
   * The first line that hands requests to a FastCGI server (php-fpm, as
   * Debian's php8.2-fpm.conf does): its processes are not Apache's, and no
   * config read here says how many there are or how large.
   */
  readonly fastCgi: ApacheDirectiveUse | undefined;
}

/**
 * An Apache limit as messages about the database connections it opens cite
 * it: with the line that sets it, which is seldom the main file (Debian's is
 * in mods-enabled/mpm_prefork.conf), or as the MPM's default; after AP2001's
 * fix, the value it plans, in the name it writes (the target's).
 */
/** Apache's peak at the limit its sizing fix (AP2001) leaves: sized first, the php-fpm pools share what remains of the web tier's budget. */
export function plannedApachePeak(sizing: Pick<Sizing, 'apache'>): number {
  return sizing.apache.reduce(
    (sum, apache) => sum + Math.ceil(apache.plannedMaxRequestWorkers / apache.threadsPerChild) * apache.perChild.value.median,
    0,
  );
}

/** `[www] pm.max_children 50 (set in www.conf:12)`: what a pool adds to the web tier's connections. */
export function poolLimit(pool: PoolSizing): string {
  const use = pool.maxChildrenUse;
  return `[${pool.pool.name}] pm.max_children ${pool.maxChildren ?? 0}${use === undefined ? '' : ` (set in ${lineOf(use)})`}`;
}

export function webTierLimit(sizing: ApacheSizing): string {
  const use = sizing.config.mpm?.values.MaxRequestWorkers.use;
  const where = use === undefined ? `${sizing.mpm}'s default for ${sizing.config.root.displayPath}` : `set in ${lineOf(use)}`;
  if (sizing.plannedMaxRequestWorkers === sizing.maxRequestWorkers) return `${sizing.limitName} ${sizing.maxRequestWorkers} (${where})`;
  const planned = versionAtLeast(sizing.config.httpd, '2.4') ? 'MaxRequestWorkers' : 'MaxClients';
  return `${planned} ${sizing.plannedMaxRequestWorkers} (as AP2001 sets it, from ${sizing.limitName} ${sizing.maxRequestWorkers} ${where})`;
}

interface MysqlTerm {
  readonly name: string;
  readonly bytes: number;
  /** `set in FILE:LINE` or `default for mariadb 10.11`. */
  readonly from: string;
}

export interface MysqlSizing {
  readonly globals: readonly MysqlTerm[];
  readonly perConnection: readonly MysqlTerm[];
  readonly maxConnections: { readonly value: number; readonly from: string };
  readonly globalBytes: number;
  readonly perConnectionBytes: number;
  /** The worst case: globals + per-connection buffers x max_connections (the temporary-table term once, among the globals). */
  readonly peak: number;
}

export interface Sizing {
  readonly ram: Fact<number> | undefined;
  readonly dbLocal: { readonly value: boolean; readonly reason: string };
  readonly osReserve: number | undefined;
  /** Bytes Apache may use at peak; undefined without RAM. */
  readonly apacheBudget: number | undefined;
  /** How the budget was derived, for messages: `50% of 500 MiB RAM`. */
  readonly apacheBudgetReason: string;
  readonly apache: readonly ApacheSizing[];
  /** Every php-fpm pool at its peak; with Apache they are the web tier, which shares the Apache budget. */
  readonly pools: readonly PoolSizing[];
  readonly mysql: MysqlSizing | undefined;
  /** Each PHP child may hold a database connection: MaxRequestWorkers of the servers with mod_php, plus pm.max_children of the pools. */
  readonly webDbConnections: number | undefined;
  /** The same sum with each server's MaxRequestWorkers as the sizing fix leaves it. */
  readonly plannedWebDbConnections: number | undefined;
  readonly budget: Budget;
}

export interface SizingInput {
  readonly apache: readonly ApacheConfig[];
  readonly mycnf: MycnfConfig | undefined;
  readonly phpfpm: readonly PhpFpmConfig[];
  readonly host: HostFacts;
  readonly budget: Budget;
}

/**
 * The reasoning of the admins who tuned by hand, made exact: the memory
 * budget for Apache, what each MPM's limits cost at peak, and MySQL's worst
 * case, from both configs and the host facts, each number traceable.
 */
export function computeSizing(input: SizingInput): Sizing {
  const { host, budget, mycnf } = input;
  const ram = host.ram;
  const dbLocal =
    input.mycnf !== undefined
      ? { value: true, reason: `a MySQL/MariaDB config (${input.mycnf.root.displayPath}) is linted with it` }
      : host.mysqlRunning?.value === true
        ? { value: true, reason: `mysqld runs on this host (${host.mysqlRunning.source})` }
        : { value: false, reason: 'no database config linted and none seen running' };
  const osReserve = ram === undefined ? undefined : clamp(ram.value * budget.osReserveShare, budget.osReserveMin, budget.osReserveMax);
  let apacheBudget: number | undefined;
  let apacheBudgetReason = 'unknown RAM';
  if (ram !== undefined && osReserve !== undefined) {
    if (dbLocal.value) {
      apacheBudget = Math.floor(ram.value * budget.apacheShare);
      apacheBudgetReason = `${formatPercent(budget.apacheShare)} of ${formatBytes(ram.value)} RAM, since ${dbLocal.reason}`;
    } else {
      apacheBudget = Math.floor(ram.value - osReserve);
      apacheBudgetReason = `${formatBytes(ram.value)} RAM less an OS reserve of ${formatBytes(osReserve)}`;
    }
  }
  const apache = input.apache.flatMap((config) => {
    const sizing = apacheSizing(config, host, apacheBudget, budget.overcommitTolerance);
    return sizing === undefined ? [] : [sizing];
  });
  const php = apache.filter((sizing) => sizing.php);
  const pools = poolSizings(input.phpfpm, host);
  // A php-fpm child, like a mod_php child, runs one request at a time, and a request holds at most one connection.
  const poolChildren = pools.reduce((sum, pool) => sum + (pool.maxChildren ?? 0), 0);
  const phpTier = php.length > 0 || poolChildren > 0;
  return {
    ram,
    dbLocal,
    osReserve,
    apacheBudget,
    apacheBudgetReason,
    apache,
    pools,
    mysql: mycnf === undefined ? undefined : remembered(mysqlSizings, mycnf, () => mysqlSizing(mycnf)),
    webDbConnections: phpTier ? php.reduce((sum, sizing) => sum + sizing.maxRequestWorkers, 0) + poolChildren : undefined,
    plannedWebDbConnections: phpTier ? php.reduce((sum, sizing) => sum + sizing.plannedMaxRequestWorkers, 0) + poolChildren : undefined,
    budget,
  };
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

function apacheSizing(config: ApacheConfig, host: HostFacts, budget: number | undefined, tolerance: number): ApacheSizing | undefined {
  const mpm = config.mpm;
  if (mpm?.name === undefined) return undefined;
  const modules = [...config.modules.keys()];
  const php = modules.some(isPhpModule);
  const perChild = perChildFor(host.perChild, mpm.name, modules, php);
  const maxRequestWorkers = mpm.values.MaxRequestWorkers.value;
  const processes = mpm.maxProcesses;
  const peak = processes * perChild.value.median;
  const processesThatFit = budget === undefined ? undefined : Math.floor(budget / perChild.value.median);
  const overcommitted = budget !== undefined && peak > budget * (1 + tolerance);
  const plannedMaxRequestWorkers =
    overcommitted && processesThatFit !== undefined && processesThatFit >= 1 ? processesThatFit * mpm.threadsPerChild : maxRequestWorkers;
  return {
    config,
    mpm: mpm.name,
    limitName: mpm.values.MaxRequestWorkers.use?.node.name ?? (versionAtLeast(config.httpd, '2.4') ? 'MaxRequestWorkers' : 'MaxClients'),
    maxRequestWorkers,
    threadsPerChild: mpm.threadsPerChild,
    processes,
    perChild,
    peak,
    peakAtMax: processes * perChild.value.max,
    php,
    processesThatFit,
    overcommitted,
    plannedMaxRequestWorkers,
    fastCgi: fastCgiHandOff(config),
  };
}

/** `SetHandler "proxy:unix:/run/php/php8.2-fpm.sock|fcgi://localhost"`, `ProxyPassMatch ... fcgi://127.0.0.1:9000/...`. */
function fastCgiHandOff(config: ApacheConfig): ApacheDirectiveUse | undefined {
  if (!config.hasModule('proxy_fcgi_module')) return undefined;
  const toFastCgi = (use: ApacheDirectiveUse): boolean => use.args.some((arg) => /(^|\|)fcgi:\/\//i.test(arg));
  return [...config.named('sethandler'), ...config.named('proxypass'), ...config.named('proxypassmatch')]
    .filter(toFastCgi)
    .sort((a, b) => a.order - b.order)[0];
}

/** Memory variables of the worst-case formula (docs/rules/MY2001.md says which, and how MySQLTuner's `calculations` differ). */
const GLOBAL_BUFFERS = [
  'key_buffer_size',
  'innodb_buffer_pool_size',
  'innodb_additional_mem_pool_size',
  'innodb_log_buffer_size',
  'query_cache_size',
  'aria_pagecache_buffer_size',
] as const;
const PER_CONNECTION_BUFFERS = [
  'read_buffer_size',
  'read_rnd_buffer_size',
  'sort_buffer_size',
  'thread_stack',
  'join_buffer_size',
] as const;

/** By config: a fix pass that changed no option file lints the same config again. */
const mysqlSizings = new WeakMap<MycnfConfig, MysqlSizing>();

function mysqlSizing(config: MycnfConfig): MysqlSizing {
  const term = (name: string): MysqlTerm | undefined => {
    const size = config.size(name);
    if (size === undefined) return undefined;
    return {
      name,
      bytes: size.bytes,
      from: size.from === 'default' ? `default for ${config.target.product} ${config.target.version}` : `set in ${where(size.from)}`,
    };
  };
  const globals = GLOBAL_BUFFERS.flatMap((name) => term(name) ?? []);
  const tmp = term('tmp_table_size');
  const heap = term('max_heap_table_size');
  if (tmp !== undefined && heap !== undefined) {
    const smaller = tmp.bytes <= heap.bytes ? tmp : heap;
    globals.push({ name: 'min(tmp_table_size, max_heap_table_size)', bytes: smaller.bytes, from: smaller.from });
  }
  const perConnection = PER_CONNECTION_BUFFERS.flatMap((name) => term(name) ?? []);
  const connections = term('max_connections');
  const maxConnections = {
    value: connections?.bytes ?? 151,
    from: connections?.from ?? `default for ${config.target.product} ${config.target.version}`,
  };
  const globalBytes = globals.reduce((sum, t) => sum + t.bytes, 0);
  const perConnectionBytes = perConnection.reduce((sum, t) => sum + t.bytes, 0);
  return {
    globals,
    perConnection,
    maxConnections,
    globalBytes,
    perConnectionBytes,
    peak: globalBytes + perConnectionBytes * maxConnections.value,
  };
}

function where(use: {
  readonly file: { readonly displayPath: string; position(offset: number): { line: number } };
  readonly range: readonly [number, number];
}): string {
  return `${use.file.displayPath}:${use.file.position(use.range[0]).line}`;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
