import type { HostFacts } from '../core/host-facts.js';
import type { AnyLanguageDefinition, ConfigSet, LanguageConfig, LanguageDefinition, LanguageId } from '../core/language.js';
import { applyDisableDirectives } from './disable-comments.js';
import { printable } from '../util/printable.js';
import { appendTo } from '../util/arrays.js';
import type { ConfigProblem } from '../core/problem.js';
import { computeSizing, type Budget, type Sizing } from '../analysis/sizing.js';
import type { SourceFile } from '../core/source-file.js';
import type { Targets } from '../core/targets.js';
import type { LintTimer } from './timing.js';
import { resolveOptions } from './define-rule.js';
import type {
  Diagnostic,
  Fix,
  FixKind,
  HostRule,
  HostRuleContext,
  LanguageRule,
  Located,
  MessageTemplate,
  ReportDescriptor,
  Rule,
  RuleOptions,
  Severity,
  SeveritySetting,
  TextEdit,
  Visitors,
} from './types.js';

/** The configs of one host, linted together so cross-service rules see them all. */
export interface LintUnit {
  /** The languages the configs are in, in the order their rules run. */
  readonly languages: readonly AnyLanguageDefinition[];
  readonly configs: ConfigSet;
  readonly host: HostFacts;
  readonly targets: Targets;
  readonly budget: Budget;
  /** Main files that could not be read and were left out (a discovered link to a file the repository lacks). */
  readonly unreadable?: readonly ConfigProblem[];
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
  /** `${ruleId}\0${realPath}` of each rule and file that found more than FINDINGS_PER_RULE_AND_FILE. */
  readonly overLimit: ReadonlySet<string>;
  readonly record: LintRecord;
}

/**
 * What a later fix pass can take from a lint: a rule is a function of its
 * config, its options and the targets, and of the host facts and the sizing
 * when it reads them (the sizing holds every config of the host). A rule that
 * read neither finds the same again in a config that is the same object, so
 * the pass takes its findings instead of running it (the option files of a
 * pass that fixed only Apache are read once, lintUnit's `before`).
 */
export interface LintRecord {
  readonly unit: LintUnit;
  readonly diagnostics: readonly Diagnostic[];
  /** The rules that read the host facts or the sizing, seen by the getters of their context. */
  readonly readBeyondConfig: ReadonlySet<Rule>;
}

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
  /** A lint of the same host before this one, whose findings of rules on the same my.cnf config are taken (LintRecord). */
  readonly before?: LintRecord | undefined;
}

/**
 * Runs the rules over one unit: reader problems become diagnostics of their
 * rule ids, every rule's visitors see the directives and options in effect,
 * disable comments are applied per file, and unused ones are reported.
 */
export function lintUnit(unit: LintUnit, selection: RuleSelection, options: LintUnitOptions = {}): UnitResult {
  const anchor = unit.configs.entries()[0]?.config.root;
  const sizing = computeSizing({
    languages: unit.languages,
    configs: unit.configs,
    host: unit.host,
    budget: unit.budget,
    ruleOptions: (ruleId) => {
      const rule = selection.rules.find((candidate) => candidate.meta.id === ruleId);
      const setting = rule === undefined || anchor === undefined ? undefined : selection.setting(rule, anchor);
      return rule === undefined || setting === undefined || setting.severity === 'off' ? undefined : resolveOptions(rule, setting.options);
    },
  });
  const run = new UnitRun(unit, selection, sizing, options);
  run.readerProblems();
  const rules = run.partition();
  // Each language's definition is the one of its id: the registry lists each once.
  for (const language of unit.languages) run.languageRules(language, rules.byLanguage.get(language.id) ?? []);
  run.hostRules(rules.host);
  if (options.fixesOnly !== true) {
    run.hostFactsNote(rules.skippedForHost);
    run.findingLimitNotes();
  }
  const diagnostics = run.finish(rules);
  return { diagnostics, sizing, overLimit: run.overLimit(), record: run.record(diagnostics) };
}

/** The rules of a unit by what they run on, and those skipped for want of host facts. */
interface Partition {
  readonly byLanguage: ReadonlyMap<LanguageId, readonly LanguageRule[]>;
  readonly host: readonly HostRule[];
  readonly skippedForHost: readonly Rule[];
}

/** What a rule's context holds whatever its language. */
type CommonContext = Omit<HostRuleContext, 'configs'>;

/**
 * Findings of one rule in one file listed at most; the rest are counted and
 * reported once (TL0010). Each finding holds its message, position and fix
 * until the report is printed: a file of a million lines, a finding each,
 * would take gigabytes, and nobody reads past the first thousand.
 */
