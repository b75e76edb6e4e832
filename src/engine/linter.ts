import type { HostFacts } from '../host/facts.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../languages/apache/model.js';
import type { MycnfConfig } from '../languages/mycnf/model.js';
import { applyDisableDirectives } from './disable-comments.js';
import { printable } from '../util/printable.js';
import type { ConfigProblem } from '../core/problem.js';
import { computeSizing, type Budget, type Sizing } from '../analysis/sizing.js';
import type { SourceFile } from '../core/source-file.js';
import type { Targets } from '../core/targets.js';
import type { LintTimer } from './timing.js';
import type {
  Diagnostic,
  FixKind,
  Located,
  ReportDescriptor,
  Rule,
  RuleContext,
  RuleOptions,
  Severity,
  SeveritySetting,
  TextEdit,
  Visitors,
} from './types.js';

/** The configs of one host, linted together so cross-service rules see both. */
export interface LintUnit {
  readonly apache: readonly ApacheConfig[];
  readonly mycnf: MycnfConfig | undefined;
  readonly host: HostFacts;
  readonly targets: Targets;
  readonly budget: Budget;
}

export interface RuleSetting {
  readonly severity: SeveritySetting;
  readonly options: RuleOptions;
  /** True when the user set the severity (reader problems keep their own severity otherwise). */
  readonly explicit: boolean;
}

export interface RuleSelection {
  readonly rules: readonly Rule[];
  /** The setting of a rule for a file (overrides by glob make it per file). */
  setting(rule: Rule, file: SourceFile): RuleSetting;
}

export interface UnitResult {
  readonly diagnostics: Diagnostic[];
  readonly sizing: Sizing;
}

type AnyRule = Rule<RuleOptions, string>;

export interface LintUnitOptions {
  /**
   * Only what a fix pass uses: reader problems and the rules that can fix
   * (`meta.fix`), without the notes about the run (skipped rules, unused
   * disable comments). A fix pass re-lints the patched configs to find the
   * fixes they lead to and the reader errors they would cause; on a tree of
   * 10,000 vhosts the other rules would be a third of the run.
   */
  readonly fixesOnly?: boolean;
  /** Times each rule (TIMING). */
  readonly timer?: LintTimer | undefined;
}

/**
 * Runs the rules over one unit: reader problems become diagnostics of their
 * rule ids, every rule's visitors see the directives and options in effect,
 * disable comments are applied per file, and unused ones are reported.
 */
