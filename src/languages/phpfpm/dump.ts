import type { PhpFpmConfig, PhpFpmPool } from './model.js';
import { POOL_DEFAULTS } from './entries.js';

type DumpedValue = { readonly value: string; readonly at: string } | { readonly value: string; readonly default: true };

/**
 * The pools as php-fpm reads them, every entry with file:line, then the
 * defaults of what a pool leaves unset, as `php-fpm -tt` prints them, for
 * `tune-lint dump`.
 */
export function dumpPhpFpm(config: PhpFpmConfig): object {
  return {
    language: 'phpfpm',
    files: config.files.map((entry) => entry.source.displayPath),
    global: settings(config.global),
    pools: Object.fromEntries(config.pools.map((pool) => [pool.name, { ...settings(pool), ...defaults(pool) }])),
  };
}

function settings(pool: PhpFpmPool): Record<string, DumpedValue> {
  const out: Record<string, DumpedValue> = {};
  for (const use of pool.uses) out[use.key] = { value: use.value, at: `${use.file.displayPath}:${use.line.number}` };
  return out;
}

function defaults(pool: PhpFpmPool): Record<string, DumpedValue> {
  const out: Record<string, DumpedValue> = {};
  for (const [key, value] of Object.entries({ ...spareServers(pool), ...POOL_DEFAULTS })) {
    if (value !== undefined && pool.effective(key) === undefined) out[key] = { value, default: true };
  }
  return out;
}

/**
 * The spare-server entries: 0 in a static or ondemand pool, which does not
 * use them; a dynamic pool must set the spare bounds, and php-fpm works out
 * pm.start_servers from them when it is not set.
 */
function spareServers(pool: PhpFpmPool): Record<string, string | undefined> {
  if (pool.effective('pm')?.value.toLowerCase() !== 'dynamic')
    return { 'pm.start_servers': '0', 'pm.min_spare_servers': '0', 'pm.max_spare_servers': '0' };
  const start = startServers(pool);
  return { 'pm.start_servers': start === undefined ? undefined : String(start) };
}

/** php-fpm's pm.start_servers for a dynamic pool that does not set it: min_spare + (max_spare - min_spare) / 2, in whole servers. */
function startServers(pool: PhpFpmPool): number | undefined {
  const min = Number(pool.effective('pm.min_spare_servers')?.value);
  const max = Number(pool.effective('pm.max_spare_servers')?.value);
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max)) return undefined;
  return min + Math.trunc((max - min) / 2);
}
