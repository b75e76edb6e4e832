import { defineRule } from '../../src/engine/define-rule.js';
import type { SourceFile } from '../../src/core/source-file.js';
import { EXEC_ON_READ_DIRECTIVES } from '../../src/languages/apache/names.js';

/** How httpd shows the three bytes EF BB BF in its messages. */
const BOM_ESCAPED = '\\xef\\xbb\\xbf';

export default defineRule('apache', {
  meta: {
    id: 'AP1013',
    name: 'utf8-bom',
    category: 'correctness',
    description: 'A UTF-8 byte order mark at the start of a file is read by httpd as part of the first word and stops it from starting',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      command: {
        message: 'a UTF-8 byte order mark starts the file, so httpd refuses to start; expected the file without it',
        detail:
          'httpd on Unix reads the mark as part of the first word: "Invalid command \'{{word}}\', perhaps misspelled or defined by a module not included in the server configuration"',
      },
      section: {
        message:
          'a UTF-8 byte order mark starts the file, so {{open}} opens no section and httpd refuses to start; expected the file without it',
        detail: 'httpd on Unix reads the mark as part of the first word: "</{{name}}> without matching <{{name}}> section"',
      },
      readTime: {
        message: 'a UTF-8 byte order mark starts the file, so httpd refuses to start; expected the file without it',
        detail:
          "httpd on Unix reads the mark as part of the first word, so line 1 is the unknown command '{{word}}' instead of a {{directive}} that runs while httpd reads the configuration",
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const seen = new Set<string>();
        for (const { source } of apache.files) {
          // The mark first: a file without one, nearly all of them, needs no entry among those seen.
          const length = bomLength(source);
          if (length === 0 || seen.has(source.path)) continue;
          seen.add(source.path);
          const first = /^[^\s]*/.exec(source.text.slice(length))?.[0] ?? '';
          const word = `${BOM_ESCAPED}${first}`;
          const at = { file: source, range: [0, length] as const };
          // The BOM is the one thing a dialect-keeping edit must not keep: removing it is the fix.
          const fix = () => ({ file: source, range: [0, length] as const, text: '' });
          const section = /^<([^/>\s]+)/.exec(first);
          if (section !== null) {
            ctx.report({ at, messageId: 'section', data: { open: `<${section[1] as string}`, name: section[1] as string }, fix });
          } else if (EXEC_ON_READ_DIRECTIVES.has(first.toLowerCase())) {
            ctx.report({ at, messageId: 'readTime', data: { word, directive: first }, fix });
          } else {
            ctx.report({ at, messageId: 'command', data: { word }, fix });
          }
        }
      },
    };
  },
});

/** A UTF-8 BOM as decoded text: one U+FEFF, or three latin1 characters when the rest of the file is not UTF-8. */
function bomLength(file: SourceFile): number {
  if (file.text.charCodeAt(0) === 0xfeff) return 1;
  return file.encoding === 'latin1' && file.text.startsWith('\u00ef\u00bb\u00bf') ? 3 : 0;
}
