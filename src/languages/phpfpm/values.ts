/**
 * Values as PHP and php-fpm read them. A PHP size (`memory_limit = 128M`) is
 * an integer with an optional K, M or G suffix in either case
 * (zend_atol); -1 means no limit. A php-fpm time
 * (`request_terminate_timeout = 2m`) is an integer with an optional s, m, h
 * or d suffix, seconds without one (fpm_conf_set_time).
 */
const SIZE = /^\s*(-?\d+)\s*([kmg])?\s*$/i;
const TIME = /^\s*(\d+)\s*([smhd])?\s*$/i;
const SIZE_SHIFT: Readonly<Record<string, number>> = { k: 10, m: 20, g: 30 };
const TIME_FACTOR: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Bytes, -1 for no limit; undefined when PHP would not read it as a size. */
export function phpSize(text: string): number | undefined {
  const match = SIZE.exec(text);
  if (match === null) return undefined;
  const value = Number(match[1]);
  const suffix = match[2]?.toLowerCase();
  return value < 0 || suffix === undefined ? value : value * 2 ** (SIZE_SHIFT[suffix] as number);
}

/** Seconds; undefined when php-fpm refuses the value. */
export function fpmSeconds(text: string): number | undefined {
  const match = TIME.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * (TIME_FACTOR[(match[2] ?? 's').toLowerCase()] as number);
}
