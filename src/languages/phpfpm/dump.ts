import type { PhpFpmConfig, PhpFpmPool } from './model.js';

/** The pools as php-fpm reads them, every entry with file:line, for `tune-lint dump`. */
export function dumpPhpFpm(config: PhpFpmConfig): object {
  const settings = (pool: PhpFpmPool): Record<string, { value: string; at: string }> => {
    const out: Record<string, { value: string; at: string }> = {};
    for (const use of pool.uses) {
      out[use.key] = { value: use.value, at: `${use.file.displayPath}:${use.line.number}` };
    }
    return out;
  };
  return {
    language: 'phpfpm',
    files: config.files.map((entry) => entry.source.displayPath),
    global: settings(config.global),
    pools: Object.fromEntries(config.pools.map((pool) => [pool.name, settings(pool)])),
  };
}
