import type { Formatter } from './types.js';

export const FORMAT_NAMES = ['stylish', 'json', 'sarif', 'diff'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

/** Loads only the formatter a run prints with. */
export async function loadFormatter(name: FormatName): Promise<Formatter> {
  switch (name) {
    case 'json':
      return (await import('./json.js')).formatJson;
    case 'sarif':
      return (await import('./sarif.js')).formatSarif;
    case 'diff':
      return (await import('./diff.js')).formatDiff;
    default:
      return (await import('./stylish.js')).formatStylish;
  }
}