export function lintUnit(unit: LintUnit, selection: RuleSelection, options: LintUnitOptions = {}): UnitResult {
  const fixesOnly = options.fixesOnly === true;
  const timer = options.timer;
  const sizing = computeSizing({ apache: unit.apache, mycnf: unit.mycnf, host: unit.host, budget: unit.budget });
  const rulesById = new Map(selection.rules.map((rule) => [rule.meta.id, rule as AnyRule]));
  const roots = [...unit.apache.map((config) => config.root), ...(unit.mycnf === undefined ? [] : [unit.mycnf.root])];
  const anchor = roots[0];
  const raw: Diagnostic[] = [];
  const enabledFor = (rule: AnyRule, file: SourceFile): RuleSetting | undefined => {
    const setting = selection.setting(rule, file);
    return setting.severity === 'off' ? undefined : setting;
  };

  const push = (
    rule: AnyRule,
    file: SourceFile,
    severity: Severity,
    message: string,
    located: Located,
    context: readonly string[],
    fix?: Diagnostic['fix'],
  ): void => {
    raw.push({
      ruleId: rule.meta.id,
      ruleName: rule.meta.name,
      severity,
      message: printable(message),
      file,
      range: located.range,
      start: file.position(located.range[0]),
      end: file.position(located.range[1]),
      context: context.map(printable),
      ...(fix === undefined ? {} : { fix }),
    });
  };

  const problems: ConfigProblem[] = [...unit.apache.flatMap((config) => config.problems), ...(unit.mycnf?.problems ?? [])];
  for (const problem of problems) {
    const rule = rulesById.get(problem.ruleId);
    if (rule === undefined) continue;
    const setting = enabledFor(rule, problem.file);
    if (setting === undefined) continue;
    push(
      rule,
      problem.file,
      setting.explicit ? (setting.severity as Severity) : problem.severity,
      problem.message,
      problem,
      problem.context ?? [],
    );
  }

  const skippedForHost: AnyRule[] = [];
  const apacheRules: AnyRule[] = [];
  const mycnfRules: AnyRule[] = [];
  const hostRules: AnyRule[] = [];
  for (const rule of rulesById.values()) {
    if (anchor === undefined || !roots.some((root) => enabledFor(rule, root) !== undefined)) continue;
    if (rule.meta.language === 'tool' || (fixesOnly && rule.meta.fix === undefined)) continue;
    if (rule.meta.needsHost === true && unit.host.ram === undefined) {
      skippedForHost.push(rule);
      continue;
    }
    if (rule.meta.language === 'apache') apacheRules.push(rule);
    else if (rule.meta.language === 'mycnf') mycnfRules.push(rule);
    else hostRules.push(rule);
  }

  const run = (rule: AnyRule, apache: ApacheConfig | undefined, options: RuleOptions): Visitors => {
    const context: RuleContext<RuleOptions, string> = {
      options,
      apache,
      mycnf: unit.mycnf,
      host: unit.host,
      targets: unit.targets,
      sizing,
      report: (descriptor: ReportDescriptor<string>) => {
        const file = descriptor.at.file;
        const setting = enabledFor(rule, file);
        if (setting === undefined) return;
        const message = render(rule.meta.messages[descriptor.messageId] ?? descriptor.messageId, descriptor.data);
        const fix = buildFix(rule, descriptor);
        const severity = setting.explicit ? (setting.severity as Severity) : (descriptor.severity ?? (setting.severity as Severity));
        push(rule, file, severity, message, descriptor.at, contextOf(descriptor.at, apache), fix);
      },
    };
    if (timer === undefined) return rule.create(context);
    return timer.visitors(
      rule.meta.id,
      timer.rule(rule.meta.id, () => rule.create(context)),
    );
  };
  const optionsOf = (rule: AnyRule): RuleOptions => ({ ...rule.defaultOptions, ...selection.setting(rule, anchor as SourceFile).options });

  for (const config of unit.apache) {
    const visitors = apacheRules.map((rule) => run(rule, config, optionsOf(rule)));
    dispatchApache(config, visitors);
    for (const visitor of visitors) visitor.end?.();
  }
  if (unit.mycnf !== undefined) {
    const visitors = mycnfRules.map((rule) => run(rule, undefined, optionsOf(rule)));
    dispatchMycnf(unit.mycnf, visitors);
    for (const visitor of visitors) visitor.end?.();
  }
  for (const rule of hostRules) run(rule, unit.apache[0], optionsOf(rule)).end?.();

  const tool = (id: string): AnyRule | undefined => rulesById.get(id);
  const hostNote = tool('TL0004');
  if (
    !fixesOnly &&
    skippedForHost.length > 0 &&
    hostNote !== undefined &&
    anchor !== undefined &&
    enabledFor(hostNote, anchor) !== undefined
  ) {
    const ids = skippedForHost.map((rule) => rule.meta.id).sort();
    push(
      hostNote,
      anchor,
      'info',
      render(hostNote.meta.messages['skipped'] ?? '', { count: ids.length, rules: ids.join(', ') }),
      { file: anchor, range: [0, 0] },
      [],
    );
  }
  const ruleNames = (rules: Iterable<AnyRule>): Set<string> =>
    new Set([...rules].flatMap((rule) => [rule.meta.id.toLowerCase(), rule.meta.name]));
  const ran = ruleNames([
    ...apacheRules,
    ...mycnfRules,
    ...hostRules,
    ...[...rulesById.values()].filter((rule) => rule.meta.language === 'tool'),
  ]);
  const known = ruleNames(rulesById.values());
  const files = [
    ...unit.apache.flatMap((config) => config.files.map((entry) => entry.source)),
    ...(unit.mycnf?.files.map((entry) => entry.source) ?? []),
  ];
  const unusedRule = fixesOnly ? undefined : tool('TL0003');
  // A disable for a rule that did not run (off, or skipped for lack of host facts) is not unused; a typo is.
  const reportUnused = (file: SourceFile, names: readonly string[]): Severity | undefined => {
    const setting = unusedRule === undefined ? undefined : enabledFor(unusedRule, file);
    if (setting === undefined) return undefined;
    return names.length === 0 || names.some((name) => ran.has(name) || !known.has(name)) ? (setting.severity as Severity) : undefined;
  };
  return { diagnostics: finish(raw, files, unusedRule, reportUnused), sizing };
}

function dispatchApache(config: ApacheConfig, visitors: readonly Visitors[]): void {
  const directiveHandlers = new Map<string, ((use: never) => void)[]>();
  const sectionHandlers = new Map<string, ((use: never) => void)[]>();
  for (const visitor of visitors) {
    for (const [name, handler] of Object.entries(visitor.directive ?? {})) append(directiveHandlers, name, handler);
    for (const [name, handler] of Object.entries(visitor.section ?? {})) append(sectionHandlers, name, handler);
  }
  // Indexed loops over the directives: they run once per line (a quarter of a million lines on 10,000
  // vhosts), mostly before V8 optimises them, and for-of there allocated an iterator and a result
  // object per step (4 of the 45 MB a lint of 1,000 vhosts allocated).
  if (directiveHandlers.size > 0) {
    const every = directiveHandlers.get('*') ?? NO_HANDLERS;
    const uses = config.uses;
    for (let index = 0; index < uses.length; index++) {
      const use = uses[index] as ApacheDirectiveUse;
      const own = directiveHandlers.get(use.name) ?? NO_HANDLERS;
      for (let handler = 0; handler < own.length; handler++) (own[handler] as (u: ApacheDirectiveUse) => void)(use);
      for (let handler = 0; handler < every.length; handler++) (every[handler] as (u: ApacheDirectiveUse) => void)(use);
    }
  }
  if (sectionHandlers.size > 0) {
    const every = sectionHandlers.get('*') ?? NO_HANDLERS;
    for (const section of config.sections) {
      for (const handler of sectionHandlers.get(section.name) ?? NO_HANDLERS) (handler as (u: typeof section) => void)(section);
      for (const handler of every) (handler as (u: typeof section) => void)(section);
    }
  }
}

