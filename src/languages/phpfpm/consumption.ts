import { plannedChildSize, type Fact, type HostFacts } from '../../core/host-facts.js';
import type { MemoryConsumer } from '../../core/language.js';
import { lineOf } from '../../core/located.js';
import { formatBytes, MIB } from '../../util/units.js';
import type { PhpFpmConfig, PhpFpmEntryUse, PhpFpmPool } from './model.js';
import { phpSize } from './values.js';

/**
 * The size of a php-fpm child nobody measured or gave: 48 MiB, the PSS a
 * child of Debian's php8.2-fpm reached serving a CMS page (46.2 MiB measured
 * on Debian 12 with `pm.max_children = 400` under load), held below the pool's own
 * memory_limit, which no PHP request may pass.
 */
const ESTIMATED_CHILD = 48 * MIB;

/** One pool at its peak: every child it may start, each as large as a child gets. */
export interface PoolUsage {
  readonly config: PhpFpmConfig;
  readonly pool: PhpFpmPool;
  /** pm.max_children, or undefined when the pool does not set it (php-fpm then refuses to start: PF1001). */
  readonly maxChildren: number | undefined;
  readonly maxChildrenUse: PhpFpmEntryUse | undefined;
  /** Bytes of one child, with where the figure comes from. */
  readonly perChild: Fact<number>;
  /** PHP's memory_limit for the pool's requests (php_admin_value or php_value), bytes; undefined when unlimited or unknown. */
  readonly memoryLimit: number | undefined;
  readonly peak: number;
  /** The socket or address Apache hands requests to: `/run/php/php8.2-fpm.sock`, `127.0.0.1:9000`. */
  readonly listen: string | undefined;
}

export function poolUsages(configs: readonly PhpFpmConfig[], host: HostFacts): PoolUsage[] {
  return configs.flatMap((config) => config.pools.map((pool) => poolUsage(config, pool, host)));
}

function poolUsage(config: PhpFpmConfig, pool: PhpFpmPool, host: HostFacts): PoolUsage {
  const maxChildrenUse = pool.effective('pm.max_children');
  const parsed = maxChildrenUse === undefined ? undefined : Number(maxChildrenUse.value);
  const maxChildren = parsed !== undefined && Number.isSafeInteger(parsed) && parsed >= 0 ? parsed : undefined;
  const memoryLimit = memoryLimitOf(pool);
  const perChild = perChildOf(host, memoryLimit);
  return {
    config,
    pool,
    maxChildren,
    maxChildrenUse,
    perChild,
    memoryLimit,
    peak: (maxChildren ?? 0) * perChild.value,
    listen: pool.effective('listen')?.value,
  };
}

/** `php_admin_value[memory_limit]` wins over `php_value[memory_limit]`, as php-fpm makes the admin value unchangeable. */
function memoryLimitOf(pool: PhpFpmPool): number | undefined {
  const use = pool.effective('php_admin_value[memory_limit]') ?? pool.effective('php_value[memory_limit]');
  if (use === undefined) return undefined;
  const bytes = phpSize(use.value);
  return bytes === undefined || bytes < 0 ? undefined : bytes;
}

function perChildOf(host: HostFacts, memoryLimit: number | undefined): Fact<number> {
  const given = host.phpPerChild;
  if (given !== undefined) return { value: plannedChildSize(given.value), source: given.source };
  if (memoryLimit !== undefined && memoryLimit < ESTIMATED_CHILD) {
    return { value: memoryLimit, source: `estimate (the pool's memory_limit ${formatBytes(memoryLimit)}, below the usual 48 MiB)` };
  }
  return {
    value: ESTIMATED_CHILD,
    source: 'estimate (48 MiB, a php-fpm child serving a CMS; --php-per-child or a probe of running children replaces it)',
  };
}

/** Each pool at its peak, as the host budget counts it. */
export function phpFpmConsumers(config: PhpFpmConfig, host: HostFacts): MemoryConsumer[] {
  return config.pools.map((pool) => {
    const usage = poolUsage(config, pool, host);
    const children = usage.maxChildren === undefined ? 'pm.max_children not set' : `pm.max_children ${usage.maxChildren}`;
    const use = usage.maxChildrenUse;
    return {
      language: 'phpfpm',
      config,
      role: 'php',
      label: `php-fpm ${pool.name}`,
      bytes: usage.peak,
      detail: `${children} x ${formatBytes(usage.perChild.value)} per child${config.pools.length === 1 ? '' : ` (${config.root.displayPath})`}`,
      limits: [
        {
          name: 'pm.max_children',
          value: usage.maxChildren ?? 0,
          setAt: use,
          from: use === undefined ? 'not set' : `set in ${lineOf(use)}`,
        },
      ],
    };
  });
}
