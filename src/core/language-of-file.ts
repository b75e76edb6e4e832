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
  const names = languages.map((language) => language.detect.byName(hostPath));
  const byName = languages[names.indexOf('exact')] ?? languages[names.indexOf('extension')];
  if (head !== undefined) {
    let claimed: AnyLanguageDefinition | undefined;
    for (const language of languages) {
      const said = language.detect.byContent?.(head);
      if (said === undefined) continue;
      if (said !== 'claims') return { refused: said.refused };
      claimed ??= language;
    }
    if (claimed !== undefined) return { language: claimed, byName };
  }
  if (byName !== undefined) return { language: byName, byName };
  const looked = head === undefined ? undefined : languages.find((language) => language.detect.looksLike?.(head) === true);
  const chosen = looked ?? languages.find((language) => language.detect.fallback === true) ?? languages[0];
  if (chosen === undefined) throw new Error('no language is registered');
  return { language: chosen, byName };
}