export const FINDINGS_PER_RULE_AND_FILE = 1000;

/** How UnitResult.overLimit names a rule and a file. */
export function overLimitKey(ruleId: string, file: SourceFile): string {
  return `${ruleId}\0${file.realPath}`;
}

/** One lintUnit: the findings it collects, and each step's view of the unit. */
class UnitRun {
  readonly #raw: Diagnostic[] = [];
  /** Findings per rule and file, by `${ruleId}\0${path}`, and the file of each. */
  readonly #counts = new Map<string, { count: number; rule: Rule; file: SourceFile }>();
  readonly #rulesById: ReadonlyMap<string, Rule>;
  readonly #entries: readonly { readonly language: LanguageId; readonly config: LanguageConfig }[];
  readonly #roots: readonly SourceFile[];
  readonly #readBeyondConfig = new Set<Rule>();

  constructor(
    private readonly unit: LintUnit,
    private readonly selection: RuleSelection,
    private readonly sizing: Sizing,
    private readonly options: LintUnitOptions,
  ) {
    this.#rulesById = new Map(selection.rules.map((rule) => [rule.meta.id, rule]));
    this.#entries = unit.configs.entries();
    this.#roots = this.#entries.map(({ config }) => config.root);
  }

  /** The rule's setting for a file, or undefined when it is off there. */
  enabledFor(rule: Rule, file: SourceFile): RuleSetting | undefined {
    const setting = this.selection.setting(rule, file);
    return setting.severity === 'off' ? undefined : setting;
  }

