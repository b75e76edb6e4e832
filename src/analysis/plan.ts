import { mayRaise, plannedChildSize, type Fact, type HostFacts } from '../core/host-facts.js';
import { lineOf } from '../core/located.js';
import type { ApacheUsage } from '../languages/apache/consumption.js';
import type { MysqlUsage } from '../languages/mycnf/consumption.js';
import type { MycnfConfig } from '../languages/mycnf/model.js';
import type { PoolUsage } from '../languages/phpfpm/consumption.js';
import { formatBytes, formatPercent, GIB, MIB } from '../util/units.js';
import type { Budget } from './budget-settings.js';
import { counter } from './mysql-live.js';
import { handsOffTo, samePoolSocket } from './php-pools.js';

/**
 * Why the plan moves a knob. Each reason belongs to the rule that reports it
 * (PLAN_OWNERS): a rule turned off leaves its knob as it is set, and the plan
 * shares out the host around it.
 */
export type PlanReason =
  /** Cut so that the host's worst case fits its RAM. */
  | 'memory'
  /** Apache's threads in front of php-fpm cut to a small multiple of the PHP children they feed. */
  | 'front'
  /** A pool above the Apache workers that hand it requests, which never keep more children busy. */
  | 'workers'
  /** PHP children above what the CPUs run at once (phpChildrenPerCpu). */
  | 'cpu'
  /** PHP children raised: the CPUs run more, and memory holds them. */
  | 'room'
  /** The buffer pool to the InnoDB data it caches, with headroom. */
  | 'data'
  /** The buffer pool of a host that runs only the database: innodb_dedicated_server's sizing. */
  | 'dedicated'
  /** max_connections to the clients the web tier can open, plus the admin's. */
  | 'clients';

/** One knob of the plan: what is set, what the plan gives it, and the arithmetic in words. */
export interface Decision {
  readonly current: number;
  readonly planned: number;
  readonly reason: PlanReason | undefined;
  readonly why: string;
}

/** What an Apache does for PHP: runs it (mod_php), hands its requests to php-fpm pools, or neither. */
export type ApacheRole = 'php' | 'front' | 'static';

export interface ApachePlan {
  readonly usage: ApacheUsage;
  readonly role: ApacheRole;
  /** The pools it hands requests to (a front). */
  readonly feeds: readonly PoolUsage[];
  readonly maxRequestWorkers: Decision;
  readonly processes: number;
  /** Bytes at the planned limit. */
  readonly peak: number;
}

export interface PoolPlan {
  readonly usage: PoolUsage;
  /** The Apaches that hand requests to it. */
  readonly feeders: readonly ApacheUsage[];
  /**
   * True when Apache is linted and none of it hands requests to the pool (an
   * installed pool beside mod_php, say): its memory is still counted, but its
   * children are no database clients and it is not raised.
   */
  readonly unfed: boolean;
  readonly maxChildren: Decision;
  readonly peak: number;
}

/** A global cache the plan may move: the buffer pool, and under pressure MyISAM's key cache and Aria's page cache. */
export interface CachePlan {
  readonly name: string;
  readonly from: string;
  readonly decision: Decision;
}

export interface MysqlPlan {
  readonly config: MycnfConfig;
  readonly usage: MysqlUsage;
  /** Per-connection bytes with each buffer as MY2003 leaves it (its default when far above it). */
  readonly perConnection: number;
  /** Global bytes besides the caches of `caches`, as MY2003 leaves the temporary-table limit. */
  readonly fixedGlobals: number;
  readonly caches: readonly CachePlan[];
  readonly maxConnections: Decision;
  /** What the server may use, and why; undefined without RAM. */
  readonly space: { readonly bytes: number; readonly reason: string } | undefined;
  /** The worst case at the planned values. */
  readonly peak: number;
  /** False when even the caches at their floors leave the server above its space. */
  readonly fits: boolean;
}

/** The memory side of a plan, when RAM is known. */
export interface MemoryPlan {
  readonly ram: Fact<number>;
  readonly osReserve: number;
  /** RAM less the OS reserve: what the servers share. */
  readonly available: number;
  /** The web tier's share: at least apacheShare of RAM beside a database, more when the database asks less. */
  readonly webBudget: { readonly bytes: number; readonly reason: string };
  /** The servers' worst case at the limits as set, with the OS reserve. */
  readonly before: number;
  /** The same at the planned limits. */
  readonly after: number;
  /** True when the limits as set cannot all be met at once: the sum is past RAM, or the web tier past its budget and tolerance. */
  readonly overcommitted: boolean;
  /** False when even one process or child of each web runner is past the web tier's budget. */
  readonly webFits: boolean;
}

/**
 * One allocation of every knob. Without RAM only the decisions that need
 * none are made (a pool above the workers that feed it, or the CPUs;
 * max_connections to the clients); nothing is raised.
 */
export interface HostPlan {
  readonly memory: MemoryPlan | undefined;
  readonly apache: readonly ApachePlan[];
  readonly pools: readonly PoolPlan[];
  readonly mysql: MysqlPlan | undefined;
  /** The clients that may each hold a database connection: mod_php workers and php-fpm children as planned; undefined without PHP. */
  readonly phpClients: number | undefined;
  /** Why a limit was not raised where the plan would have: children measured idle, a size nobody measured. */
  readonly notes: readonly string[];
}

/** The rule that reports each kind of decision; a decision whose rule is off is not made. */
const PLAN_OWNERS = {
  apache: { memory: 'AP2001', front: 'AP2001' },
  pool: { memory: 'PF2001', cpu: 'PF2001', workers: 'HO2003', room: 'HO2003' },
  maxConnections: { raise: 'HO1001', lower: 'MY2004' },
  cache: { data: 'MY2002', dedicated: 'MY2002', memory: 'HO2001', alone: 'MY2001' },
} as const;

