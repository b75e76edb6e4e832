import type { MycnfConfig, MycnfOptionUse } from '../../../src/languages/mycnf/model.js';
import { legacySetVariable, type OptionName } from '../../../src/languages/mycnf/names.js';
import { resolveOptionName, type OptionStatus } from '../../../src/languages/mycnf/options.js';

/**
 * An option as the admin meant it. For most lines that is the line itself;
 * for `set-variable = name=value` (refused by every server since 5.5, see
 * MY4001) it is `name=value`, the line MY4001's fix writes. Rules about what
 * an option does (the query cache, removed and abbreviated names) look
 * through set-variable so a config full of them is judged in one run; their
 * fixes wait until MY4001 has rewritten the line.
 */
export interface IntendedOption {
  readonly use: MycnfOptionUse;
  readonly name: OptionName;
  readonly status: OptionStatus;
  readonly candidates: readonly string[];
  readonly value: string | undefined;
  readonly viaSetVariable: boolean;
}

/** A line that is no set-variable: the option as written, read from the line (a million lines, no copies). */
class AsWritten implements IntendedOption {
  constructor(readonly use: MycnfOptionUse) {}

  get name(): OptionName {
    return this.use.name;
  }

  get status(): OptionStatus {
    return this.use.status;
  }

  get candidates(): readonly string[] {
    return this.use.candidates;
  }

  get value(): string | undefined {
    return this.use.value;
  }

  get viaSetVariable(): false {
    return false;
  }
}

const cache = new WeakMap<MycnfConfig, readonly IntendedOption[]>();

/** Every option line in a server group, in read order, with set-variable lines replaced by what they set. */
export function intendedOptions(config: MycnfConfig): readonly IntendedOption[] {
  const cached = cache.get(config);
  if (cached !== undefined) return cached;
  const options = config.uses.map((use): IntendedOption => {
    if (use.name.key !== 'set_variable') return new AsWritten(use);
    const legacy = legacySetVariable(use.name, use.value);
    if (legacy === undefined) return new AsWritten(use);
    const resolved = resolveOptionName(legacy.name.raw, config.target);
    return {
      use,
      name: resolved.name,
      status: resolved.status,
      candidates: resolved.candidates,
      value: legacy.value,
      viaSetVariable: true,
    };
  });
  cache.set(config, options);
  return options;
}

/** The intended line that sets a key last (maximum- lines excluded). */
export function intendedEffective(config: MycnfConfig, key: string): IntendedOption | undefined {
  const options = intendedOptions(config);
  for (let i = options.length - 1; i >= 0; i--) {
    const option = options[i] as IntendedOption;
    if (option.name.key === key && !option.name.maximum) return option;
  }
  return undefined;
}

/** The name as the user wrote it, prefixes stripped: an alias or abbreviation rather than what it stands for. */
export function writtenKey(name: OptionName): string {
  return name.alias ?? name.abbreviation ?? name.key;
}

/** An option line's text (name through value) for a message, each run of blanks shown as one space. */
export function shownLine(use: MycnfOptionUse): string {
  return use.file.slice(use.line.contentRange).replace(/[\t ]+/g, ' ');
}

/** A full option name in the dash or underscore style of the name as written (`myisam-recover` -> `myisam-recover-options`). */
export function inStyleOf(written: string, canonical: string): string {
  const dashes = written.split('-').length - 1;
  const underscores = written.split('_').length - 1;
  return dashes > underscores ? canonical.replaceAll('_', '-') : canonical.replaceAll('-', '_');
}
