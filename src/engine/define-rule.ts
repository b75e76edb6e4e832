import { parseFriendlySize } from '../util/units.js';
import type {
  ApacheRule,
  ApacheRuleContext,
  HostRule,
  HostRuleContext,
  MycnfRule,
  MycnfRuleContext,
  PhpFpmRule,
  PhpFpmRuleContext,
  OptionSpec,
  OptionSpecs,
  OptionValue,
  ResolvedOptions,
  Rule,
  RuleMeta,
  RuleOptions,
  ToolRule,
  Visitors,
} from './types.js';

/** A rule's meta as written in its module: the helper names the language. */
type MetaOf<MessageId extends string, Specs extends OptionSpecs> = Omit<RuleMeta<MessageId>, 'language' | 'options'> & {
  readonly options?: Specs;
};

interface RuleInput<MessageId extends string, Specs extends OptionSpecs, Context> {
  readonly meta: MetaOf<MessageId, Specs>;
  create(ctx: Context): Visitors;
}

/*
 * One helper per language, as ESLint's languages give each rule the
 * SourceCode of its own kind: an Apache rule's context holds the Apache
 * config it runs on, a my.cnf rule's the option files, so no rule guards for
 * a model it can never receive. The helpers also type `ctx.options` from the
 * option specs and the report's message ids from `messages`.
 */

/** The option specs of a rule without options: no keys at all, so `ctx.options.anything` is a type error. */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- the empty record is meant
type NoOptions = Record<never, never>;

export function defineApacheRule<const Specs extends OptionSpecs = NoOptions, MessageId extends string = string>(
  rule: RuleInput<MessageId, Specs, ApacheRuleContext<ResolvedOptions<Specs>, MessageId>>,
): ApacheRule {
  // The engine resolves ctx.options from meta.options, so they have the types the specs give.
  return {
    meta: { ...rule.meta, language: 'apache' },
    create: (ctx) => rule.create(ctx as ApacheRuleContext<ResolvedOptions<Specs>, MessageId>),
  };
}

export function defineMycnfRule<const Specs extends OptionSpecs = NoOptions, MessageId extends string = string>(
  rule: RuleInput<MessageId, Specs, MycnfRuleContext<ResolvedOptions<Specs>, MessageId>>,
): MycnfRule {
  // The engine resolves ctx.options from meta.options, so they have the types the specs give.
  return {
    meta: { ...rule.meta, language: 'mycnf' },
    create: (ctx) => rule.create(ctx as MycnfRuleContext<ResolvedOptions<Specs>, MessageId>),
  };
}

export function definePhpFpmRule<const Specs extends OptionSpecs = NoOptions, MessageId extends string = string>(
  rule: RuleInput<MessageId, Specs, PhpFpmRuleContext<ResolvedOptions<Specs>, MessageId>>,
): PhpFpmRule {
  // The engine resolves ctx.options from meta.options, so they have the types the specs give.
  return {
    meta: { ...rule.meta, language: 'phpfpm' },
    create: (ctx) => rule.create(ctx as PhpFpmRuleContext<ResolvedOptions<Specs>, MessageId>),
  };
}

export function defineHostRule<const Specs extends OptionSpecs = NoOptions, MessageId extends string = string>(
  rule: RuleInput<MessageId, Specs, HostRuleContext<ResolvedOptions<Specs>, MessageId>>,
): HostRule {
  // The engine resolves ctx.options from meta.options, so they have the types the specs give.
  return {
    meta: { ...rule.meta, language: 'host' },
    create: (ctx) => rule.create(ctx as HostRuleContext<ResolvedOptions<Specs>, MessageId>),
  };
}

/** A finding of the tool itself: the readers and the engine report it; the rule is its id, name, severity and page. */
export function defineToolRule<MessageId extends string>(rule: { readonly meta: MetaOf<MessageId, NoOptions> }): ToolRule {
  return {
    meta: { ...rule.meta, language: 'tool' },
    create: () => {
      throw new Error(`${rule.meta.id} is reported by the engine, not run`);
    },
  };
}

/** An option's value as the rule receives it; undefined when a value the user wrote cannot be one (the loader says why). */
export function optionValue(spec: OptionSpec, value: unknown): OptionValue | undefined {
  return OPTION_READERS[spec.type](value);
}

const isNameList = (value: unknown): value is readonly string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

const wholeNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;

const OPTION_READERS: Readonly<Record<OptionSpec['type'], (value: unknown) => OptionValue | undefined>> = {
  names: (value) => (isNameList(value) ? value : undefined),
  size: (value) => (typeof value === 'string' ? parseFriendlySize(value) : wholeNumber(value)),
  share: (value) => (typeof value === 'number' && value > 0 && value <= 1 ? value : undefined),
  integer: wholeNumber,
  seconds: wholeNumber,
  number: (value) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined),
};

/** What each option type takes, in the words of an error message. */
export const OPTION_TYPE_WORDING: Readonly<Record<OptionSpec['type'], string>> = {
  names: 'a list of strings',
  size: 'a size like 64M, or a number of bytes',
  share: 'a number above 0 and at most 1',
  integer: 'a whole number of at least 0',
  seconds: 'a whole number of seconds',
  number: 'a number',
};

const resolvedDefaults = new WeakMap<Rule, RuleOptions>();

/** A rule's options: its defaults, with what the user set (already checked by the loader) over them. */
export function resolveOptions(rule: Rule, user: RuleOptions): RuleOptions {
  let defaults = resolvedDefaults.get(rule);
  if (defaults === undefined) {
    const entries = Object.entries(rule.meta.options ?? {}).map(([key, spec]) => {
      const value = optionValue(spec, spec.default);
      if (value === undefined) throw new Error(`${rule.meta.id}: the default of option ${key} is not ${OPTION_TYPE_WORDING[spec.type]}`);
      return [key, value] as const;
    });
    defaults = Object.freeze(Object.fromEntries(entries));
    resolvedDefaults.set(rule, defaults);
  }
  return Object.keys(user).length === 0 ? defaults : { ...defaults, ...user };
}