export interface PlanInput {
  readonly ram: Fact<number> | undefined;
  readonly osReserve: number | undefined;
  readonly host: HostFacts;
  readonly budget: Budget;
  readonly dbLocal: { readonly value: boolean; readonly reason: string };
  readonly apache: readonly ApacheUsage[];
  readonly pools: readonly PoolUsage[];
  readonly mysql: { readonly config: MycnfConfig; readonly usage: MysqlUsage } | undefined;
  /** A rule's options where it is on for the host's configs, undefined where it is off. */
  readonly ruleOptions: (ruleId: string) => Readonly<Record<string, unknown>> | undefined;
}

/** The buffer pool grows in chunks of 128 MiB (innodb_buffer_pool_chunk_size's default): a raise keeps to whole chunks. */
const POOL_CHUNK = 128 * MIB;

/**
 * MySQL's caches that can give way, largest saving first, with the size below
 * which tune-lint does not shrink them (heuristic floors, named in the doc):
 * Aria's page cache (MariaDB's internal temporary tables), MyISAM's key
 * cache, then InnoDB's buffer pool, each kept in whole 8 MiB steps.
 */
const SHRINKABLE = [
  { name: 'aria_pagecache_buffer_size', floor: 16 * MIB, step: 8 * MIB },
  { name: 'key_buffer_size', floor: 8 * MIB, step: 8 * MIB },
  { name: 'innodb_buffer_pool_size', floor: 32 * MIB, step: 8 * MIB },
] as const;

/** MY2003's thresholds, by buffer: a buffer above its threshold is planned at its default. */
const BUFFER_THRESHOLDS: Readonly<Record<string, string>> = {
  sort_buffer_size: 'sortBuffer',
  join_buffer_size: 'joinBuffer',
  read_buffer_size: 'readBuffer',
  read_rnd_buffer_size: 'readRndBuffer',
  tmp_table_size: 'tmpTable',
  max_heap_table_size: 'tmpTable',
};

/**
 * One allocation of every knob at once. Needs first: the database's caches
 * and connections as the data and the clients ask, PHP children as the CPUs
 * run them. When the host holds all that, the limits stay as set, except
 * where the data or the CPUs ask for more and memory holds it (a raise only
 * past raiseThreshold, so a plan never moves a limit by a little). When it
 * does not, the web tier gets its budget (at least apacheShare of RAM, more
 * when the database asks less), shared by cutting every PHP runner by one
 * factor, with Apache in front of php-fpm cut to threadsPerPhpChild threads a
 * child; the database gets the rest, its caches giving way down to floors.
 * Decisions whose rule is off are not made: the plan is made again around
 * them as they are set.
 */
export function planHost(input: PlanInput): HostPlan {
  const frozen = new Set<string>();
  let plan = allocate(input, frozen);
  for (let round = 0; round < 8; round++) {
    const off = decisionsOf(plan).filter(({ key, owner, decision }) => {
      return decision.planned !== decision.current && !frozen.has(key) && input.ruleOptions(owner) === undefined;
    });
    if (off.length === 0) break;
    for (const { key } of off) frozen.add(key);
    plan = allocate(input, frozen);
  }
  return plan;
}

/** Every decision with its key (`pool:0/memory`: the knob and the reason, which is what a rule turned off freezes) and the rule that reports it. */
function decisionsOf(plan: HostPlan): { key: string; owner: string; decision: Decision }[] {
  const out: { key: string; owner: string; decision: Decision }[] = [];
  plan.apache.forEach((entry, index) => {
    const reason = entry.maxRequestWorkers.reason;
    if (reason === 'memory' || reason === 'front')
      out.push({ key: `apache:${index}/${reason}`, owner: PLAN_OWNERS.apache[reason], decision: entry.maxRequestWorkers });
  });
  plan.pools.forEach((entry, index) => {
    const reason = entry.maxChildren.reason;
    if (reason === 'memory' || reason === 'cpu' || reason === 'workers' || reason === 'room')
      out.push({ key: `pool:${index}/${reason}`, owner: PLAN_OWNERS.pool[reason], decision: entry.maxChildren });
  });
  const mysql = plan.mysql;
  if (mysql !== undefined) {
    const connections = mysql.maxConnections;
    const direction = connections.planned > connections.current ? 'raise' : 'lower';
    out.push({ key: `max_connections/${direction}`, owner: PLAN_OWNERS.maxConnections[direction], decision: connections });
    for (const cache of mysql.caches) {
      const reason = cache.decision.reason;
      if (reason === undefined) continue;
      const owner =
        reason === 'data' || reason === 'dedicated'
          ? PLAN_OWNERS.cache[reason]
          : plan.apache.length + plan.pools.length === 0
            ? PLAN_OWNERS.cache.alone
            : PLAN_OWNERS.cache.memory;
      out.push({ key: `cache:${cache.name}/${reason}`, owner, decision: cache.decision });
    }
  }
  return out;
}

/** The web tier at some scale: each Apache's processes, each pool's children (input order), and their bytes. */
interface WebTier {
  readonly apache: readonly number[];
  readonly pools: readonly number[];
  readonly bytes: number;
}

/** A web-tier runner the plan scales: its units (processes, children) after the caps that need no memory, and the bytes of one. */
interface Runner {
  readonly units: number;
  readonly unitBytes: number;
  /** Its memory cut is frozen: the rule that makes it is off. */
  readonly frozen: boolean;
}

