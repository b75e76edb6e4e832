/**
 * The library API of tune-lint (docs/usage.md): the lossless parsers, the linter
 * and the formatters. `import { lint } from 'tune-lint'`.
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

export { parseApache, ApacheDocument } from './languages/apache/parser.js';
export type {
  ApacheArg,
  ApacheNode,
  BlankNode,
  CloseTag,
  CommentNode,
  DirectiveNode,
  ErrorNode,
  SectionNode,
} from './languages/apache/cst.js';
export { parseMyCnf } from './languages/mycnf/parser.js';
export type {
  Eol,
  MycnfBlankLine,
  MycnfCommentLine,
  MycnfDocument,
  MycnfGroupLine,
  MycnfIncludeLine,
  MycnfLine,
  MycnfOptionLine,
  MycnfOtherLine,
} from './languages/mycnf/parser.js';
export { loadApache } from './languages/apache/model.js';
export type { ApacheConfig } from './languages/apache/model.js';
export { loadMycnf } from './languages/mycnf/model.js';
export type { MycnfConfig } from './languages/mycnf/model.js';
export { ConfigFileSystem } from './core/file-system.js';
export { parseTargetSpec, DEFAULT_TARGETS } from './core/targets.js';
export type { Targets } from './core/targets.js';
export { unifiedDiff } from './fix/patch.js';
export { LintTimer } from './engine/timing.js';
export { builtinRules };
export type { Diagnostic, Fix, Rule, RuleMeta, Severity, TextEdit } from './engine/types.js';
export type { HostFacts } from './host/facts.js';
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
