import type { StreamingFormatter } from './types.js';

export const FORMAT_NAMES = ['stylish', 'json', 'sarif', 'diff', 'gcc', 'checkstyle', 'junit', 'gitlab'] as const;
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
    case 'gcc':
      return (await import('./ci.js')).writeGccReport;
    case 'checkstyle':
      return (await import('./ci.js')).writeCheckstyleReport;
    case 'junit':
      return (await import('./ci.js')).writeJunitReport;
    case 'gitlab':
      return (await import('./ci.js')).writeGitlabReport;
    default:
      return (await import('./stylish.js')).writeStylishReport;
  }
}