interface ApacheRunner extends Runner {
  readonly usage: ApacheUsage;
  readonly role: ApacheRole;
  readonly feeds: readonly PoolUsage[];
  /** Its cut to the PHP children it feeds is frozen. */
  readonly frontFrozen: boolean;
}

/** RAM, the OS reserve and what they leave the servers. */
interface HostMemory {
  readonly ram: Fact<number>;
  readonly osReserve: number;
  readonly available: number;
}

function allocate(input: PlanInput, frozen: ReadonlySet<string>): HostPlan {
  const notes: string[] = [];
  const tier = new WebTierModel(input, frozen, notes);
  const database = input.mysql === undefined ? undefined : new DatabaseNeeds(input, frozen);
  const host =
    input.ram === undefined || input.osReserve === undefined
      ? undefined
      : { ram: input.ram, osReserve: input.osReserve, available: input.ram.value - input.osReserve };
  const sized = host === undefined ? undefined : sizeWebTier(input, host, tier, database, notes);
  const web = sized?.web ?? tier.wanted;
  const clients = tier.clientsOf(web);
  const space = host === undefined ? undefined : databaseSpace(input, host, tier.hasWeb, web);
  const mysql = database?.plan(clients, space);
  const memory: MemoryPlan | undefined =
    host === undefined || sized === undefined
      ? undefined
      : { ...host, ...sized.memory, after: web.bytes + (mysql?.peak ?? 0) + host.osReserve };
  return {
    memory,
    apache: tier.apachePlans(web, memory?.webBudget),
    pools: tier.poolPlans(web, sized?.cut === true, memory?.webBudget),
    mysql,
    phpClients: clients,
    notes,
  };
}

/** The web tier as the memory leaves it: cut to its budget when over it, pools raised where there is room. */
function sizeWebTier(
  input: PlanInput,
  host: HostMemory,
  tier: WebTierModel,
  database: DatabaseNeeds | undefined,
  notes: string[],
): { web: WebTier; cut: boolean; memory: Omit<MemoryPlan, keyof HostMemory | 'after'> } {
  const { budget } = input;
  const tolerance = 1 + budget.overcommitTolerance;
  const webBudget = webBudgetOf(input, host, database?.need(tier.clientsOf(tier.wanted), false));
  const currentWeb = tier.currentBytes;
  const before = currentWeb + (database?.currentPeak ?? 0) + host.osReserve;
  const cut = tier.wanted.bytes > webBudget.bytes * tolerance;
  // Judged on the limits as set: a cap that needs no memory (the CPUs, the workers) does not make a host that is over its RAM fit.
  const overcommitted = database !== undefined && tier.hasWeb ? before > host.ram.value : currentWeb > webBudget.bytes * tolerance;
  const fitted = cut ? tier.fit(webBudget.bytes) : tier.wanted;
  const room = host.available - (database?.need(tier.clientsOf(fitted), true) ?? 0);
  const web = tier.raise(fitted, room, database?.perConnection ?? 0, notes) ?? fitted;
  return { web, cut, memory: { webBudget, before, overcommitted, webFits: fitted.bytes <= webBudget.bytes * tolerance } };
}

/** What the database may use: what the web tier leaves beside it, else mysqlMaxShare of RAM (where MySQLTuner warns). */
function databaseSpace(input: PlanInput, host: HostMemory, hasWeb: boolean, web: WebTier): { bytes: number; reason: string } {
  const { ram, available } = host;
  if (hasWeb)
    return {
      bytes: available - web.bytes,
      reason: `${formatBytes(available)} RAM less the OS reserve, less the web tier's ${formatBytes(web.bytes)}`,
    };
  const share = input.budget.mysqlMaxShare;
  return { bytes: Math.floor(ram.value * share), reason: `${formatPercent(share)} of ${formatBytes(ram.value)} RAM, ${ram.source}` };
}

/** The web tier's runners, what they ask before memory has its say, and how they scale. */
class WebTierModel {
  readonly apache: readonly ApacheRunner[];
  readonly pools: readonly Runner[];
  readonly targets: Map<PoolUsage, PoolTarget>;
  /** The pools no linted Apache hands requests to, when one is linted. */
  readonly unfed: ReadonlySet<PoolUsage>;
  readonly wanted: WebTier;
  readonly hasWeb: boolean;

  constructor(
    private readonly input: PlanInput,
    frozen: ReadonlySet<string>,
    notes: string[],
  ) {
    this.apache = input.apache.map((usage, index) => {
      const feeds = input.pools.filter((pool) => handsOffTo(usage.config, pool));
      return {
        usage,
        role: usage.php ? 'php' : feeds.length > 0 ? 'front' : 'static',
        feeds,
        units: usage.processes,
        unitBytes: plannedChildSize(usage.perChild.value),
        frozen: frozen.has(`apache:${index}/memory`),
        frontFrozen: frozen.has(`apache:${index}/front`),
      };
    });
    this.unfed = new Set(
      input.apache.length === 0 ? [] : input.pools.filter((pool) => !this.apache.some((runner) => runner.feeds.includes(pool))),
    );
    for (const pool of this.unfed) notes.push(unfedNote(pool));
    this.targets = poolTargets(input, this.apache, this.unfed, frozen, notes);
    this.pools = input.pools.map((pool, index) => ({
      units: this.targets.get(pool)?.children ?? pool.maxChildren ?? 0,
      unitBytes: pool.perChild.value,
      frozen: frozen.has(`pool:${index}/memory`),
    }));
    this.wanted = this.at(1, false);
    this.hasWeb = input.apache.length + input.pools.length > 0;
  }

