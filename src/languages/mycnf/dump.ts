import type { Located } from '../../core/types.js';
import { VARIABLE_DEFAULTS, variableUnit } from './defaults.js';
import type { MycnfConfig } from './model.js';
import { parseServerSize } from './sizes.js';

interface Where {
  file: string;
  line: number;
}

function where(located: Located): Where {
  return { file: located.file.displayPath, line: located.file.position(located.range[0]).line };
}

/**
 * `tune-lint dump my.cnf --json`: the files in read order, every option the
 * server reads with where it is, the effective value of each key (bytes where
 * the value is a size the target accepts), and the target's defaults of the
 * memory and connection variables that are not set.
 */
export function dumpMycnfConfig(config: MycnfConfig): object {
  const effective: Record<string, object> = {};
  const keys = [...new Set(config.uses.filter((use) => use.effective && !use.name.maximum).map((use) => use.name.key))].sort();
  for (const key of keys) {
    const use = config.effective(key);
    if (use === undefined) continue;
    const entry: Record<string, unknown> = { value: use.value ?? null };
    if (variableUnit(key) === 'bytes' && use.value !== undefined) {
      const size = parseServerSize(use.value, config.target, key);
      if ('bytes' in size) entry.bytes = size.bytes;
    }
    effective[key] = { ...entry, ...where(use), group: use.group };
  }
  const defaults: Record<string, unknown> = {};
  for (const key of Object.keys(VARIABLE_DEFAULTS)) {
    if (config.effective(key) !== undefined) continue;
    const value = config.defaultOf(key);
    if (value !== undefined) defaults[key] = value;
  }
  return {
    version: 1,
    language: 'mycnf',
    root: config.root.displayPath,
    target: { product: config.target.product, version: config.target.version },
    files: config.files.map((entry) => ({
      path: entry.source.displayPath,
      depth: entry.depth,
      includedFrom: entry.includedFrom === undefined ? null : { file: entry.includedFrom.file.displayPath, line: entry.includedFrom.line },
    })),
    groups: [...config.serverGroups],
    options: config.uses.map((use) => ({
      name: use.name.raw,
      key: use.name.key,
      group: use.group,
      value: use.value ?? null,
      ...where(use),
      effective: use.effective,
    })),
    effective,
    defaults,
    problems: config.problems.map((problem) => ({
      ruleId: problem.ruleId,
      severity: problem.severity,
      message: problem.message,
      ...where(problem),
    })),
  };
}
