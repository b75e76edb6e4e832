import { versionAtLeast, type DatabaseTarget } from '../../core/targets.js';

/**
 * Something the server takes without refusing but reads otherwise than it
 * looks: `512MB` is 512M (`trailing`), `16E` wraps to 0 on MariaDB, `-5`
 * is the minimum on MySQL, `x` and an empty value are 0.
 */
export type SizeWarning =
  | { readonly kind: 'wraps' }
  | { readonly kind: 'negative' }
  | { readonly kind: 'empty' }
  | { readonly kind: 'no-digits' }
  /** What follows the suffix letter, which the server ignores; `read` is the number and suffix it takes. */
  | { readonly kind: 'trailing'; readonly read: string; readonly ignored: string };

export type ServerSize = { readonly bytes: number; readonly warnings: readonly SizeWarning[] } | { readonly error: string };

const UINT64 = (1n << 64n) - 1n;

/** The suffix letters of my_getopt, each with its power of two: one table for reading and writing sizes. */
const SUFFIXES: readonly (readonly [letter: string, shift: number])[] = [
  ['K', 10],
  ['M', 20],
  ['G', 30],
  ['T', 40],
  ['P', 50],
  ['E', 60],
];

/** The shift of a suffix letter (any case) the target takes; undefined for another letter. */
export function suffixShift(letter: string, target: DatabaseTarget): number | undefined {
  const shift = SUFFIXES.find(([known]) => known === letter.toUpperCase())?.[1];
  return shift === undefined || (shift > 30 && !acceptsLargeSuffixes(target)) ? undefined : shift;
}

/** The suffix letters the target takes, as its error message lists them. */
export function legalSuffixes(target: DatabaseTarget): string {
  return SUFFIXES.filter(([, shift]) => shift <= 30 || acceptsLargeSuffixes(target))
    .map(([letter]) => letter)
    .join(', ');
}

/** How a warning reads in a message. */
export function describeSizeWarning(warning: SizeWarning, value: string, variable: string): string {
  switch (warning.kind) {
    case 'wraps':
      return `${value} is beyond 2^64 and wraps`;
    case 'negative':
      return `negative value '${value}' for unsigned ${variable}; the server uses the variable's minimum instead`;
    case 'empty':
      return 'an empty value sets 0';
    case 'no-digits':
      return `'${value}' has no digits and sets 0`;
    case 'trailing':
      return `'${warning.ignored}' after the suffix is ignored`;
  }
}

/** True when the target's my_getopt knows T, P and E (MySQL 8.0.14, MariaDB 10.3: MariaDB/server PR #506). */
export function acceptsLargeSuffixes(target: DatabaseTarget): boolean {
  return target.product === 'mysql' ? versionAtLeast(target.version, '8.0.14') : versionAtLeast(target.version, '10.3');
}

interface Strtoull {
  readonly value: bigint;
  /** Index of the first character not consumed; 0 when no digits were found (C leaves endptr at the start). */
  readonly end: number;
  readonly outOfRange: boolean;
}