  /** Bytes at the limits as set. */
  get currentBytes(): number {
    return this.input.apache.reduce((sum, usage) => sum + usage.peak, 0) + this.input.pools.reduce((sum, pool) => sum + pool.peak, 0);
  }

  /** The tier at a scale: every runner cut by it (one unit at least), fronts following the children they feed when asked. */
  at(scale: number, frontsFollow: boolean): WebTier {
    const pools = this.pools.map((runner) => scaled(runner, scale));
    const apache = this.apache.map((runner) => {
      if (runner.role !== 'front') return scaled(runner, scale);
      if (!frontsFollow || runner.frontFrozen) return runner.units;
      const children = runner.feeds.reduce((sum, pool) => sum + (pools[this.input.pools.indexOf(pool)] ?? 0), 0);
      return frontProcesses(runner.usage, children, this.input.budget.threadsPerPhpChild);
    });
    return { apache, pools, bytes: this.bytesOf(apache, pools) };
  }

  private bytesOf(apache: readonly number[], pools: readonly number[]): number {
    const sum = (units: readonly number[], runners: readonly Runner[]): number =>
      units.reduce((total, count, index) => total + count * (runners[index]?.unitBytes ?? 0), 0);
    return sum(apache, this.apache) + sum(pools, this.pools);
  }

  /** The largest scale at which the tier fits the budget (every runner at one unit at least). */
  fit(budget: number): WebTier {
    const whole = this.at(1, true);
    if (whole.bytes <= budget) return whole;
    let low = 0;
    let high = 1;
    for (let step = 0; step < 60; step++) {
      const middle = (low + high) / 2;
      if (this.at(middle, true).bytes <= budget) low = middle;
      else high = middle;
    }
    return this.at(low, true);
  }

  /** Pools raised toward their targets as far as `room` (what the database and the OS leave the web tier) holds, in one share. */
  raise(web: WebTier, room: number, perConnection: number, notes: string[]): WebTier | undefined {
    const raising = this.input.pools.flatMap((pool, index) => {
      const target = this.targets.get(pool);
      return target?.raiseTo === undefined ? [] : [{ pool, index, target, current: web.pools[index] ?? 0, to: target.raiseTo }];
    });
    if (raising.length === 0) return undefined;
    // Each child more may hold a database connection more.
    const wanted = raising.reduce((sum, entry) => sum + (entry.to - entry.current) * (entry.pool.perChild.value + perConnection), 0);
    const share = wanted <= 0 ? 0 : Math.min(1, Math.max(0, room - web.bytes) / wanted);
    const pools = [...web.pools];
    for (const { pool, index, target, current, to } of raising) {
      const children = current + Math.floor((to - current) * share + 1e-9);
      if (children < current * this.input.budget.raiseThreshold) {
        this.targets.set(pool, { ...target, reason: undefined, raiseTo: undefined });
        if (share < 1)
          notes.push(
            `[${pool.pool.name}] pm.max_children stays ${current}: ${target.why} would take ${to}, but memory holds only ${children}`,
          );
        continue;
      }
      pools[index] = children;
      this.targets.set(pool, { ...target, why: `${target.why}${children < to ? `, as far as memory holds (${children} of ${to})` : ''}` });
    }
    return { apache: web.apache, pools, bytes: this.bytesOf(web.apache, pools) };
  }

  /** The clients that may each hold a database connection: mod_php workers and the children of fed pools; undefined without PHP. */
  clientsOf(web: WebTier): number | undefined {
    const php = this.apache.filter((runner) => runner.role === 'php');
    const fed = this.input.pools.filter((pool) => !this.unfed.has(pool));
    if (php.length === 0 && fed.length === 0) return undefined;
    const modPhp = this.apache.reduce(
      (sum, runner, index) => sum + (runner.role === 'php' ? (web.apache[index] ?? 0) * runner.usage.threadsPerChild : 0),
      0,
    );
    return modPhp + fed.reduce((sum, pool) => sum + (web.pools[this.input.pools.indexOf(pool)] ?? 0), 0);
  }

  apachePlans(web: WebTier, webBudget: { readonly bytes: number } | undefined): ApachePlan[] {
    return this.apache.map((runner, index): ApachePlan => {
      const { usage, role, feeds, unitBytes } = runner;
      const processes = web.apache[index] ?? usage.processes;
      const limit = Math.min(usage.maxRequestWorkers, processes * usage.threadsPerChild);
      const reason: PlanReason | undefined = limit === usage.maxRequestWorkers ? undefined : role === 'front' ? 'front' : 'memory';
      const fed = feeds.reduce((sum, pool) => sum + (web.pools[this.input.pools.indexOf(pool)] ?? 0), 0);
      const why =
        reason === 'front'
          ? `${this.input.budget.threadsPerPhpChild} threads for each of the ${fed} PHP children it feeds, in whole processes of ${usage.threadsPerChild}`
          : `${processes} processes of ${formatBytes(unitBytes)} fit the web tier's ${formatBytes(webBudget?.bytes ?? 0)}`;
      const planned = Math.ceil(limit / usage.threadsPerChild);
      return {
        usage,
        role,
        feeds,
        maxRequestWorkers: { current: usage.maxRequestWorkers, planned: limit, reason, why },
        processes: planned,
        peak: planned * unitBytes,
      };
    });
  }

