import type { AnyLanguageDefinition, ConfigSet, LanguageDefinition, MemoryConsumer } from '../core/language.js';
import type { Fact, HostFacts } from '../core/host-facts.js';
import { versionAtLeast } from '../core/targets.js';
import { lineOf } from '../core/located.js';
import { apacheUsage, type ApacheUsage } from '../languages/apache/consumption.js';
import { mysqlUsageOf, type MysqlUsage } from '../languages/mycnf/consumption.js';
import { poolUsages, type PoolUsage } from '../languages/phpfpm/consumption.js';
import { formatBytes, formatPercent, GIB, MIB } from '../util/units.js';

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

/** An Apache config's usage, and what the sizing makes of it against the budget. */
export interface ApacheSizing extends ApacheUsage {
  /** Processes the budget holds at the median size (undefined without RAM). */
  readonly processesThatFit: number | undefined;
  /** True when the peak exceeds the budget by more than the tolerance: AP2001 lowers MaxRequestWorkers. */
  readonly overcommitted: boolean;
  /** MaxRequestWorkers after the sizing fix: the suggestion when overcommitted, else the current value. */
  readonly plannedMaxRequestWorkers: number;
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
export function poolLimit(pool: PoolUsage): string {
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
  readonly pools: readonly PoolUsage[];
  readonly mysql: MysqlUsage | undefined;
  /** Each PHP child may hold a database connection: MaxRequestWorkers of the servers with mod_php, plus pm.max_children of the pools. */
  readonly webDbConnections: number | undefined;
  /** The same sum with each server's MaxRequestWorkers as the sizing fix leaves it. */
  readonly plannedWebDbConnections: number | undefined;
  readonly budget: Budget;
  /** What every config consumes at its peak, web servers first, then PHP, then databases: what the memory picture adds up. */
  readonly consumers: readonly MemoryConsumer[];
}

export interface SizingInput {
  /** The languages of the configs, whose definitions say what each config consumes. */
  readonly languages: readonly AnyLanguageDefinition[];
  readonly configs: ConfigSet;
  readonly host: HostFacts;
  readonly budget: Budget;
}

/**
 * The reasoning of the admins who tuned by hand, made exact: the memory
 * budget for Apache, what each MPM's limits cost at peak, and MySQL's worst
 * case, from both configs and the host facts, each number traceable.
 */
export function computeSizing(input: SizingInput): Sizing {
  const { host, budget, configs } = input;
  const mycnf = configs.first('mycnf');
  const ram = host.ram;
  const dbLocal =
    mycnf !== undefined
      ? { value: true, reason: `a MySQL/MariaDB config (${mycnf.root.displayPath}) is linted with it` }
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
  const apache = configs.of('apache').flatMap((config) => {
    const usage = apacheUsage(config, host);
    return usage === undefined ? [] : [apacheSizing(usage, apacheBudget, budget.overcommitTolerance)];
  });
  const php = apache.filter((sizing) => sizing.php);
  const pools = poolUsages(configs.of('phpfpm'), host);
  // A php-fpm child, like a mod_php child, runs one request at a time, and a request holds at most one connection.
  const poolChildren = pools.reduce((sum, pool) => sum + (pool.maxChildren ?? 0), 0);
  const phpTier = php.length > 0 || poolChildren > 0;
  let consumers: readonly MemoryConsumer[] | undefined;
  return {
    ram,
    dbLocal,
    osReserve,
    apacheBudget,
    apacheBudgetReason,
    apache,
    pools,
    mysql: mycnf === undefined ? undefined : mysqlUsageOf(mycnf),
    webDbConnections: phpTier ? php.reduce((sum, sizing) => sum + sizing.maxRequestWorkers, 0) + poolChildren : undefined,
    plannedWebDbConnections: phpTier ? php.reduce((sum, sizing) => sum + sizing.plannedMaxRequestWorkers, 0) + poolChildren : undefined,
    budget,
    // Only the memory picture reads them, for the first lint and the last fix pass: not made for every pass.
    get consumers() {
      return (consumers ??= consumersOf(input));
    },
  };
}

/** Against the Apache budget: how many processes fit, and the MaxRequestWorkers AP2001 plans when the peak goes past it. */
function apacheSizing(usage: ApacheUsage, budget: number | undefined, tolerance: number): ApacheSizing {
  const processesThatFit = budget === undefined ? undefined : Math.floor(budget / usage.perChild.value.median);
  const overcommitted = budget !== undefined && usage.peak > budget * (1 + tolerance);
  const plannedMaxRequestWorkers =
    overcommitted && processesThatFit !== undefined && processesThatFit >= 1
      ? processesThatFit * usage.threadsPerChild
      : usage.maxRequestWorkers;
  return { ...usage, processesThatFit, overcommitted, plannedMaxRequestWorkers };
}

const ROLE_ORDER: Readonly<Record<MemoryConsumer['role'], number>> = { web: 0, php: 1, database: 2 };

/** Every config's consumers, as its language counts them, in the order of their roles (a stable sort keeps each role's in config order). */
function consumersOf(input: SizingInput): MemoryConsumer[] {
  const all = input.languages.flatMap((language) =>
    // Each definition gets the configs of its own id.
    input.configs.of(language.id).flatMap((config) => (language as LanguageDefinition).consumers(config as never, input.host)),
  );
  return all.sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role]);
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}
