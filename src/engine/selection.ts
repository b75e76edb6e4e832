import type { RuleSelection, RuleSetting } from './linter.js';
import type { SourceFile } from '../core/source-file.js';
import type { Rule, RuleOptions, SeveritySetting } from './types.js';

export type Preset = 'recommended' | 'strict' | 'all';

/** A user's setting for one rule, by id or name: a severity, optionally with options. */
export interface UserRuleSetting {
  readonly severity?: SeveritySetting;
  readonly options?: RuleOptions;
}

/**
 * Severity and options per rule, each layer over the one before: the preset
 * (with `optionDefaults`, the options a flag sets for every rule that takes
 * them, such as --min-uptime), the config file's `rules`, the `overrides`
 * whose globs match the file, and `--rule` flags.
 */
export function selectRules(
  rules: readonly Rule[],
  preset: Preset,
  settings: ReadonlyMap<string, UserRuleSetting>,
  perFile?: (file: SourceFile) => ReadonlyMap<string, UserRuleSetting> | undefined,
  cli?: ReadonlyMap<string, UserRuleSetting>,
  optionDefaults: RuleOptions = {},
): RuleSelection {
  const base = (rule: Rule): RuleSetting => {
    const enabled = rule.meta.language === 'tool' || preset !== 'recommended' || rule.meta.recommended;
    const declared = rule.meta.options ?? {};
    const options = Object.fromEntries(Object.entries(optionDefaults).filter(([name]) => name in declared));
    return { severity: enabled ? rule.meta.defaultSeverity : 'off', options, explicit: false };
  };
  const apply = (setting: RuleSetting, user: UserRuleSetting | undefined): RuleSetting =>
    user === undefined
      ? setting
      : {
          severity: user.severity ?? (setting.severity === 'off' && user.options !== undefined ? 'warn' : setting.severity),
          options: { ...setting.options, ...user.options },
          explicit: setting.explicit || user.severity !== undefined,
        };
  const lookup = (map: ReadonlyMap<string, UserRuleSetting> | undefined, rule: Rule): UserRuleSetting | undefined =>
    map?.get(rule.meta.id) ?? map?.get(rule.meta.id.toLowerCase()) ?? map?.get(rule.meta.name);
  // Asked once per rule and file: matching every override's globs each time made 200,000 overrides take 76 s.
  const perPath = new Map<string, ReadonlyMap<string, UserRuleSetting> | undefined>();
  const fileSettings = (file: SourceFile): ReadonlyMap<string, UserRuleSetting> | undefined => {
    if (perFile === undefined) return undefined;
    if (!perPath.has(file.path)) perPath.set(file.path, perFile(file));
    return perPath.get(file.path);
  };
  const resolve = (rule: Rule, overrides: ReadonlyMap<string, UserRuleSetting> | undefined): RuleSetting =>
    apply(apply(apply(base(rule), lookup(settings, rule)), lookup(overrides, rule)), lookup(cli, rule));
  // A lint asks for each rule's setting many times (which rules run, their options, each finding); where no
  // override matches the file, the answer is the rule's alone.
  const withoutOverrides = new Map<Rule, RuleSetting>();
  return {
    rules,
    setting(rule, file) {
      const overrides = fileSettings(file);
      if (overrides !== undefined) return resolve(rule, overrides);
      let setting = withoutOverrides.get(rule);
      if (setting === undefined) withoutOverrides.set(rule, (setting = resolve(rule, undefined)));
      return setting;
    },
  };
}