  poolPlans(web: WebTier, cut: boolean, webBudget: { readonly bytes: number } | undefined): PoolPlan[] {
    return this.input.pools.map((usage, index): PoolPlan => {
      const children = web.pools[index] ?? usage.maxChildren ?? 0;
      const target = this.targets.get(usage);
      const current = usage.maxChildren ?? 0;
      const memory = cut && children < (target?.children ?? current);
      const reason: PlanReason | undefined = children === current ? undefined : memory ? 'memory' : target?.reason;
      const why = memory ? `the pools cut by one share to fit the web tier's ${formatBytes(webBudget?.bytes ?? 0)}` : (target?.why ?? '');
      return {
        usage,
        feeders: this.apache.filter((runner) => runner.feeds.includes(usage)).map((runner) => runner.usage),
        unfed: this.unfed.has(usage),
        maxChildren: { current, planned: children, reason, why },
        peak: children * usage.perChild.value,
      };
    });
  }
}

/**
 * The web tier's budget: all of what the OS leaves without a database,
 * apacheShare of RAM beside one nobody linted, and beside a linted one
 * whatever it does not need (as it is: a raise it asks for takes only memory
 * nobody else needs), at least apacheShare.
 */
function webBudgetOf(input: PlanInput, host: HostMemory, databaseNeed: number | undefined): { bytes: number; reason: string } {
  const { ram, osReserve, available } = host;
  const share = Math.floor(ram.value * input.budget.apacheShare);
  const percent = formatPercent(input.budget.apacheShare);
  if (!input.dbLocal.value)
    return { bytes: available, reason: `${formatBytes(ram.value)} RAM less ${reserveText(input.budget, osReserve)}` };
  if (databaseNeed === undefined)
    return { bytes: share, reason: `${percent} of ${formatBytes(ram.value)} RAM, since ${input.dbLocal.reason}` };
  if (available - databaseNeed > share)
    return {
      bytes: available - databaseNeed,
      reason: `${formatBytes(ram.value)} RAM less ${reserveText(input.budget, osReserve)} and the ${formatBytes(databaseNeed)} MySQL needs`,
    };
  return { bytes: share, reason: `${percent} of ${formatBytes(ram.value)} RAM, the web tier's share beside MySQL` };
}

/** `an OS reserve of 205 MiB`, with what other services take when the budget sets it aside. */
function reserveText(budget: Budget, reserve: number): string {
  const others = budget.otherServices;
  if (others <= 0) return `an OS reserve of ${formatBytes(reserve)}`;
  return `an OS reserve of ${formatBytes(reserve - others)} and ${formatBytes(others)} for other services`;
}

function scaled(runner: Runner, scale: number): number {
  if (runner.frozen || scale >= 1) return runner.units;
  // The epsilon keeps a scale found by bisection just below k/units at k.
  return Math.max(1, Math.floor(runner.units * scale + 1e-9));
}

/** Processes of a front: threadsPerPhpChild threads a child fed, at least one process, never above the limit as set. */
function frontProcesses(usage: ApacheUsage, children: number, threadsPerChild: number): number {
  const threads = Math.max(usage.threadsPerChild, children * threadsPerChild);
  return Math.min(usage.processes, Math.ceil(threads / usage.threadsPerChild));
}

/** A pool's children before memory has its say: capped at the workers that feed it and at the CPUs, raised toward them where asked. */
interface PoolTarget {
  readonly children: number;
  readonly reason: PlanReason | undefined;
  readonly why: string;
  /** The children the CPUs and workers would take, when above what is set: memory decides how far. */
  readonly raiseTo: number | undefined;
}

function poolTargets(
  input: PlanInput,
  apache: readonly { readonly usage: ApacheUsage; readonly feeds: readonly PoolUsage[] }[],
  unfed: ReadonlySet<PoolUsage>,
  frozen: ReadonlySet<string>,
  notes: string[],
): Map<PoolUsage, PoolTarget> {
  const { host } = input;
  const trusted = mayRaise(host.phpPerChild?.value);
  if (!trusted && host.phpPerChild !== undefined)
    notes.push(
      `every php-fpm child measured was idle (${host.phpPerChild.source}): an idle child is a fraction of what it grows to, so no pool is raised from it`,
    );
  const targets = new Map<PoolUsage, PoolTarget>();
  input.pools.forEach((pool, index) => {
    if ((pool.maxChildren ?? 0) === 0 || pool.maxChildrenUse === undefined) return;
    const bounds = poolBounds(input, apache, pool);
    const allowed = (reason: PlanReason): boolean => !frozen.has(`pool:${index}/${reason}`);
    const raises = trusted && !unfed.has(pool) && allowed('room');
    const target = capOf(input, pool, bounds, allowed) ?? (raises ? raiseOf(input, pool, bounds) : undefined);
    if (target !== undefined) targets.set(pool, target);
  });
  return targets;
}

/** Why an installed pool beside a linted Apache takes no part in the database's clients. */
function unfedNote(pool: PoolUsage): string {
  const listen = pool.listen === undefined ? 'no listen' : `its listen ${pool.listen}`;
  return (
    `php-fpm [${pool.pool.name}] (${lineOf(pool.pool.header)}): no Apache linted hands requests to ${listen}, ` +
    `so its children are not counted as database clients and the pool is not raised; its memory is still counted`
  );
}

/** What bounds a pool's children besides memory: its share of the Apache workers that feed it, and of the CPUs. */
interface PoolBounds {
  readonly workers: number;
  readonly ofWorkers: number | undefined;
  readonly ofCpus: number | undefined;
  /** `2 CPUs x 4 children per CPU = 8`. */
  readonly cpuText: string;
}