  /** Reader problems (parse errors, includes, limits) as findings of the rule ids the readers name. */
  readerProblems(): void {
    const problems: ConfigProblem[] = [...(this.unit.unreadable ?? []), ...this.#entries.flatMap(({ config }) => config.problems)];
    for (const problem of problems) {
      const rule = this.#rulesById.get(problem.ruleId);
      const setting = rule === undefined ? undefined : this.enabledFor(rule, problem.file);
      if (rule === undefined || setting === undefined || !this.admit(rule, problem.file)) continue;
      const severity = setting.explicit ? (setting.severity as Severity) : problem.severity;
      this.push(rule, severity, { message: problem.message }, problem, problem.context ?? []);
    }
  }

  partition(): Partition {
    const anchor = this.#roots[0];
    const partition = {
      byLanguage: new Map<LanguageId, LanguageRule[]>(),
      host: [] as HostRule[],
      skippedForHost: [] as Rule[],
    };
    if (anchor === undefined) return partition;
    for (const rule of this.#rulesById.values()) {
      if (rule.meta.language === 'tool' || (this.options.fixesOnly === true && rule.meta.fix === undefined)) continue;
      if (!this.#roots.some((root) => this.enabledFor(rule, root) !== undefined)) continue;
      // A rule of a language none of whose configs is linted has nothing to run on, nor to be skipped on.
      if (rule.meta.language !== 'host' && this.unit.configs.of(rule.meta.language).length === 0) continue;
      // meta.language tells the kinds apart; TypeScript narrows on top-level properties only, hence the casts.
      if (rule.meta.needsHost === true && this.unit.host.ram === undefined) partition.skippedForHost.push(rule);
      else if (rule.meta.language === 'host') partition.host.push(rule as HostRule);
      else appendTo(partition.byLanguage, rule.meta.language, rule as LanguageRule);
    }
    return partition;
  }

  /**
   * A language's rules on each of its configs: every rule's visitors made,
   * the config's lines handed to them by the language, then each `end`.
   * Object.assign, not a spread: a spread would read the context's host and
   * sizing getters for every rule.
   */
  languageRules<Id extends LanguageId>(language: LanguageDefinition<Id>, rules: readonly LanguageRule[]): void {
    const configs = this.unit.configs.of(language.id);
    const before = this.options.before?.unit.configs.of(language.id);
    const sameConfigs = before?.length === configs.length && configs.every((config, index) => config === before[index]);
    const running = this.takeFindingsBefore(rules, sameConfigs);
    for (const config of configs) {
      const visitors = running.map((rule) =>
        this.create(rule, (common) => rule.create(Object.assign(common, { config }) as never), [config]),
      );
      language.dispatch?.(config, visitors as never);
      for (const visitor of visitors) visitor.end?.();
    }
  }

  hostRules(rules: readonly HostRule[]): void {
    const { configs } = this.unit;
    const all = this.#entries.map(({ config }) => config);
    for (const rule of rules) this.create(rule, (common) => rule.create(Object.assign(common, { configs })), all).end?.();
  }

  /**
   * With a lint before this one of the same config, host facts and targets:
   * the findings it made with each rule that read neither the host facts nor
   * the sizing, and the rules that did, which must run again.
   */
  private takeFindingsBefore<R extends Rule>(rules: readonly R[], sameConfig: boolean): readonly R[] {
    const before = this.options.before;
    if (before === undefined || !sameConfig || before.unit.host !== this.unit.host || before.unit.targets !== this.unit.targets)
      return rules;
    const taken = new Map<string, Rule>();
    for (const rule of rules) if (!before.readBeyondConfig.has(rule)) taken.set(rule.meta.id, rule);
    for (const diagnostic of before.diagnostics) {
      const rule = taken.get(diagnostic.ruleId);
      if (rule !== undefined && this.admit(rule, diagnostic.file)) this.#raw.push(diagnostic);
    }
    return rules.filter((rule) => !taken.has(rule.meta.id));
  }

  record(diagnostics: readonly Diagnostic[]): LintRecord {
    return { unit: this.unit, diagnostics, readBeyondConfig: this.#readBeyondConfig };
  }

  /** TL0004: the rules that needed the host's RAM and were skipped. */
  hostFactsNote(skipped: readonly Rule[]): void {
    const note = this.#rulesById.get('TL0004');
    const anchor = this.#roots[0];
    if (skipped.length === 0 || note === undefined || anchor === undefined || this.enabledFor(note, anchor) === undefined) return;
    const ids = skipped.map((rule) => rule.meta.id).sort();
    const message = renderTemplate(note.meta.messages.skipped ?? '', { count: ids.length, rules: ids.join(', ') });
    this.push(note, 'info', message, { file: anchor, range: [0, 0] }, []);
  }

  overLimit(): ReadonlySet<string> {
    const keys = new Set<string>();
    for (const { count, rule, file } of this.#counts.values()) {
      if (count > FINDINGS_PER_RULE_AND_FILE) keys.add(overLimitKey(rule.meta.id, file));
    }
    return keys;
  }

  /** TL0010: for each rule and file past the limit, how many findings were not listed. */
  findingLimitNotes(): void {
    const note = this.#rulesById.get('TL0010');
    if (note === undefined) return;
    for (const { count, rule, file } of this.#counts.values()) {
      if (count <= FINDINGS_PER_RULE_AND_FILE || this.enabledFor(note, file) === undefined) continue;
      const data = {
        rule: `${rule.meta.id} ${rule.meta.name}`,
        count: count - FINDINGS_PER_RULE_AND_FILE,
        limit: FINDINGS_PER_RULE_AND_FILE,
      };
      this.push(note, 'warn', renderTemplate(note.meta.messages.more ?? '', data), { file, range: [0, 0] }, []);
    }
  }

  /** Dedupes, applies disable comments, reports the unused ones (TL0003) and sorts. */
  finish(partition: Partition): Diagnostic[] {
    const files = this.#entries.flatMap(({ config }) => config.files.map((entry) => entry.source));
    const unusedRule = this.options.fixesOnly === true ? undefined : this.#rulesById.get('TL0003');
    if (unusedRule === undefined) return finish(this.#raw, files, undefined, () => undefined);
    const ruleNames = (rules: Iterable<Rule>): Set<string> =>
      new Set([...rules].flatMap((rule) => [rule.meta.id.toLowerCase(), rule.meta.name]));
    const tools = [...this.#rulesById.values()].filter((rule) => rule.meta.language === 'tool');
    const ran = ruleNames([...[...partition.byLanguage.values()].flat(), ...partition.host, ...tools]);
    const known = ruleNames(this.#rulesById.values());
    // A disable for a rule that did not run (off, or skipped for lack of host facts) is not unused; a typo is.
    const reportUnused = (file: SourceFile, names: readonly string[]): Severity | undefined => {
      const setting = this.enabledFor(unusedRule, file);
      if (setting === undefined) return undefined;
      return names.length === 0 || names.some((name) => ran.has(name) || !known.has(name)) ? (setting.severity as Severity) : undefined;
    };
    return finish(this.#raw, files, unusedRule, reportUnused);
  }

  /** Calls a rule's `create` with the context every rule shares; `configs` are those its reports take their sections from. */
  private create(rule: Rule, create: (common: CommonContext) => Visitors, configs: readonly LanguageConfig[]): Visitors {
    const { unit, sizing } = this;
    const readBeyondConfig = this.#readBeyondConfig;
    const common: CommonContext = {
      options: resolveOptions(rule, this.selection.setting(rule, this.#roots[0] as SourceFile).options),
      get host() {
        readBeyondConfig.add(rule);
        return unit.host;
      },
      targets: unit.targets,
      get sizing() {
        readBeyondConfig.add(rule);
        return sizing;
      },
      report: (descriptor) => this.report(rule, descriptor, configs),
    };
    const timer = this.options.timer;
    if (timer === undefined) return create(common);
    return timer.visitors(
      rule.meta.id,
      timer.rule(rule.meta.id, () => create(common)),
    );
  }

  private report(rule: Rule, descriptor: ReportDescriptor<string>, configs: readonly LanguageConfig[]): void {
    const setting = this.enabledFor(rule, descriptor.at.file);
    if (setting === undefined || !this.admit(rule, descriptor.at.file)) return;
    const message = renderTemplate(rule.meta.messages[descriptor.messageId] ?? descriptor.messageId, descriptor.data);
    const severity = setting.explicit ? (setting.severity as Severity) : (descriptor.severity ?? (setting.severity as Severity));
    this.push(rule, severity, message, descriptor.at, this.contextOf(descriptor.at, configs), buildFix(rule, descriptor));
  }

  /** The enclosing sections or the option group of a located thing: its own `context`, else what its config's language says. */
  private contextOf(at: Located, configs: readonly LanguageConfig[]): readonly string[] {
    const own = (at as Located & { context?: readonly string[] }).context;
    if (own !== undefined) return own;
    for (const config of configs) {
      const language = this.languageOf(config);
      const context = language?.contextOf?.(config as never, at);
      if (context !== undefined) return context;
    }
    return [];
  }

  private languageOf(config: LanguageConfig): LanguageDefinition | undefined {
    const language = this.#entries.find((entry) => entry.config === config)?.language;
    return this.unit.languages.find((definition) => definition.id === language);
  }

  /** Counts a finding; false once its rule has listed the most it may in its file. */
  private admit(rule: Rule, file: SourceFile): boolean {
    const key = `${rule.meta.id}\0${file.path}`;
    const entry = this.#counts.get(key);
    if (entry === undefined) {
      this.#counts.set(key, { count: 1, rule, file });
      return true;
    }
    entry.count++;
    return entry.count <= FINDINGS_PER_RULE_AND_FILE;
  }

  private push(rule: Rule, severity: Severity, text: RenderedMessage, located: Located, context: readonly string[], fix?: Fix): void {
    const file = located.file;
    this.#raw.push({
      ruleId: rule.meta.id,
      ruleName: rule.meta.name,
      severity,
      message: printable(text.message),
      ...(text.detail === undefined ? {} : { detail: printable(text.detail) }),
      file,
      range: located.range,
      start: file.position(located.range[0]),
      end: file.position(located.range[1]),
      context: context.map(printable),
      ...(fix === undefined ? {} : { fix }),
    });
  }
}

function buildFix(rule: Rule, descriptor: ReportDescriptor<string>): Diagnostic['fix'] {
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

/** A message as rendered: the headline, and the detail when the template has one. */
export interface RenderedMessage {
  readonly message: string;
  readonly detail?: string;
}

export function renderTemplate(template: MessageTemplate, data: Readonly<Record<string, string | number>> | undefined): RenderedMessage {
  if (typeof template === 'string') return { message: render(template, data) };
  return { message: render(template.message, data), detail: render(template.detail, data) };
}

function render(template: string, data: Readonly<Record<string, string | number>> | undefined): string {
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
  unusedRule: Rule | undefined,
  reportUnused: (file: SourceFile, rules: readonly string[]) => Severity | undefined,
): Diagnostic[] {
  const seen = new Set<string>();
  const byFile = new Map<SourceFile, Diagnostic[]>();
  // Every file has its disable comments looked at only when the unused ones are reported (not in a fix pass).
  if (unusedRule !== undefined) for (const file of files) if (!byFile.has(file)) byFile.set(file, []);
  for (const diagnostic of raw) {
    const key = `${diagnostic.ruleId}\0${diagnostic.file.path}\0${diagnostic.range[0]}\0${diagnostic.range[1]}\0${diagnostic.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    appendTo(byFile, diagnostic.file, diagnostic);
  }
  const out: Diagnostic[] = [];
  for (const [file, diagnostics] of byFile) {
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
        message: printable(renderTemplate(unusedRule.meta.messages.unused ?? '', { rules: names }).message),
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
