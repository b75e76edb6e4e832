import { defineRule } from '../../src/engine/define-rule.js';
import type { Located } from '../../src/engine/types.js';

const REFERENCE = /\$\{([^}]*)\}/g;

export default defineRule('apache', {
  meta: {
    id: 'AP1004',
    name: 'undefined-variable',
    category: 'correctness',
    description: 'A ${NAME} reference that neither an earlier Define nor the environment sets stays in the value literally',
    defaultSeverity: 'error',
    recommended: true,
    messages: {
      undefined: {
        message: '${{{name}}} is not defined here and stays literal; expected a Define {{name}} before this line, or the right name',
        detail:
          'no Define above this line sets it; {{environment}}{{where}}; httpd warns "AH00111: Config variable ${{{name}}} is not defined" and keeps the text as written',
      },
      definedLater: {
        message: '${{{name}}} is used before "Define {{name}}" at {{defined}}; expected the Define before this line',
        detail: 'httpd expands as it reads: it warns "AH00111: Config variable ${{{name}}} is not defined" and keeps the text as written',
      },
      noValue: {
        message: '${{{name}}} refers to "Define {{name}}", which sets no value; expected Define {{name}} <value>',
        detail: 'httpd warns "AH00111: Config variable ${{{name}}} is not defined" and keeps the text as written',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    const sources = apache.environmentSources;
    const environment =
      sources.length === 0
        ? 'no environment was given with --env, --env-file or env: in .tune-lint.yaml'
        : `the environment read from ${sources.join(', ')} does not set it`;
    const report = (at: Located & { readonly order: number }, names: readonly string[]): void => {
      for (const name of new Set(names)) {
        const later = apache
          .named('define')
          .find((define) => define.order > at.order && define.args[0] === name && define.args[1] !== undefined);
        if (later !== undefined && apache.fragment === undefined) {
          const defined = `${later.file.displayPath}:${later.file.position(later.range[0]).line}`;
          ctx.report({ at, messageId: 'definedLater', data: { name, defined } });
          continue;
        }
        const bare = apache.defines.has(name) && apache.defines.get(name) === undefined;
        // A fragment's variables come from the main config and the service's environment, which were not read.
        if (!bare && apache.fragment !== undefined) continue;
        // Debian's apache2ctl exports APACHE_* from envvars; without that file next to apache2.conf they stay unset.
        const where = name.startsWith('APACHE_') ? ' (Debian sets APACHE_* in /etc/apache2/envvars, which apache2ctl reads)' : '';
        ctx.report({ at, messageId: bare ? 'noValue' : 'undefined', data: { name, where, environment } });
      }
    };
    return {
      // From the model's list of the lines with a `${`, in read order: the directives, the sections, then the conditionals.
      end() {
        const { uses, sections } = apache.referencing;
        for (const use of uses) if (use.unresolved.length > 0) report(use, use.unresolved);
        for (const section of sections) if (!section.conditional) report(section, unresolvedIn(section.argsText));
        for (const section of sections) if (section.conditional) report(section, unresolvedIn(section.argsText));
      },
    };
  },
});

/**
 * The references left in expanded text: httpd keeps an unknown `${NAME}`
 * literally and skips names with a colon (mod_rewrite and expression syntax).
 */
function unresolvedIn(expanded: string): string[] {
  return [...expanded.matchAll(REFERENCE)].map((match) => match[1] as string).filter((name) => !name.includes(':'));
}