/** C `strtoull(s, &end, 10)`: leading blanks, an optional sign (a minus negates modulo 2^64), decimal digits. */
function strtoull(text: string): Strtoull {
  let i = 0;
  while (i < text.length && /[\t\n\v\f\r ]/.test(text[i] as string)) i++;
  let negative = false;
  if (text[i] === '+' || text[i] === '-') negative = text[i++] === '-';
  const digitsStart = i;
  while (i < text.length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
  if (i === digitsStart) return { value: 0n, end: 0, outOfRange: false };
  const magnitude = BigInt(text.slice(digitsStart, i));
  if (magnitude > UINT64) return { value: UINT64, end: i, outOfRange: true };
  return { value: negative ? -magnitude & UINT64 : magnitude, end: i, outOfRange: false };
}

/**
 * Parses a numeric option value exactly as the target's my_getopt does for an
 * unsigned variable: a decimal integer, then at most one suffix letter that is
 * checked (K M G, plus T P E where the target knows them, any case); whatever
 * follows the suffix letter is ignored (`512MB` is 512M on MariaDB 10.11 and in
 * MySQL's eval_num_suffix alike). Anything else is refused with the server's own
 * message, which stops it from starting. `bytes` is the value before the
 * variable's own range and block-size adjustment.
 */
export function parseServerSize(value: string, target: DatabaseTarget, variable = 'variable'): ServerSize {
  return target.product === 'mariadb' ? parseMariadb(value, target, variable) : parseMysql(value, target, variable);
}

function parseMariadb(value: string, target: DatabaseTarget, variable: string): ServerSize {
  if (value.startsWith('-')) return { error: `Incorrect unsigned value: '${value}' for ${variable}` };
  const number = strtoull(value);
  if (number.outOfRange) return { error: `Integer value out of range for uint64: '${value}' for ${variable}` };
  const suffix = value[number.end];
  if (suffix === undefined) return withWarnings(number.value, value, number.end, false);
  const shift = suffixShift(suffix, target);
  if (shift === undefined) {
    return {
      error: `Unknown suffix '${suffix}' used for variable '${variable}' (value '${value}'). Legal suffix characters are: ${legalSuffixes(target)}`,
    };
  }
  // MariaDB multiplies without an overflow check: 16E wraps to 0.
  const product = number.value << BigInt(shift);
  return withWarnings(product & UINT64, value, number.end, product > UINT64);
}

function parseMysql(value: string, target: DatabaseTarget, variable: string): ServerSize {
  if (value === '') return { error: `Empty value for '${variable}' specified` };
  if (/^[\t\n\v\f\r ]*-/.test(value)) return { bytes: 0, warnings: [{ kind: 'negative' }] };
  const number = strtoull(value);
  const large = acceptsLargeSuffixes(target);
  if (number.outOfRange) return { error: large ? `Incorrect unsigned integer value: '${value}'` : `Incorrect integer value: '${value}'` };
  const suffix = value[number.end];
  if (suffix === undefined) return withWarnings(number.value, value, number.end, false);
  const shift = suffixShift(suffix, target);
  if (shift === undefined) return { error: `Unknown suffix '${suffix}' used for variable '${variable}' (value '${value}')` };
  const product = number.value << BigInt(shift);
  if (product > UINT64 && large) return { error: `Incorrect unsigned integer value: '${value}'` };
  return withWarnings(product & UINT64, value, number.end, product > UINT64);
}

function withWarnings(bytes: bigint, value: string, numberEnd: number, wrapped: boolean): ServerSize {
  const warnings: SizeWarning[] = [];
  if (wrapped) warnings.push({ kind: 'wraps' });
  if (value === '') warnings.push({ kind: 'empty' });
  else if (numberEnd === 0) warnings.push({ kind: 'no-digits' });
  const ignored = value.slice(numberEnd + 1);
  if (ignored !== '') warnings.push({ kind: 'trailing', read: value.slice(0, numberEnd + 1).trim(), ignored });
  return { bytes: Number(bytes), warnings };
}

/** How formatServerSize writes: lower-case letters, and no larger suffix than a given one. */
interface SizeStyle {
  readonly lowercase?: boolean;
  readonly largestShift?: number;
}

/**
 * Writes bytes the way an admin would in my.cnf: the largest suffix the
 * target takes that divides it exactly (`1536M`, `64K`, `1000`).
 */
export function formatServerSize(bytes: number | bigint, target: DatabaseTarget, style: SizeStyle = {}): string {
  const value = BigInt(bytes);
  const lowercase = style.lowercase ?? false;
  if (value > 0n) {
    for (const [letter, shift] of [...SUFFIXES].reverse()) {
      if ((shift > 30 && !acceptsLargeSuffixes(target)) || shift > (style.largestShift ?? 60)) continue;
      const unit = 1n << BigInt(shift);
      if (value % unit === 0n) return `${value / unit}${lowercase ? letter.toLowerCase() : letter}`;
    }
  }
  return String(value);
}
