/**
 * The library API of tune-lint (docs/usage.md): every language's lossless
 * parser and loader, the linter, the formatters, and what a rule of one's own
 * needs (defineRule, testRule, the language contract). `import { lint } from 'tune-lint'`.
 */
import { builtinRules } from '../rules/index.js';
import { selectRules, type Preset, type UserRuleSetting } from './engine/selection.js';
import type { RuleSelection } from './engine/linter.js';
import { formatDiff } from './formatters/diff.js';
import { formatJson } from './formatters/json.js';
import { formatSarif } from './formatters/sarif.js';
import { formatStylish } from './formatters/stylish.js';
import type { Formatter } from './formatters/types.js';
import { lint as lintUnitOfConfigs, type LintInput, type LintResult } from './lint.js';

// Every registered language's parser and loader, and their types, by the names each definition's `api` gives.
export * from './languages/index.js';
export { defineRule, defineToolRule } from './engine/define-rule.js';
export { testRule } from './testing/rule-tester.js';
export type { RuleTestCase, InvalidRuleTestCase, ExpectedFinding } from './testing/rule-tester.js';
export type {
  AnyLanguageDefinition,
  ConfigSet,
  ConsumerRole,
  LanguageConfig,
  LanguageConfigs,
  LanguageDefinition,
  LanguageId,
  LanguageReaderOptions,
  LanguageDetection,
  LanguageRuleFamily,
  LanguageVisitors,
  ListDirectory,
  LoadContext,
  MemoryConsumer,
  NameMatch,
  TunableLimit,
} from './core/language.js';
export { ConfigFileSystem } from './core/file-system.js';
export { parseTargetSpec, DEFAULT_TARGETS } from './core/targets.js';
export type { Targets } from './core/targets.js';
export { FilePatches, unifiedDiff } from './fix/patch.js';
export { LintTimer } from './engine/timing.js';
export { builtinRules };
export type {
  Diagnostic,
  Fix,
  HostRuleContext,
  LanguageRuleContext,
  Rule,
  RuleLanguage,
  RuleMeta,
  Severity,
  TextEdit,
  Visitors,
} from './engine/types.js';
export type { HostFacts } from './core/host-facts.js';
export type { Budget, Sizing } from './analysis/sizing.js';
export { plannedChanges } from './analysis/plan.js';
export type {
  ApachePlan,
  ApacheRole,
  CachePlan,
  Decision,
  HostPlan,
  MemoryPlan,
  MysqlPlan,
  PlannedChange,
  PlanReason,
  PoolPlan,
} from './analysis/plan.js';
export type { FormatInput, Formatter, UnitOutcome } from './formatters/types.js';
export type { LintResult, FileFix } from './lint.js';
export type { Preset, UserRuleSetting };

export interface LintOptions extends Omit<LintInput, 'rules'> {
  /** Which rules run and how; default: the `recommended` preset of the built-in catalogue. */
  readonly rules?: RuleSelection;
  /** Shorthand for a selection: a preset and per-rule settings by id or name. */
  readonly preset?: Preset;
  readonly ruleSettings?: Readonly<Record<string, UserRuleSetting>>;
}

/** Lints the configs of one host together; see {@link LintInput} for every option. */
export async function lint(options: LintOptions): Promise<LintResult> {
  const rules =
    options.rules ?? selectRules(builtinRules, options.preset ?? 'recommended', new Map(Object.entries(options.ruleSettings ?? {})));
  return lintUnitOfConfigs({ ...options, rules });
}

/** The output formats, as pure functions of the results. */
export const formatters: Readonly<Record<'stylish' | 'json' | 'sarif' | 'diff', Formatter>> = {
  stylish: formatStylish,
  json: formatJson,
  sarif: formatSarif,
  diff: formatDiff,
};
