import { lookupTable } from './lookup.js';
/** Binary units, the ones every size in tune-lint is counted in. */
export const KIB = 1024;
export const MIB = KIB * 1024;
export const GIB = MIB * 1024;
const TIB = GIB * 1024;

const FRIENDLY_UNITS: Readonly<Record<string, number>> = lookupTable({
  '': 1,
  b: 1,
  k: KIB,
  kb: KIB,
  kib: KIB,
  m: MIB,
  mb: MIB,
  mib: MIB,
  g: GIB,
  gb: GIB,
  gib: GIB,
  t: TIB,
  tb: TIB,
  tib: TIB,
});

/** The units {@link parseFriendlySize} takes, lower case; it compares them without case. */
export const FRIENDLY_SIZE_UNITS: readonly string[] = Object.keys(FRIENDLY_UNITS).filter((unit) => unit !== '');

/**
 * Parses a size given by a person on our own command line or in our own YAML:
 * `512M`, `1.5G`, `2GiB`, `20MB`, `1048576`. Units are binary (1K = 1024), as in
 * every tool admins use for RAM. Returns undefined when the text is not a size.
 * Server option values use their own stricter parsers (see languages/mycnf).
 */
export function parseFriendlySize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!match) return undefined;
  const factor = FRIENDLY_UNITS[(match[2] ?? '').toLowerCase()];
  if (factor === undefined) return undefined;
  const bytes = Math.round(Number(match[1]) * factor);
  return Number.isFinite(bytes) ? bytes : undefined;
}

/** Formats bytes for messages: `250 MiB`, `2.9 GiB`, `512 KiB`, `17 B`. */
export function formatBytes(bytes: number): string {
  const abs = Math.abs(bytes);
  const [unit, size] =
    abs >= TIB ? ['TiB', TIB] : abs >= GIB ? ['GiB', GIB] : abs >= MIB ? ['MiB', MIB] : abs >= KIB ? ['KiB', KIB] : ['B', 1];
  const value = bytes / size;
  const digits = size === 1 || Number.isInteger(value) || Math.abs(value) >= 100 ? 0 : 1;
  return `${value.toFixed(digits).replace(/\.0$/, '')} ${unit}`;
}

/** Formats a share as a percentage for messages: 0.5 -> `50%`, 0.125 -> `12.5%`. */
export function formatPercent(share: number): string {
  const percent = share * 100;
  return `${Number.isInteger(percent) ? percent : percent.toFixed(1)}%`;
}
