import type { StreamingFormatter } from './types.js';

export const FORMAT_NAMES = ['stylish', 'json', 'sarif', 'diff'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];

/** Loads only the formatter a run prints with. */
export async function loadFormatter(name: FormatName): Promise<StreamingFormatter> {
  switch (name) {
    case 'json':
      return (await import('./json.js')).writeJsonReport;
    case 'sarif':
      return (await import('./sarif.js')).writeSarifReport;
    case 'diff':
      return (await import('./diff.js')).writeDiffReport;
    default:
      return (await import('./stylish.js')).writeStylishReport;
  }
}
