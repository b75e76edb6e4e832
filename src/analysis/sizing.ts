import type { AnyLanguageDefinition, ConfigSet, LanguageDefinition, MemoryConsumer } from '../core/language.js';
import type { Fact, HostFacts } from '../core/host-facts.js';
import { versionAtLeast } from '../core/targets.js';
import { lineOf } from '../core/located.js';
import { apacheUsage, type ApacheUsage } from '../languages/apache/consumption.js';
import { mysqlUsageOf, type MysqlUsage } from '../languages/mycnf/consumption.js';
import { poolUsages, type PoolUsage } from '../languages/phpfpm/consumption.js';
import type { Budget } from './budget-settings.js';
import { planHost, type ApachePlan, type HostPlan, type PoolPlan } from './plan.js';

export { DEFAULT_BUDGET, type Budget } from './budget-settings.js';

/** `[www] pm.max_children 50 (set in www.conf:12)`: what a pool adds to the web tier's connections, as the plan leaves it. */
export function poolLimit(pool: PoolPlan): string {
  const use = pool.usage.maxChildrenUse;
  const { current, planned } = pool.maxChildren;
  const where = use === undefined ? '' : ` (set in ${lineOf(use)})`;
  if (planned === current) return `[${pool.usage.pool.name}] pm.max_children ${current}${where}`;
  return `[${pool.usage.pool.name}] pm.max_children ${planned} (as the plan sets it, from ${current}${where})`;
}

/** `MaxRequestWorkers 150 (set in mpm_prefork.conf:7)`, or the planned value with the one it replaces. */
export function webTierLimit(apache: ApachePlan): string {
  const usage = apache.usage;
  const use = usage.config.mpm?.values.MaxRequestWorkers.use;
  const where = use === undefined ? `${usage.mpm}'s default for ${usage.config.root.displayPath}` : `set in ${lineOf(use)}`;
  const { current, planned } = apache.maxRequestWorkers;
  if (planned === current) return `${usage.limitName} ${current} (${where})`;
  const name = versionAtLeast(usage.config.httpd, '2.4') ? 'MaxRequestWorkers' : 'MaxClients';
  return `${name} ${planned} (as AP2001 sets it, from ${usage.limitName} ${current} ${where})`;
}

export interface Sizing {
  readonly ram: Fact<number> | undefined;
  readonly dbLocal: { readonly value: boolean; readonly reason: string };
  readonly osReserve: number | undefined;
  readonly apache: readonly ApacheUsage[];
  /** Every php-fpm pool at its peak; with Apache they are the web tier. */
  readonly pools: readonly PoolUsage[];
  readonly mysql: MysqlUsage | undefined;
  /** One allocation of every knob (analysis/plan.ts), its memory side only with RAM. */
  readonly plan: HostPlan;
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
  /** A rule's options where it is on for these configs, undefined where it is off: the plan makes only the decisions of rules that run. */
  readonly ruleOptions: (ruleId: string) => Readonly<Record<string, unknown>> | undefined;
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
  // Other services' memory (budget otherServices) is set aside with the OS's: the servers share what both leave.
  const osReserve =
    ram === undefined
      ? undefined
      : clamp(ram.value * budget.osReserveShare, budget.osReserveMin, budget.osReserveMax) + budget.otherServices;
  const apache = configs.of('apache').flatMap((config) => apacheUsage(config, host) ?? []);
  const pools = poolUsages(configs.of('phpfpm'), host);
  const mysql = mycnf === undefined ? undefined : mysqlUsageOf(mycnf);
  let consumers: readonly MemoryConsumer[] | undefined;
  let plan: HostPlan | undefined;
  return {
    ram,
    dbLocal,
    osReserve,
    apache,
    pools,
    mysql,
    budget,
    get plan() {
      return (plan ??= planHost({
        ram,
        osReserve,
        host,
        budget,
        dbLocal,
        apache,
        pools,
        mysql: mycnf === undefined || mysql === undefined ? undefined : { config: mycnf, usage: mysql },
        ruleOptions: input.ruleOptions,
      }));
    },
    // Only the memory picture reads them, for the first lint and the last fix pass: not made for every pass.
    get consumers() {
      return (consumers ??= consumersOf(input));
    },
  };
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
