import type { Fact, HostFacts } from '../host/facts.js';
import type { ApacheConfig } from '../languages/apache/model.js';
import type { PhpFpmConfig, PhpFpmEntryUse, PhpFpmPool } from '../languages/phpfpm/model.js';
import { phpSize } from '../languages/phpfpm/values.js';
import { formatBytes } from '../util/units.js';

const MIB = 1024 * 1024;

/**
 * The size of a php-fpm child nobody measured or gave: 48 MiB, the PSS a
 * child of Debian's php8.2-fpm reached serving a CMS page (46.2 MiB measured
 * in ../shared/reference/live-and-php-fpm.md), held below the pool's own
 * memory_limit, which no PHP request may pass.
 */
const ESTIMATED_CHILD = 48 * MIB;

/** One pool at its peak: every child it may start, each as large as a child gets. */
export interface PoolSizing {
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

export function poolSizings(configs: readonly PhpFpmConfig[], host: HostFacts): PoolSizing[] {
  return configs.flatMap((config) => config.pools.map((pool) => poolSizing(config, pool, host)));
}

function poolSizing(config: PhpFpmConfig, pool: PhpFpmPool, host: HostFacts): PoolSizing {
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
  if (given !== undefined) return { value: given.value.median, source: given.source };
  if (memoryLimit !== undefined && memoryLimit < ESTIMATED_CHILD) {
    return { value: memoryLimit, source: `estimate (the pool's memory_limit ${formatBytes(memoryLimit)}, below the usual 48 MiB)` };
  }
  return {
    value: ESTIMATED_CHILD,
    source: 'estimate (48 MiB, a php-fpm child serving a CMS; --php-per-child or a probe of running children replaces it)',
  };
}

/**
 * Where an Apache config hands requests to FastCGI: the socket path of
 * `proxy:unix:/run/php/php8.2-fpm.sock|fcgi://localhost`, or `host:port` of
 * `fcgi://127.0.0.1:9000/`, as php-fpm's `listen` writes them.
 */
function handOffTargets(config: ApacheConfig): Set<string> {
  const targets = new Set<string>();
  for (const use of [...config.named('sethandler'), ...config.named('proxypass'), ...config.named('proxypassmatch')]) {
    for (const arg of use.args) {
      const socket = /^proxy:unix:([^|]+)\|fcgi:/i.exec(arg)?.[1];
      if (socket !== undefined) targets.add(socket);
      const address = /^fcgi:\/\/([^/]+)/i.exec(arg)?.[1];
      if (socket === undefined && address !== undefined) targets.add(address.replace(/^localhost:/, '127.0.0.1:'));
    }
  }
  return targets;
}

/** A pool's `listen` as Apache names it: a path, `127.0.0.1:9000` for `9000` or `localhost:9000`. */
function listenKey(listen: string): string {
  if (listen.startsWith('/')) return listen;
  if (/^\d+$/.test(listen)) return `127.0.0.1:${listen}`;
  return listen.replace(/^localhost:/, '127.0.0.1:');
}

/** Whether an Apache config passes requests to the pool's socket or address (the pool's `listen`). */
export function handsOffTo(config: ApacheConfig, pool: PoolSizing): boolean {
  return pool.listen !== undefined && handOffTargets(config).has(listenKey(pool.listen));
}

/** Whether two pools listen on the same socket or address, so that the same workers feed both. */
export function samePoolSocket(a: PoolSizing, b: PoolSizing): boolean {
  return a.listen !== undefined && b.listen !== undefined && listenKey(a.listen) === listenKey(b.listen);
}
