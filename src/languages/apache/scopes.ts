import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from './model.js';
import { CORE_SETTINGS, type EffectiveSetting } from './settings.js';
import { remembered } from '../../util/remembered.js';
import { appendAll } from '../../util/arrays.js';

/**
 * Lookups by scope that stay linear on trees with thousands of virtual
 * hosts: the lines of a directive are grouped by their innermost container
 * once per configuration and name, so asking for every vhost's value does
 * not rescan every line each time.
 */

const indexes = new WeakMap<ApacheConfig, Map<string, ContainerLines>>();

/**
 * The lines of one directive by innermost container (conditionals skipped),
 * in read order. A container with one line keeps the line itself, not an
 * array of one: most have one (a ServerName per vhost), and on 10,000 vhosts
 * those arrays were a twelfth of what a lint keeps.
 */
export class ContainerLines {
  private readonly byContainer = new Map<ApacheSectionUse | undefined, ApacheDirectiveUse | ApacheDirectiveUse[]>();

  add(container: ApacheSectionUse | undefined, use: ApacheDirectiveUse): void {
    const known = this.byContainer.get(container);
    if (known === undefined) this.byContainer.set(container, use);
    else if (Array.isArray(known)) known.push(use);
    else this.byContainer.set(container, [known, use]);
  }

  has(container: ApacheSectionUse | undefined): boolean {
    return this.byContainer.has(container);
  }

  /** The `<VirtualHost>` sections with lines of their own, in read order. */
  *virtualHosts(): IterableIterator<ApacheSectionUse> {
    for (const container of this.byContainer.keys()) if (container?.name === 'virtualhost') yield container;
  }

  /** The container's last line: the one in effect there. */
  last(container: ApacheSectionUse | undefined): ApacheDirectiveUse | undefined {
    const known = this.byContainer.get(container);
    return Array.isArray(known) ? known[known.length - 1] : known;
  }

  /** The last line set directly in any of these containers, taken in order: the one in effect after them. */
  lastIn(containers: readonly (ApacheSectionUse | undefined)[]): ApacheDirectiveUse | undefined {
    for (let index = containers.length - 1; index >= 0; index--) {
      const last = this.last(containers[index]);
      if (last !== undefined) return last;
    }
    return undefined;
  }

  /** Appends the container's lines to `lines`, in read order. */
  appendTo(lines: ApacheDirectiveUse[], container: ApacheSectionUse | undefined): void {
    const known = this.byContainer.get(container);
    if (known === undefined) return;
    if (Array.isArray(known)) appendAll(lines, known);
    else lines.push(known);
  }
}

/** The lines of a directive grouped by innermost container, indexed once per configuration and name. */
export function linesByContainer(config: ApacheConfig, lowerName: string): ContainerLines {
  return remembered(
    remembered(indexes, config, () => new Map<string, ContainerLines>()),
    lowerName,
    () => {
      const grouped = new ContainerLines();
      for (const use of config.named(lowerName)) grouped.add(config.container(use), use);
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
  const own = scope === undefined ? undefined : linesByContainer(config, lowerName).last(scope);
  if (own === undefined) return serverSetting(config, lowerName);
  return { name: CORE_SETTINGS[lowerName]?.name ?? lowerName, args: own.args, use: own };
}

const serverSettings = new WeakMap<ApacheConfig, Map<string, EffectiveSetting>>();

/**
 * The main server's setting, one object per configuration and name: every
 * scope that does not set the directive itself shares it (on 10,000 vhosts
 * an object per vhost and name was a tenth of what the rules keep).
 */
function serverSetting(config: ApacheConfig, lowerName: string): EffectiveSetting {
  return remembered(
    remembered(serverSettings, config, () => new Map<string, EffectiveSetting>()),
    lowerName,
    () => {
      const spec = CORE_SETTINGS[lowerName];
      const name = spec?.name ?? lowerName;
      const use = linesByContainer(config, lowerName).last(undefined);
      if (use !== undefined) return { name, args: use.args, use };
      return { name, args: spec === undefined ? [] : [spec.default(config.httpd)], use: undefined };
    },
  );
}
