import * as path from 'node:path';
import type { UserRuleSetting } from '../engine/selection.js';
import type { Budget } from '../analysis/sizing.js';
import type { Targets } from '../core/targets.js';
import { compileGlob } from '../util/glob.js';
import type { ConfigHost, ConfigOverride, ResolvedConfig } from './types.js';

/** What one host's configs are linted with: the top level of `.tune-lint.yaml`, or an override that describes a host. */
export interface HostGroup {
  /** Index of that override, -1 for the top level. */
  readonly index: number;
  /** The override's name (or its globs); undefined for the top level. */
  readonly label: string | undefined;
  readonly host: ConfigHost | undefined;
  readonly targets: Partial<Targets>;
  readonly budget: Partial<Budget>;
}

const compiled = new WeakMap<ConfigOverride, (relativePath: string) => boolean>();

function matches(override: ConfigOverride, relativePath: string): boolean {
  let test = compiled.get(override);
  if (test === undefined) {
    const globs = override.files.map(compileGlob);
    test = (candidate) => globs.some((glob) => glob(candidate));
    compiled.set(override, test);
  }
  return test(relativePath);
}

/** A path as override globs see it: relative to the config file's directory, `/`-separated. */
function relativeToConfig(config: ResolvedConfig, absolutePath: string): string {
  return path.relative(path.resolve(config.base), absolutePath).split(path.sep).join('/');
}

/** An override with `host`, `target` or `budget` describes a host rather than a few files. */
function describesHost(override: ConfigOverride): boolean {
  return override.host !== undefined || Object.keys(override.targets).length > 0 || Object.keys(override.budget).length > 0;
}

/**
 * The host a main config belongs to: the last override that describes a host
 * and matches it (later entries win, as for rules), else the top level. The
 * override's host facts replace the top-level ones, because they describe
 * another machine; its target and budget are merged over the top level's.
 */
export function hostGroupOf(config: ResolvedConfig, absolutePath: string): HostGroup {
  const relative = relativeToConfig(config, absolutePath);
  for (let index = config.overrides.length - 1; index >= 0; index--) {
    const override = config.overrides[index] as ConfigOverride;
    if (!describesHost(override) || !matches(override, relative)) continue;
    return {
      index,
      label: override.name ?? override.files.join(', '),
      host: override.host ?? config.host,
      targets: { ...config.targets, ...override.targets },
      budget: { ...config.budget, ...override.budget },
    };
  }
  return { index: -1, label: undefined, host: config.host, targets: config.targets, budget: config.budget };
}

/** Rule settings of every override matching the file, later entries over earlier ones; undefined when none applies. */
export function overrideRulesOf(config: ResolvedConfig, absolutePath: string): ReadonlyMap<string, UserRuleSetting> | undefined {
  if (config.overrides.length === 0) return undefined;
  const relative = relativeToConfig(config, absolutePath);
  let merged: Map<string, UserRuleSetting> | undefined;
  for (const override of config.overrides) {
    if (override.rules.size === 0 || !matches(override, relative)) continue;
    merged ??= new Map();
    for (const [id, setting] of override.rules) merged.set(id, layer(merged.get(id), setting));
  }
  return merged;
}

function layer(below: UserRuleSetting | undefined, above: UserRuleSetting): UserRuleSetting {
  if (below === undefined) return above;
  const severity = above.severity ?? below.severity;
  const options = below.options === undefined ? above.options : { ...below.options, ...above.options };
  return { ...(severity === undefined ? {} : { severity }), ...(options === undefined ? {} : { options }) };
}
