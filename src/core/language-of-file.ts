import type { AnyLanguageDefinition } from './language.js';

/** The language a main file is read as, and whether its name alone would have said another (or none). */
export type LanguageChoice =
  { readonly language: AnyLanguageDefinition; readonly byName: AnyLanguageDefinition | undefined } | { readonly refused: string };

/**
 * Which reader a main file needs, asked of each language in turn: a kind of
 * file next to them that tune-lint does not read is refused (php.ini); first
 * lines that are surely one language's win (a php-fpm pool named `.conf`);
 * then the name, an exact one (`php-fpm.conf`) before an extension
 * (`.conf`); then first lines that look like a language's; then the
 * language read when nothing tells.
 */
export function languageOfFile(languages: readonly AnyLanguageDefinition[], hostPath: string, head: string | undefined): LanguageChoice {
  const byName =
    languages.find((language) => language.detect.byName(hostPath) === 'exact') ??
    languages.find((language) => language.detect.byName(hostPath) === 'extension');
  if (head !== undefined) {
    for (const language of languages) {
      const refused = language.detect.refuses?.(head);
      if (refused !== undefined) return { refused };
    }
    const claimed = languages.find((language) => language.detect.claims?.(head) === true);
    if (claimed !== undefined) return { language: claimed, byName };
  }
  if (byName !== undefined) return { language: byName, byName };
  const looked = head === undefined ? undefined : languages.find((language) => language.detect.looksLike?.(head) === true);
  const chosen = looked ?? languages.find((language) => language.detect.fallback === true) ?? languages[0];
  if (chosen === undefined) throw new Error('no language is registered');
  return { language: chosen, byName };
}
