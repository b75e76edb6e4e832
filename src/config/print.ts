import type { RuleSelection } from '../engine/linter.js';
import { DEFAULT_BUDGET } from '../analysis/sizing.js';
import { SourceFile } from '../core/source-file.js';
import type { Targets } from '../core/targets.js';
import type { Rule } from '../engine/types.js';
import type { HostFacts } from '../host/facts.js';
import { factsJson } from '../formatters/facts-json.js';
import type { HostGroup } from './resolve.js';
import type { ResolvedConfig } from './types.js';

export interface PrintConfigInput {
  readonly config: ResolvedConfig;
  /** The path asked about, as given and as an absolute path. */
  readonly file: string;
  readonly absolutePath: string;
  readonly group: HostGroup;
  /** Host facts from flags, files and the config; never from a probe of this machine. */
  readonly host: HostFacts;
  readonly targets: Targets;
  readonly selection: RuleSelection;
  readonly rules: readonly Rule[];
}

/**
 * `--print-config PATH`: everything a lint of PATH would be configured with,
 * after presets, the config file, matching overrides and the command line, as
 * JSON with a fixed key order. Budget sizes are bytes, shares are fractions.
 */
export function printConfig(input: PrintConfigInput): string {
  const source = new SourceFile(input.absolutePath, input.file, '');
  const rules: Record<string, unknown> = {};
  for (const rule of input.rules) {
    const setting = input.selection.setting(rule, source);
    rules[rule.meta.id] =
      setting.severity === 'off' || Object.keys(setting.options).length === 0 ? setting.severity : [setting.severity, setting.options];
  }
  const printable = {
    file: input.file,
    config: input.config.file ?? null,
    extends: input.config.preset,
    hostGroup: input.group.label ?? null,
    host: factsJson(input.host),
    target: { httpd: input.targets.httpd, [input.targets.db.product]: input.targets.db.version },
    budget: { ...DEFAULT_BUDGET, ...input.group.budget },
    rules,
  };
  return `${JSON.stringify(printable, null, 2)}\n`;
}
