import { parseFriendlySize } from '../util/units.js';
import type { LanguageId } from '../core/language.js';
import type {
  OptionSpec,
  OptionSpecs,
  OptionValue,
  ResolvedOptions,
  Rule,
  RuleContextOf,
  RuleMeta,
  RuleOptions,
  ToolRule,
  Visitors,
} from './types.js';

/** A rule's meta as written in its module: the helper names the language. */
type MetaOf<MessageId extends string, Specs extends OptionSpecs> = Omit<RuleMeta<MessageId>, 'language' | 'options'> & {
  readonly options?: Specs;
};

interface RuleInput<MessageId extends string, Specs extends OptionSpecs, Family extends LanguageId | 'host'> {
  readonly meta: MetaOf<MessageId, Specs>;
  create(ctx: RuleContextOf<Family, ResolvedOptions<Specs>, MessageId>): Visitors<Family>;
}

/** The option specs of a rule without options: no keys at all, so `ctx.options.anything` is a type error. */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- the empty record is meant
type NoOptions = Record<never, never>;

/**
 * A rule of a language (or of the host), as ESLint's languages give each
 * rule the SourceCode of its own kind: `defineRule('apache', ...)` gets the
 * Apache config it runs on as `ctx.config`, typed, so no rule guards for a
 * model it can never receive; `defineRule('host', ...)` gets every config of
 * the host as `ctx.configs`. The helper also types `ctx.options` from the
 * option specs and the report's message ids from `messages`.
 */
export function defineRule<
  const Family extends LanguageId | 'host',
  const Specs extends OptionSpecs = NoOptions,
  MessageId extends string = string,
>(language: Family, rule: RuleInput<MessageId, Specs, Family>): Rule {
  // The engine resolves ctx.options from meta.options, so they have the types the specs give; it hands each rule the context of its language.
  return { meta: { ...rule.meta, language }, create: (ctx: never) => rule.create(ctx) } as unknown as Rule;
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
