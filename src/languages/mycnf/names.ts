import { asciiLowerCase } from '../../util/ascii.js';

/**
 * The prefixes my_getopt strips from an option name it does not know, in the
 * order it tries them. `autoset` exists in MariaDB only.
 */
export const OPTION_PREFIXES = ['skip', 'disable', 'enable', 'maximum', 'loose', 'autoset'] as const;
export type OptionPrefix = (typeof OPTION_PREFIXES)[number];

/**
 * Server options whose own name starts with a prefix word, so the prefix is
 * part of the name and not stripped. From `mariadbd --help --verbose`
 * (MariaDB 10.11) and the MySQL server option reference (skip-stack-trace,
 * skip-new, skip-replica-start). `skip-external-locking` is not one of them:
 * the option is `external-locking` and the skip- form turns it off.
 */
const PREFIXED_OPTION_NAMES: ReadonlySet<string> = new Set([
  'skip_grant_tables',
  'skip_host_cache',
  'skip_name_resolve',
  'skip_networking',
  'skip_new',
  'skip_replica_start',
  'skip_show_database',
  'skip_slave_start',
  'skip_stack_trace',
]);

export interface OptionName {
  /** As written. */
  readonly raw: string;
  /** Lower case, `-` as `_`, prefixes kept: how names compare. */
  readonly normalised: string;
  /** The option it sets: `normalised` without the prefixes the server strips, or the full name a unique prefix stands for. */
  readonly key: string;
  /** Prefixes stripped, outermost first (`loose-skip-x` -> ['loose', 'skip']); only the last one sets `maximum`/`implied`. */
  readonly prefixes: readonly OptionPrefix[];
  /** `loose-`: an unknown option is a warning instead of a startup error. */
  readonly loose: boolean;
  /** `maximum-`: sets the upper limit a session may SET, not the value itself. */
  readonly maximum: boolean;
  /** The boolean a bare `skip-`/`disable-` (false) or `enable-` (true) form sets; undefined without such a prefix. */
  readonly implied: boolean | undefined;
  /** Set when the written key was a unique prefix the server expanded (MariaDB, MySQL <= 5.6): the key as written. */
  readonly abbreviation?: string;
  /** Set when the option is another name for the variable `key` (MariaDB's `table_cache` for `table_open_cache`): the option's own name. */
  readonly alias?: string;
}

/** Option names compare in ASCII case alone (`\u212Aey_buffer_size` is no key_buffer_size to the server), `-` as `_`. */
export function normaliseKey(name: string): string {
  return asciiLowerCase(name).replaceAll('-', '_');
}

/**
 * Normalises an option name without knowing the server's option list: strips
 * special prefixes from the outside in until the rest is a name in
 * PREFIXED_OPTION_NAMES or has no prefix left. The model refines this per
 * target (abbreviations, options the target knows).
 */
export function normaliseOptionName(raw: string): OptionName {
  const normalised = normaliseKey(raw);
  const prefixes: OptionPrefix[] = [];
  let key = normalised;
  for (;;) {
    if (PREFIXED_OPTION_NAMES.has(key)) break;
    const prefix = OPTION_PREFIXES.find((candidate) => key.startsWith(`${candidate}_`) && key.length > candidate.length + 1);
    if (prefix === undefined) break;
    prefixes.push(prefix);
    key = key.slice(prefix.length + 1);
  }
  return withPrefixes(raw, normalised, key, prefixes);
}

export function withPrefixes(
  raw: string,
  normalised: string,
  key: string,
  prefixes: readonly OptionPrefix[],
  expansion: { readonly abbreviation?: string | undefined; readonly alias?: string | undefined } = {},
): OptionName {
  // Only the prefix stripped last decides (handle_options switches on it once the name is found):
  // `loose-skip-x` turns x off, `skip-loose-x` only makes x loose.
  const last = prefixes[prefixes.length - 1];
  return {
    raw,
    normalised,
    key,
    prefixes,
    loose: prefixes.includes('loose'),
    maximum: last === 'maximum',
    implied: last === 'skip' || last === 'disable' ? false : last === 'enable' ? true : undefined,
    ...(expansion.abbreviation === undefined ? {} : { abbreviation: expansion.abbreviation }),
    ...(expansion.alias === undefined ? {} : { alias: expansion.alias }),
  };
}

/**
 * The boolean an option line sets, as my_getopt decides it: `skip-x`/`disable-x`
 * set false unless the value is exactly `0` (double negation), `enable-x` sets
 * true unless it is exactly `0`; otherwise ON/TRUE/1 and OFF/FALSE/0 in any
 * case. Undefined for any other value, which the server ignores with a warning
 * ("ignoring option '--x' due to invalid value 'yes'").
 */
export function booleanValue(name: OptionName, value: string | undefined): boolean | undefined {
  if (name.implied !== undefined) return value === '0' ? !name.implied : name.implied;
  if (value === undefined) return true;
  const lower = value.toLowerCase();
  if (lower === '1' || lower === 'on' || lower === 'true') return true;
  if (lower === '0' || lower === 'off' || lower === 'false') return false;
  return undefined;
}

/**
 * `set-variable = name=value` (and `set_variable`), the pre-5.5 way to set a
 * variable: what it meant, for a fix that rewrites it. Every supported server
 * rejects the line itself as an unknown variable.
 */
export function legacySetVariable(name: OptionName, value: string | undefined): { name: OptionName; value: string } | undefined {
  if (name.key !== 'set_variable' || value === undefined) return undefined;
  const equals = value.indexOf('=');
  if (equals <= 0) return undefined;
  const inner = value.slice(0, equals).trim();
  if (inner === '') return undefined;
  return { name: normaliseOptionName(inner), value: value.slice(equals + 1).trim() };
}