function poolBounds(
  input: PlanInput,
  apache: readonly { readonly usage: ApacheUsage; readonly feeds: readonly PoolUsage[] }[],
  pool: PoolUsage,
): PoolBounds {
  const { budget, host } = input;
  const current = pool.maxChildren ?? 0;
  const feeders = apache.filter((runner) => runner.feeds.includes(pool));
  const workers = feeders.reduce((sum, runner) => sum + runner.usage.maxRequestWorkers, 0);
  // Pools on one socket share the workers that feed it, each in proportion to its children.
  const together = input.pools.filter((other) => samePoolSocket(other, pool)).reduce((sum, other) => sum + (other.maxChildren ?? 0), 0);
  const cpus = host.cpus?.value;
  const cpuChildren = cpus === undefined ? undefined : Math.max(1, Math.floor(cpus * budget.phpChildrenPerCpu));
  return {
    workers,
    ofWorkers: feeders.length === 0 || together === 0 ? undefined : Math.max(1, Math.floor((workers * current) / together)),
    ofCpus: cpuChildren === undefined ? undefined : cpuShare(cpuChildren, input.pools, pool),
    cpuText: cpus === undefined ? '' : `${cpus} CPUs x ${budget.phpChildrenPerCpu} children per CPU = ${cpuChildren ?? 0}`,
  };
}

/**
 * A pool's fair share of the children the CPUs run at once: the pools that
 * ask for less than an even share keep what they ask, and the others split
 * the rest evenly (max-min fairness); the share is what the pool may take,
 * so one below it may be raised toward it. Shared in proportion to the children as set,
 * a big pool beside a small one would take the small one's CPUs too: LEMPer's
 * 30-child pool would have cut Debian's 5-child www pool to 1 on 2 CPUs, where
 * one slow request then holds the whole site.
 */
function cpuShare(cpuChildren: number, pools: readonly PoolUsage[], pool: PoolUsage): number {
  const asking = [...pools].sort((a, b) => (a.maxChildren ?? 0) - (b.maxChildren ?? 0));
  let left = cpuChildren;
  for (const [index, other] of asking.entries()) {
    const even = Math.floor(left / (asking.length - index));
    if (other === pool) return Math.max(1, even);
    left -= Math.min(other.maxChildren ?? 0, even);
  }
  return 1;
}

/** The tighter of the caps that need no memory (the workers, the CPUs), each only where its rule runs. */
function capOf(input: PlanInput, pool: PoolUsage, bounds: PoolBounds, allowed: (reason: PlanReason) => boolean): PoolTarget | undefined {
  const current = pool.maxChildren ?? 0;
  const { ofWorkers, ofCpus } = bounds;
  const byWorkers = ofWorkers !== undefined && current > ofWorkers && allowed('workers') ? ofWorkers : undefined;
  const byCpus = ofCpus !== undefined && current > ofCpus * input.budget.raiseThreshold && allowed('cpu') ? ofCpus : undefined;
  if (byCpus !== undefined && (byWorkers === undefined || byCpus < byWorkers)) {
    const shared = input.pools.length > 1 ? `, shared evenly by the ${input.pools.length} pools (one that asks less keeps its own)` : '';
    return {
      children: byCpus,
      reason: 'cpu',
      why: `${bounds.cpuText}${shared}; a CPU-bound page gains nothing from more`,
      raiseTo: undefined,
    };
  }
  if (byWorkers === undefined) return undefined;
  const why = `the ${bounds.workers} Apache workers that hand requests to ${pool.listen ?? 'it'} keep no more children busy`;
  return { children: byWorkers, reason: 'workers', why, raiseTo: undefined };
}

/**
 * A raise for a pool with fewer children than its share of the CPUs (it
 * cannot keep them busy): toward its share of CPUs x phpChildrenPerCpu, at
 * most the workers that feed it, which memory then bounds. A pool with a
 * child per CPU or more is left as it is, and without the CPU count nothing
 * is raised: in the proof's event + php-fpm host on 2 vCPUs, Debian's 5
 * children served as many requests as 8, and more than 73.
 */
function raiseOf(input: PlanInput, pool: PoolUsage, bounds: PoolBounds): PoolTarget | undefined {
  const current = pool.maxChildren ?? 0;
  const { ofWorkers, ofCpus, workers } = bounds;
  if (ofCpus === undefined || current * input.budget.phpChildrenPerCpu >= ofCpus) return undefined;
  const bounded = Math.min(ofCpus, ofWorkers ?? ofCpus);
  if (bounded < current * input.budget.raiseThreshold) return undefined;
  const why = `${bounds.cpuText}${ofWorkers === undefined ? '' : `, at most the ${workers} Apache workers that feed it`}`;
  return { children: current, reason: 'room', why, raiseTo: bounded };
}

/** The database's needs: its caches as the data asks, its per-connection buffers as MY2003 leaves them. */
class DatabaseNeeds {
  readonly perConnection: number;
  readonly fixedGlobals: number;
  readonly currentPeak: number;
  private readonly config: MycnfConfig;
  private readonly usage: MysqlUsage;
  /** The buffer pool the data or a dedicated host asks, with the reason; undefined to keep it. */
  private readonly poolWant: { bytes: number; reason: 'data' | 'dedicated'; why: string } | undefined;