function dispatchMycnf(config: MycnfConfig, visitors: readonly Visitors[]): void {
  const handlers = new Map<string, ((use: never) => void)[]>();
  for (const visitor of visitors) for (const [name, handler] of Object.entries(visitor.option ?? {})) append(handlers, name, handler);
  if (handlers.size === 0) return;
  const every = handlers.get('*') ?? NO_HANDLERS;
  for (const use of config.uses) {
    for (const handler of handlers.get(use.name.key) ?? NO_HANDLERS) (handler as (u: typeof use) => void)(use);
    for (const handler of every) (handler as (u: typeof use) => void)(use);
  }
}

/** Shared by every line without handlers of its own: one empty list, not one per line. */
const NO_HANDLERS: readonly ((use: never) => void)[] = [];

function append<K, T>(map: Map<K, T[]>, key: K, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

function buildFix(rule: AnyRule, descriptor: ReportDescriptor<string>): Diagnostic['fix'] {
  if (descriptor.fix === undefined) return undefined;
  // meta.fix is what says a rule can fix: fix passes run only such rules.
  if (rule.meta.fix === undefined) throw new Error(`${rule.meta.id} reported a fix but declares no fix kind`);
  const kind: FixKind = descriptor.fixKind ?? rule.meta.fix;
  const result = descriptor.fix();
  if (result === null) return undefined;
  const edits: readonly TextEdit[] = Array.isArray(result) ? result : [result as TextEdit];
  if (edits.length === 0) return undefined;
  return descriptor.deferFix === true ? { kind, edits, deferred: true } : { kind, edits };
}

function contextOf(at: Located, apache: ApacheConfig | undefined): readonly string[] {
  const candidate = at as Located & { parent?: unknown; context?: readonly string[] };
  if (candidate.context !== undefined) return candidate.context;
  if (apache !== undefined && 'parent' in candidate && 'order' in candidate)
    return apache.context(candidate as Parameters<ApacheConfig['context']>[0]);
  return [];
}

export function render(template: string, data: Readonly<Record<string, string | number>> | undefined): string {
  if (data === undefined) return template;
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, key: string) => (key in data ? String(data[key]) : whole));
}

/**
 * Dedupes (a file included twice is visited twice), applies disable comments,
 * reports the ones that suppressed nothing among rules that ran (or named no
 * known rule), and sorts.
 */
function finish(
  raw: readonly Diagnostic[],
  files: readonly SourceFile[],
  unusedRule: AnyRule | undefined,
  reportUnused: (file: SourceFile, rules: readonly string[]) => Severity | undefined,
): Diagnostic[] {
  const seen = new Set<string>();
  const byFile = new Map<SourceFile, Diagnostic[]>();
  for (const file of files) if (!byFile.has(file)) byFile.set(file, []);
  for (const diagnostic of raw) {
    const key = `${diagnostic.ruleId}\0${diagnostic.file.path}\0${diagnostic.range[0]}\0${diagnostic.range[1]}\0${diagnostic.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    append(byFile, diagnostic.file, diagnostic);
  }
  const out: Diagnostic[] = [];
  for (const [file, diagnostics] of byFile) {
    // Nothing to suppress and no unused comment to report: the file's text need not be searched.
    if (diagnostics.length === 0 && unusedRule === undefined) continue;
    const { kept, unused } = applyDisableDirectives(file, diagnostics);
    // A loop, not push(...kept): a file can have more findings than a call takes arguments.
    for (const diagnostic of kept) out.push(diagnostic);
    if (unusedRule === undefined) continue;
    for (const directive of unused) {
      const severity = reportUnused(file, directive.rules);
      if (severity === undefined) continue;
      const names = directive.rules.length === 0 ? 'all rules' : directive.rules.join(', ');
      out.push({
        ruleId: unusedRule.meta.id,
        ruleName: unusedRule.meta.name,
        severity,
        message: printable(render(unusedRule.meta.messages['unused'] ?? '', { rules: names })),
        file,
        range: directive.range,
        start: file.position(directive.range[0]),
        end: file.position(directive.range[1]),
        context: [],
      });
    }
  }
  return out.sort(compareDiagnostics);
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.file !== b.file) return a.file.displayPath < b.file.displayPath ? -1 : 1;
  return a.range[0] - b.range[0] || a.range[1] - b.range[1] || (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0);
}
