import { versionAtLeast } from '../../core/targets.js';
import type { ApacheDirectiveUse, ApacheSectionUse, DirectiveIndex } from './uses.js';
import { lookupTable } from '../../util/lookup.js';
import { remembered } from '../../util/remembered.js';

/** Core directives whose effective value matters for tuning, with the compiled-in defaults. */
export const CORE_SETTINGS: Readonly<Record<string, { readonly name: string; readonly default: (httpd: string) => string }>> = lookupTable({
  keepalive: { name: 'KeepAlive', default: () => 'On' },
  keepalivetimeout: { name: 'KeepAliveTimeout', default: () => '5' },
  maxkeepaliverequests: { name: 'MaxKeepAliveRequests', default: () => '100' },
  timeout: { name: 'Timeout', default: (httpd) => (versionAtLeast(httpd, '2.4') ? '60' : '300') },
  hostnamelookups: { name: 'HostnameLookups', default: () => 'Off' },
  enablesendfile: { name: 'EnableSendfile', default: (httpd) => (versionAtLeast(httpd, '2.4') ? 'Off' : 'On') },
  enablemmap: { name: 'EnableMMAP', default: () => 'On' },
  listenbacklog: { name: 'ListenBacklog', default: () => '511' },
  allowoverride: { name: 'AllowOverride', default: (httpd) => (versionAtLeast(httpd, '2.4') ? 'None' : 'All') },
  extendedstatus: { name: 'ExtendedStatus', default: () => 'Off' },
});

export interface EffectiveSetting {
  /** Canonical spelling, e.g. `KeepAliveTimeout`. */
  readonly name: string;
  /** The arguments in effect (expanded), or the default as one argument. */
  readonly args: readonly string[];
  /** The line that set it; undefined when the compiled-in default applies. */
  readonly use: ApacheDirectiveUse | undefined;
}

/**
 * The value of a core directive in a scope: the last line set directly in
 * that scope (`<VirtualHost>`, `<Directory>`), else the server's last line,
 * else httpd's default for the target version.
 */
export function effectiveSetting(config: DirectiveIndex, lowerName: string, scope?: ApacheSectionUse): EffectiveSetting {
  const spec = CORE_SETTINGS[lowerName];
  const name = spec?.name ?? lowerName;
  const lines = lastLines(config, lowerName);
  const use = (scope === undefined ? undefined : lines.inScope.get(scope)) ?? lines.atServer;
  if (use !== undefined) return { name, args: use.args, use };
  return { name, args: spec === undefined ? [] : [spec.default(config.httpd)], use: undefined };
}

interface LastLines {
  /** How many lines of the name the index covers: a config still being read has more later. */
  readonly count: number;
  readonly atServer: ApacheDirectiveUse | undefined;
  readonly inScope: ReadonlyMap<ApacheSectionUse, ApacheDirectiveUse>;
}

const lastLinesCache = new WeakMap<DirectiveIndex, Map<string, LastLines>>();

/**
 * The last line of a directive per enclosing container, built once per
 * config and name, so asking for every `<VirtualHost>` of a 10,000-vhost
 * config is linear, not quadratic.
 */
function lastLines(config: DirectiveIndex, lowerName: string): LastLines {
  const uses = config.named(lowerName);
  const byName = remembered(lastLinesCache, config, () => new Map<string, LastLines>());
  const cached = byName.get(lowerName);
  if (cached?.count === uses.length) return cached;
  let atServer: ApacheDirectiveUse | undefined;
  const inScope = new Map<ApacheSectionUse, ApacheDirectiveUse>();
  for (const use of uses) {
    const container = config.container(use);
    if (container === undefined) atServer = use;
    else inScope.set(container, use);
  }
  const built = { count: uses.length, atServer, inScope };
  byName.set(lowerName, built);
  return built;
}

/** `On`/`Off` (any case) as httpd's FLAG directives read them: only the first word counts. */
export function flagValue(setting: EffectiveSetting): boolean | undefined {
  const word = setting.args[0]?.toLowerCase();
  return word === 'on' ? true : word === 'off' ? false : undefined;
}

/**
 * A duration as `ap_timeout_parameter_parse` reads it, in seconds: a number
 * with an optional `ms`, `s`, `mi` or `h` suffix (default seconds).
 */
export function durationSeconds(text: string | undefined): number | undefined {
  const match = /^(\d+)(ms|s|mi|min|h)?$/i.exec(text?.trim() ?? '');
  if (!match) return undefined;
  const value = Number(match[1]);
  switch ((match[2] ?? 's').toLowerCase()) {
    case 'ms':
      return value / 1000;
    case 'mi':
    case 'min':
      return value * 60;
    case 'h':
      return value * 3600;
    default:
      return value;
  }
}