  constructor(
    private readonly input: PlanInput,
    private readonly frozen: ReadonlySet<string>,
  ) {
    const { config, usage } = input.mysql as { config: MycnfConfig; usage: MysqlUsage };
    this.config = config;
    this.usage = usage;
    const ceilings = input.ruleOptions('MY2003');
    const planned = (name: string, bytes: number): number => {
      const option = BUFFER_THRESHOLDS[name];
      const threshold = option === undefined || ceilings === undefined ? undefined : ceilings[option];
      const fallback = config.defaultOf(name);
      return typeof threshold === 'number' && typeof fallback === 'number' && bytes > threshold && bytes > fallback ? fallback : bytes;
    };
    this.perConnection = usage.perConnection.reduce((sum, term) => sum + planned(term.name, term.bytes), 0);
    const tmp = config.size('tmp_table_size');
    const heap = config.size('max_heap_table_size');
    // Counted only where the usage counts the smaller of the two (not under MySQL 8.0's TempTable engine).
    const memoryTables = usage.globals.some((term) => term.name.startsWith('min('));
    const temporary =
      !memoryTables || tmp === undefined || heap === undefined
        ? 0
        : Math.min(planned('tmp_table_size', tmp.bytes), planned('max_heap_table_size', heap.bytes));
    this.fixedGlobals =
      usage.globals
        .filter((term) => !SHRINKABLE.some((cache) => cache.name === term.name) && !term.name.startsWith('min('))
        .reduce((sum, term) => sum + term.bytes, 0) + temporary;
    this.currentPeak = usage.peak;
    const want = this.wantedPool();
    this.poolWant = want === undefined || frozen.has(`cache:innodb_buffer_pool_size/${want.reason}`) ? undefined : want;
  }

  private cache(name: string): { bytes: number; from: string } | undefined {
    return this.usage.globals.find((term) => term.name === name);
  }

  private wantedPool(): { bytes: number; reason: 'data' | 'dedicated'; why: string } | undefined {
    const { host, budget, ram } = this.input;
    const pool = this.cache('innodb_buffer_pool_size');
    // A pool is not raised without knowing the memory it takes.
    if (pool === undefined || ram === undefined) return undefined;
    const innodb = host.mysqlLive?.value.engines?.find((engine) => engine.engine.toLowerCase() === 'innodb');
    if (innodb !== undefined) {
      const data = innodb.dataBytes + innodb.indexBytes;
      const fitted = Math.max(POOL_CHUNK, Math.ceil((data * budget.poolDataHeadroom) / POOL_CHUNK) * POOL_CHUNK);
      const why = `${formatBytes(data)} of InnoDB data and indexes in ${innodb.tables} tables x ${budget.poolDataHeadroom} for growth`;
      if (pool.bytes < data) return { bytes: fitted, reason: 'data', why };
      const setHere = this.config.size('innodb_buffer_pool_size')?.from !== 'default';
      if (setHere && pool.bytes > Math.max(2 * data, data + GIB) && fitted < pool.bytes) return { bytes: fitted, reason: 'data', why };
      return undefined;
    }
    const dedicated = this.input.apache.length + this.input.pools.length === 0 && host.apacheRunning?.value !== true;
    if (!dedicated || ram.value < GIB) return undefined;
    // innodb_dedicated_server (MySQL 8.0): 50 % of RAM from 1 to 4 GiB, 75 % above 4 GiB.
    const ruleShare = ram.value > 4 * GIB ? 0.75 : 0.5;
    const bytes = Math.floor((ram.value * ruleShare) / POOL_CHUNK) * POOL_CHUNK;
    if (bytes < pool.bytes * budget.raiseThreshold) return undefined;
    return {
      bytes,
      reason: 'dedicated',
      why: `${formatPercent(ruleShare)} of ${formatBytes(ram.value)} RAM on a host that runs only the database, innodb_dedicated_server's sizing (${ruleShare === 0.75 ? 'above 4 GiB' : '1 to 4 GiB'})`,
    };
  }

  /** Bytes at the connections the clients need, with the caches as set or, with `raises`, as wanted where that is more. */
  need(clients: number | undefined, raises: boolean): number {
    const connections = this.connections(clients).planned;
    const caches = SHRINKABLE.reduce((sum, cache) => {
      const term = this.cache(cache.name);
      if (term === undefined) return sum;
      const want = cache.name === 'innodb_buffer_pool_size' ? this.poolWant?.bytes : undefined;
      return sum + (want === undefined || (!raises && want > term.bytes) ? term.bytes : want);
    }, 0);
    return this.fixedGlobals + caches + connections * this.perConnection;
  }

  /** max_connections: kept within [clients + admin, factor x clients + slack] (MY2004's band), never below the live peak. */
  connections(clients: number | undefined): Decision {
    const current = this.usage.maxConnections.value;
    const keep: Decision = { current, planned: current, reason: undefined, why: '' };
    if (clients === undefined) return keep;
    const headroom = Math.max(this.input.budget.adminConnections, Math.ceil(clients * 0.1));
    const need = clients + headroom;
    const live = this.input.host.mysqlLive;
    const peak = live === undefined ? undefined : counter(live.value, 'Max_used_connections');
    const why = `${clients} PHP clients (one connection each) + ${headroom} for cron, CLI and admin`;
    if (current < clients) return this.frozen.has('max_connections/raise') ? keep : { current, planned: need, reason: 'clients', why };
    const band = this.input.ruleOptions('MY2004');
    const factor = typeof band?.factor === 'number' ? band.factor : undefined;
    const slack = typeof band?.slack === 'number' ? band.slack : 0;
    if (factor === undefined || current <= factor * clients + slack) return keep;
    const planned = Math.max(need, peak ?? 0);
    if (planned >= current) return keep;
    return {
      current,
      planned,
      reason: 'clients',
      why: peak !== undefined && peak > need ? `${why}, raised to the ${peak} ever open at once (Max_used_connections)` : why,
    };
  }

