import type { HostFacts } from '../host/facts.js';
import type { ApacheConfig, ApacheDirectiveUse, ApacheSectionUse } from '../languages/apache/model.js';
import type { MycnfConfig, MycnfOptionUse } from '../languages/mycnf/model.js';
import type { SourceFile } from '../core/source-file.js';
import type { Targets } from '../core/targets.js';
import type { Language, Located, Position, Range, Severity, TextEdit } from '../core/types.js';
import type { Sizing } from '../analysis/sizing.js';

export type { Language, Located, Position, Range, Severity, TextEdit } from '../core/types.js';
export type SeveritySetting = Severity | 'off';
type RuleLanguage = Language | 'host' | 'tool';
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
  readonly message: string;
  readonly file: SourceFile;
  readonly range: Range;
  readonly start: Position;
  readonly end: Position;
  /** Enclosing sections or the option group, outermost first: `<VirtualHost *:80>`, `[mysqld]`. */
  readonly context: readonly string[];
  readonly fix?: Fix;
}

export interface RuleMeta<MessageId extends string = string> {
  /** Stable forever: AP/MY/HO/TL + four digits; the thousands digit is the category. */
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
  readonly messages: Readonly<Record<MessageId, string>>;
}

export type RuleOptions = Readonly<Record<string, number | string | boolean | readonly string[]>>;

export interface Rule<Options extends RuleOptions = RuleOptions, MessageId extends string = string> {
  readonly meta: RuleMeta<MessageId>;
  readonly defaultOptions: Options;
  create(ctx: RuleContext<Options, MessageId>): Visitors;
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

export interface RuleContext<Options extends RuleOptions, MessageId extends string> {
  readonly options: Options;
  readonly apache: ApacheConfig | undefined;
  readonly mycnf: MycnfConfig | undefined;
  readonly host: HostFacts;
  readonly targets: Targets;
  /** The sizing model (src/analysis/sizing.ts), computed once per run from both configs and the host facts. */
  readonly sizing: Sizing;
  report(descriptor: ReportDescriptor<MessageId>): void;
}

/** Handlers keyed by lower-case directive/section name or normalised option name; `*` matches all. */
export interface Visitors {
  readonly directive?: Readonly<Record<string, (use: ApacheDirectiveUse) => void>>;
  readonly section?: Readonly<Record<string, (use: ApacheSectionUse) => void>>;
  readonly option?: Readonly<Record<string, (use: MycnfOptionUse) => void>>;
  /** Runs once after every visitor, for checks over the whole model. */
  readonly end?: () => void;
}
