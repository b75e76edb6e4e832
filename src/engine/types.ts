import type { HostFacts } from '../core/host-facts.js';
import type { ConfigSet, LanguageConfigs, LanguageId, VisitorsOf } from '../core/language.js';
import type { SourceFile } from '../core/source-file.js';
import type { Targets } from '../core/targets.js';
import type { Located, Position, Range, Severity, TextEdit } from '../core/types.js';
import type { Sizing } from '../analysis/sizing.js';

export type { Located, Position, Range, Severity, TextEdit } from '../core/types.js';
export type SeveritySetting = Severity | 'off';
/** What a rule runs on: the configs of one language, every config of the host, or nothing (the tool's own findings). */
export type RuleLanguage = LanguageId | 'host' | 'tool';
type Category = 'correctness' | 'performance' | 'security' | 'deprecation' | 'style';

/**
 * `safe` fixes correct something already broken or renamed and keep what the
 * server does; `tune` fixes change a value because of host facts or policy.
 */
export type FixKind = 'safe' | 'tune';

export interface Fix {
  readonly kind: FixKind;
  readonly edits: readonly TextEdit[];
  /** Applied only in a pass where no other fix is pending: a budget computed over values other fixes still change. */
  readonly deferred?: boolean;
}

export interface Diagnostic {
  readonly ruleId: string;
  readonly ruleName: string;
  readonly severity: Severity;
  /** The headline: what was found and what is expected, with the numbers. */
  readonly message: string;
  /** The arithmetic, the sources of the figures and the server's own words, when the rule gives them. */
  readonly detail?: string;
  readonly file: SourceFile;
  readonly range: Range;
  readonly start: Position;
  readonly end: Position;
  /** Enclosing sections or the option group, outermost first: `<VirtualHost *:80>`, `[mysqld]`. */
  readonly context: readonly string[];
  readonly fix?: Fix;
}

/**
 * A message template: `{{name}}` placeholders filled from the report's data.
 * A headline alone, or a headline (what was found; what is expected, with the
 * numbers) and a detail (the arithmetic, the sources of the figures, the
 * server's own words), which stylish prints indented below the headline and
 * JSON and SARIF carry in a field of their own.
 */
export type MessageTemplate = string | { readonly message: string; readonly detail: string };

/**
 * The types a rule option can have, each read and checked the same way in
 * `.tune-lint.yaml` and shown the same way in the docs and the JSON Schema:
 * `size` is written `64M` (or a number of bytes) and reaches the rule as
 * bytes, `share` is above 0 and at most 1, `seconds` and `integer` are whole
 * numbers of at least 0, `names` a list of strings.
 */
export type OptionType = 'integer' | 'number' | 'share' | 'size' | 'seconds' | 'names';

export interface OptionSpec {
  readonly type: OptionType;
  /** A size as `64M`; a list for `names`; else a number. */
  readonly default: number | string | readonly string[];
  /** What the option does, as the docs' Options table and the JSON Schema say it. */
  readonly description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** An option's value as a rule receives it: bytes for a size, the list for names, else the number. */
export type OptionValue = number | readonly string[];

/** The options a rule's `create` receives, typed from its specs. */
export type ResolvedOptions<Specs extends OptionSpecs> = {
  readonly [Key in keyof Specs]: Specs[Key]['type'] extends 'names' ? readonly string[] : number;
};

/** Options as the engine and the config loader handle them, whatever the rule. */
export type RuleOptions = Readonly<Record<string, OptionValue>>;

export interface RuleMeta<MessageId extends string = string> {
  /** Stable forever: AP/MY/PF/HO/TL + four digits; the thousands digit is the category. */
  readonly id: string;
  /** kebab-case alias, accepted wherever an id is. */
  readonly name: string;
  readonly language: RuleLanguage;
  readonly category: Category;
  /** One sentence, no final period; the doc title and SARIF short description. */
  readonly description: string;
  readonly defaultSeverity: Severity;
  readonly recommended: boolean;
  /** The kind of fix the rule offers (a report may name another); a rule without one never fixes, and fix passes skip it. */
  readonly fix?: FixKind;
  /** Skipped, with one TL0004 note, when RAM is unknown. */
  readonly needsHost?: boolean;
  /** The rule's options, declared once: the config loader, the JSON Schema and the docs' Options table read them here. */
  readonly options?: OptionSpecs;
  readonly messages: Readonly<Record<MessageId, MessageTemplate>>;
}

export interface ReportDescriptor<MessageId extends string> {
  readonly at: Located;
  readonly messageId: MessageId;
  readonly data?: Readonly<Record<string, string | number>>;
  /** Return null to report without fixing (a comment, `${VAR}` or an ambiguous value is in the way). */
  readonly fix?: () => TextEdit | readonly TextEdit[] | null;
  /** Overrides meta.fix for this report (a rule may offer a safe fix for one case and a tune fix for another). */
  readonly fixKind?: FixKind;
  /** This finding's own severity when it differs by degree (a note near a limit, an error past it); a severity the user sets wins. */
  readonly severity?: Severity;
  /** The fix waits for a pass in which no other fix is pending (see Fix.deferred). */
  readonly deferFix?: boolean;
}

/** What every rule's `create` receives. */
interface RuleContextBase<Options extends RuleOptions, MessageId extends string> {
  readonly options: Options;
  readonly host: HostFacts;
  readonly targets: Targets;
  /** The sizing model (src/analysis/sizing.ts), computed once per run from the configs and the host facts. */
  readonly sizing: Sizing;
  report(descriptor: ReportDescriptor<MessageId>): void;
}

/** A language's rule runs once per config of that language on the host, and gets that config. */
export interface LanguageRuleContext<
  Id extends LanguageId,
  Options extends RuleOptions = RuleOptions,
  MessageId extends string = string,
> extends RuleContextBase<Options, MessageId> {
  readonly config: LanguageConfigs[Id];
}

/** A host rule runs once per host and sees every config linted for it. */
export interface HostRuleContext<Options extends RuleOptions = RuleOptions, MessageId extends string = string> extends RuleContextBase<
  Options,
  MessageId
> {
  readonly configs: ConfigSet;
}

/** The context a rule of this kind gets. */
export type RuleContextOf<
  Family extends LanguageId | 'host',
  Options extends RuleOptions = RuleOptions,
  MessageId extends string = string,
> = Family extends LanguageId ? LanguageRuleContext<Family, Options, MessageId> : HostRuleContext<Options, MessageId>;

interface RuleOf<Family extends RuleLanguage, Context> {
  readonly meta: RuleMeta & { readonly language: Family };
  create(ctx: Context): Visitors<Family>;
}

/** A rule of one language, as the engine holds it. */
export type LanguageRule<Id extends LanguageId = LanguageId> = { [L in Id]: RuleOf<L, LanguageRuleContext<L>> }[Id];
export type HostRule = RuleOf<'host', HostRuleContext>;
/** The tool's own findings (parse errors, includes, limits): reported by the readers and the engine, never by `create`. */
export type ToolRule = RuleOf<'tool', never>;

export type Rule = LanguageRule | HostRule | ToolRule;

/**
 * What a rule's `create` returns: `end`, which runs once after the config
 * was gone through, and the handlers its language dispatches (Apache's per
 * directive and section, my.cnf's per option).
 */
export type Visitors<Family extends RuleLanguage = RuleLanguage> = Family extends LanguageId ? VisitorsOf<Family> : VisitorsOf<'host'>;