  plan(clients: number | undefined, space: { bytes: number; reason: string } | undefined): MysqlPlan {
    const maxConnections = this.connections(clients);
    const fixed = this.fixedGlobals + maxConnections.planned * this.perConnection;
    const caches = SHRINKABLE.flatMap((cache): WorkingCache[] => {
      const term = this.cache(cache.name);
      if (term === undefined) return [];
      const want = cache.name === 'innodb_buffer_pool_size' ? this.poolWant : undefined;
      const planned = want?.bytes ?? term.bytes;
      return [{ name: cache.name, from: term.from, current: term.bytes, planned, reason: want?.reason, why: want?.why ?? '' }];
    });
    const total = (): number => fixed + caches.reduce((sum, cache) => sum + cache.planned, 0);
    let fits = true;
    if (space !== undefined) {
      fitRaise(caches, total() - space.bytes, space.bytes);
      fits = this.shrink(caches, total() - space.bytes, space.bytes);
    }
    return {
      config: this.config,
      usage: this.usage,
      perConnection: this.perConnection,
      fixedGlobals: this.fixedGlobals,
      caches: caches.map(asCachePlan),
      maxConnections,
      space,
      peak: total(),
      fits,
    };
  }

  /**
   * The caches cut by `excess`, largest saving first and never below their
   * floors; when the floors leave too much, none is cut (the connections are
   * what must give) and false.
   */
  private shrink(caches: WorkingCache[], excess: number, space: number): boolean {
    let left = excess;
    const mariadb = this.config.target.product === 'mariadb';
    for (const rule of SHRINKABLE) {
      const cache = caches.find((candidate) => candidate.name === rule.name);
      if (left <= 0 || cache === undefined || cache.planned <= rule.floor || this.frozen.has(`cache:${rule.name}/memory`)) continue;
      // A line is added only for an option the target product has: MySQL refuses Aria's.
      if (rule.name === 'aria_pagecache_buffer_size' && !mariadb && this.config.effective(rule.name) === undefined) continue;
      // A pool of a GiB or more keeps to whole chunks, as the server rounds it.
      const step = rule.name === 'innodb_buffer_pool_size' && cache.planned - left >= GIB ? POOL_CHUNK : rule.step;
      const to = Math.max(rule.floor, Math.floor((cache.planned - left) / step) * step);
      left -= cache.planned - to;
      Object.assign(cache, { planned: to, reason: 'memory', why: `so MySQL fits the ${formatBytes(space)} it may use` });
    }
    if (left <= 0) return true;
    for (const cache of caches) if (cache.reason === 'memory') Object.assign(cache, { planned: cache.current, reason: undefined });
    return false;
  }
}

/** A cache as the plan works on it. */
interface WorkingCache {
  readonly name: string;
  readonly from: string;
  readonly current: number;
  planned: number;
  reason: PlanReason | undefined;
  why: string;
}

/** A raise of the buffer pool gives way first, to what the space holds in whole chunks, and is dropped when that is no raise. */
function fitRaise(caches: WorkingCache[], excess: number, space: number): void {
  const pool = caches.find((cache) => cache.name === 'innodb_buffer_pool_size');
  if (pool === undefined || pool.planned <= pool.current || excess <= 0) return;
  const fitting = Math.floor((pool.planned - excess) / POOL_CHUNK) * POOL_CHUNK;
  if (fitting > pool.current) {
    pool.why = `${pool.why}, as far as the ${formatBytes(space)} it may use holds`;
    pool.planned = fitting;
  } else {
    pool.planned = pool.current;
    pool.reason = undefined;
  }
}

function asCachePlan(cache: WorkingCache): CachePlan {
  return {
    name: cache.name,
    from: cache.from,
    decision: {
      current: cache.current,
      planned: cache.planned,
      reason: cache.planned === cache.current ? undefined : cache.reason,
      why: cache.why,
    },
  };
}

/** The processes of an Apache that the web tier's budget holds beside the rest of the web tier as planned. */
export function apacheRoom(plan: HostPlan, entry: ApachePlan): number | undefined {
  const budget = plan.memory?.webBudget;
  if (budget === undefined) return undefined;
  const others =
    plan.apache.filter((other) => other !== entry).reduce((sum, other) => sum + other.peak, 0) +
    plan.pools.reduce((sum, pool) => sum + pool.peak, 0);
  return Math.max(0, Math.floor((budget.bytes - others) / plannedChildSize(entry.usage.perChild.value)));
}

/** One knob the plan moves, as the JSON report lists it. */
export interface PlannedChange {
  /** The main file of the config that holds the knob. */
  readonly file: string;
  /** `MaxRequestWorkers`, `[www] pm.max_children`, `max_connections`, `innodb_buffer_pool_size`. */
  readonly setting: string;
  readonly current: number;
  readonly planned: number;
  readonly reason: PlanReason;
  readonly why: string;
}

/** Every knob the plan moves, web tier first, then the database. */
export function plannedChanges(plan: HostPlan): PlannedChange[] {
  const changes: PlannedChange[] = [];
  const add = (file: string, setting: string, decision: Decision): void => {
    if (decision.reason !== undefined && decision.planned !== decision.current)
      changes.push({ file, setting, current: decision.current, planned: decision.planned, reason: decision.reason, why: decision.why });
  };
  for (const entry of plan.apache) add(entry.usage.config.root.displayPath, entry.usage.limitName, entry.maxRequestWorkers);
  for (const entry of plan.pools) add(entry.usage.config.root.displayPath, `[${entry.usage.pool.name}] pm.max_children`, entry.maxChildren);
  const mysql = plan.mysql;
  if (mysql !== undefined) {
    add(mysql.config.root.displayPath, 'max_connections', mysql.maxConnections);
    for (const cache of mysql.caches) add(mysql.config.root.displayPath, cache.name, cache.decision);
  }
  return changes;
}
