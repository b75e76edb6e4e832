import { versionAtLeast, type DatabaseTarget } from '../../core/targets.js';

export type ServerSize = { readonly bytes: number; readonly warning?: string } | { readonly error: string };

const UINT64 = (1n << 64n) - 1n;
const SUFFIX_SHIFT: Readonly<Record<string, bigint>> = { k: 10n, m: 20n, g: 30n, t: 40n, p: 50n, e: 60n };

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
  const large = acceptsLargeSuffixes(target);
  const legal = large ? 'K, M, G, T, P, E' : 'K, M, G';
  if (suffix === undefined) return withWarnings({ bytes: toNumber(number.value) }, value, number.end, undefined);
  const shift = SUFFIX_SHIFT[suffix.toLowerCase()];
  if (shift === undefined || (!large && shift > 30n)) {
    return {
      error: `Unknown suffix '${suffix}' used for variable '${variable}' (value '${value}'). Legal suffix characters are: ${legal}`,
    };
  }
  // MariaDB multiplies without an overflow check: 16E wraps to 0.
  const bytes = (number.value << shift) & UINT64;
  const wrapped = number.value << shift > UINT64 ? `${value} is beyond 2^64 and wraps to ${bytes}` : undefined;
  return withWarnings({ bytes: toNumber(bytes) }, value, number.end, wrapped);
}

function parseMysql(value: string, target: DatabaseTarget, variable: string): ServerSize {
  if (value === '') return { error: `Empty value for '${variable}' specified` };
  if (/^[\t\n\v\f\r ]*-/.test(value)) {
    return { bytes: 0, warning: `negative value '${value}' for unsigned ${variable}; the server uses the variable's minimum instead` };
  }
  const number = strtoull(value);
  const large = acceptsLargeSuffixes(target);
  if (number.outOfRange) return { error: large ? `Incorrect unsigned integer value: '${value}'` : `Incorrect integer value: '${value}'` };
  const suffix = value[number.end];
  if (suffix === undefined) return withWarnings({ bytes: toNumber(number.value) }, value, number.end, undefined);
  const shift = SUFFIX_SHIFT[suffix.toLowerCase()];
  if (shift === undefined || (!large && shift > 30n))
    return { error: `Unknown suffix '${suffix}' used for variable '${variable}' (value '${value}')` };
  const product = number.value << shift;
  if (product > UINT64) {
    if (large) return { error: `Incorrect unsigned integer value: '${value}'` };
    return withWarnings({ bytes: toNumber(product & UINT64) }, value, number.end, `${value} is beyond 2^64 and wraps`);
  }
  return withWarnings({ bytes: toNumber(product) }, value, number.end, undefined);
}

function withWarnings(result: { bytes: number }, value: string, numberEnd: number, extra: string | undefined): ServerSize {
  const notes: string[] = [];
  if (extra !== undefined) notes.push(extra);
  if (value === '') notes.push('an empty value sets 0');
  else if (numberEnd === 0) notes.push(`'${value}' has no digits and sets 0`);
  const ignored = value.slice(numberEnd + 1);
  if (ignored !== '') notes.push(`'${ignored}' after the suffix is ignored`);
  return notes.length === 0 ? result : { ...result, warning: notes.join('; ') };
}

function toNumber(value: bigint): number {
  return Number(value);
}

/** Writes bytes the way an admin would in my.cnf: the largest suffix that divides it exactly (`1536M`, `64K`, `1000`). */
export function formatServerSize(bytes: number, target: DatabaseTarget): string {
  const units: [string, number][] = acceptsLargeSuffixes(target)
    ? [
        ['E', 2 ** 60],
        ['P', 2 ** 50],
        ['T', 2 ** 40],
        ['G', 2 ** 30],
        ['M', 2 ** 20],
        ['K', 2 ** 10],
      ]
    : [
        ['G', 2 ** 30],
        ['M', 2 ** 20],
        ['K', 2 ** 10],
      ];
  if (bytes > 0) {
    for (const [suffix, size] of units) if (bytes % size === 0) return `${bytes / size}${suffix}`;
  }
  return String(bytes);
}
