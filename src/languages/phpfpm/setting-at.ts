import type { SettingAtPoint } from '../../core/language.js';
import type { SourceFile } from '../../core/source-file.js';
import { POOL_DEFAULTS } from './entries.js';
import type { PhpFpmConfig, PhpFpmPool } from './model.js';

/** The entry at an offset and the value its pool (or the global section) runs with: its last line, else php-fpm's default. */
export function phpFpmSettingAt(config: PhpFpmConfig, file: SourceFile, offset: number): SettingAtPoint | undefined {
  for (const pool of [config.global, ...config.pools]) {
    const use = pool.uses.find(
      (candidate) => candidate.file.path === file.path && candidate.range[0] <= offset && offset <= candidate.range[1],
    );
    if (use === undefined) continue;
    const effective = pool.effective(use.key);
    return {
      name: `[${pool.name}] ${use.key}`,
      at: use,
      effective: effective === undefined ? undefined : { value: effective.value, setAt: effective },
      defaultValue: defaultOf(config, pool, use.key),
    };
  }
  return undefined;
}

function defaultOf(config: PhpFpmConfig, pool: PhpFpmPool, key: string): string | undefined {
  return pool === config.global ? undefined : POOL_DEFAULTS[key];
}
