import * as path from 'node:path';
import type { Language } from '../core/types.js';

/**
 * Which reader a file needs, from its name and, when the name says nothing,
 * its first meaningful line: an option-file group header (`[mysqld]`) or an
 * `!include` means my.cnf; anything else is read as Apache.
 */
export function detectLanguage(filePath: string, text: string | undefined): Language {
  const byName = languageFromName(filePath);
  if (byName !== undefined) return byName;
  if (text !== undefined) {
    for (const line of text.split('\n', 200)) {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue;
      return /^\[[^\]]*\]/.test(trimmed) || /^!\s*include(dir)?\s/.test(trimmed) ? 'mycnf' : 'apache';
    }
  }
  return 'apache';
}

/** The language a file name alone tells, if any. */
export function languageFromName(filePath: string): Language | undefined {
  const base = path.basename(filePath).toLowerCase();
  if (base === 'php-fpm.conf' || /\/(fpm\/pool\.d|php-fpm\.d)\/[^/]+\.conf$/.test(filePath)) return 'phpfpm';
  if (/\.(cnf|ini)$/.test(base)) return 'mycnf';
  if (/\.(conf|load)$/.test(base) || base === '.htaccess') return 'apache';
  return undefined;
}
