import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from './model.js';
import { CORE_SETTINGS, type EffectiveSetting } from './settings.js';
import { remembered } from '../../util/remembered.js';

/**
 * Lookups by scope that stay linear on trees with thousands of virtual
 * hosts: the lines of a directive are grouped by their innermost container
 * once per configuration and name, so asking for every vhost's value does
 * not rescan every line each time.
 */

const indexes = new WeakMap<ApacheConfig, Map<string, Map<ApacheSectionUse | undefined, ApacheDirectiveUse[]>>>();

/** The lines of a directive grouped by innermost container (conditionals skipped), in read order. */
export function linesByContainer(
  config: ApacheConfig,
  lowerName: string,
): ReadonlyMap<ApacheSectionUse | undefined, readonly ApacheDirectiveUse[]> {
  return remembered(
    remembered(indexes, config, () => new Map<string, Map<ApacheSectionUse | undefined, ApacheDirectiveUse[]>>()),
    lowerName,
    () => {
      const grouped = new Map<ApacheSectionUse | undefined, ApacheDirectiveUse[]>();
      for (const use of config.named(lowerName)) {
        const container = config.container(use);
        const list = grouped.get(container);
        if (list === undefined) grouped.set(container, [use]);
        else list.push(use);
      }
      return grouped;
    },
  );
}

/**
 * What `effectiveSetting` (settings.ts) returns, from the index: the last
 * line set directly in the scope, else the server's last line, else httpd's
 * default for the target.
 */
export function scopedSetting(config: ApacheConfig, lowerName: string, scope?: ApacheSectionUse): EffectiveSetting {
  const grouped = linesByContainer(config, lowerName);
  const spec = CORE_SETTINGS[lowerName];
  const name = spec?.name ?? lowerName;
  const use = (scope === undefined ? undefined : grouped.get(scope)?.at(-1)) ?? grouped.get(undefined)?.at(-1);
  if (use !== undefined) return { name, args: use.args, use };
  return { name, args: spec === undefined ? [] : [spec.default(config.httpd)], use: undefined };
}
