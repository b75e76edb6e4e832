import { versionAtLeast } from '../../core/targets.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from './model.js';
import { linesByContainer, scopedSetting } from './scopes.js';
import type { EffectiveSetting } from './settings.js';
import { remembered } from '../../util/remembered.js';

/**
 * The servers a config defines and the lines that decide a server-scope
 * setting for each: the main server, and every `<VirtualHost>` with a line
 * of its own; the other vhosts share the main server's setting.
 */

export interface ServerSetting {
  /** undefined for the main server. */
  readonly vhost: ApacheSectionUse | undefined;
  readonly setting: EffectiveSetting;
}

/** The `<VirtualHost>` sections in effect, in file order; found once per config, as rules ask for them over and over. */
export function virtualHosts(config: ApacheConfig): readonly ApacheSectionUse[] {
  return remembered(vhostLists, config, () => config.sections.filter((section) => section.name === 'virtualhost'));
}

const vhostLists = new WeakMap<ApacheConfig, readonly ApacheSectionUse[]>();

/**
 * The setting for the main server, then for each `<VirtualHost>` that sets
 * the directive itself, in file order; worked out once per config and name,
 * as several rules ask for the same one (KeepAlive for three). A vhost
 * without a line of its own has the main server's setting, so it adds no
 * line that decides anything and is left out: an entry for every vhost and
 * name was 50,000 objects on 10,000 vhosts, made again in each fix pass.
 */
export function perServer(config: ApacheConfig, lowerName: string): readonly ServerSetting[] {
  return remembered(
    remembered(serverSettings, config, () => new Map<string, readonly ServerSetting[]>()),
    lowerName,
    () => {
      const servers: ServerSetting[] = [{ vhost: undefined, setting: scopedSetting(config, lowerName) }];
      for (const vhost of linesByContainer(config, lowerName).virtualHosts()) {
        servers.push({ vhost, setting: scopedSetting(config, lowerName, vhost) });
      }
      return servers;
    },
  );
}

const serverSettings = new WeakMap<ApacheConfig, Map<string, readonly ServerSetting[]>>();

/** The lines that decide the setting of at least one server, each once, in read order. */
export function decidingLines(servers: readonly ServerSetting[]): ApacheDirectiveUse[] {
  const lines = new Set<ApacheDirectiveUse>();
  for (const server of servers) if (server.setting.use !== undefined) lines.add(server.setting.use);
  return inReadOrder(lines);
}

function inReadOrder(lines: ReadonlySet<ApacheDirectiveUse>): ApacheDirectiveUse[] {
  return [...lines].sort((a, b) => a.order - b.order);
}

/** Whether a server with these KeepAlive arguments keeps connections alive; httpd 2.2 takes every value but Off and 0 as On (upgrading doc). */
export function keepsAlive(config: ApacheConfig, keepAliveArgs: readonly string[]): boolean {
  const value = keepAliveArgs[0] ?? 'On';
  return !(versionAtLeast(config.httpd, '2.4') ? KEEPALIVE_OFF : KEEPALIVE_OFF_22).test(value);
}

const KEEPALIVE_OFF = /^off$/i;
const KEEPALIVE_OFF_22 = /^(off|0)$/i;

/**
 * The lines deciding a keep-alive setting for at least one server that keeps
 * connections alive, in read order. The servers that can differ are the main
 * server and the vhosts that set KeepAlive or the directive itself; any other
 * vhost has both of the main server's settings. Read from the lines by
 * container, without a setting object per vhost: on 10,000 vhosts that each
 * set KeepAliveTimeout those objects and the maps of them were most of AP2007.
 */
export function keepAliveLines(config: ApacheConfig, lowerName: string): ApacheDirectiveUse[] {
  const keepAlive = linesByContainer(config, 'keepalive');
  const own = linesByContainer(config, lowerName);
  const mainKeepsAlive = keepsAlive(config, scopedSetting(config, 'keepalive').args);
  const mainLine = scopedSetting(config, lowerName).use;
  const lines = new Set<ApacheDirectiveUse>();
  if (mainKeepsAlive && mainLine !== undefined) lines.add(mainLine);
  for (const vhost of new Set([...keepAlive.virtualHosts(), ...own.virtualHosts()])) {
    const keepAliveLine = keepAlive.last(vhost);
    if (!(keepAliveLine === undefined ? mainKeepsAlive : keepsAlive(config, keepAliveLine.args))) continue;
    const line = own.last(vhost) ?? mainLine;
    if (line !== undefined) lines.add(line);
  }
  return inReadOrder(lines);
}
