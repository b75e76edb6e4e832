import * as path from 'node:path';
import { defineRule } from '../../src/engine/define-rule.js';

/** Names an editor, a package manager or an admin gives copies; inside an !includedir they are read like any other `.cnf`. */
const BACKUP_NAME =
  /(?:~|[._-](?:bak|backup|old|orig|save|saved|copy|disabled|dist|rpmsave|rpmnew|dpkg-old|dpkg-dist|dpkg-new|ucf-old|ucf-dist|swp))\.cnf$/i;

export default defineRule('mycnf', {
  meta: {
    id: 'MY1008',
    name: 'include-hazards',
    category: 'correctness',
    description:
      "An include reads files the admin may not expect: a hidden or backup .cnf in an !includedir, or a path relative to the server's working directory",
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      hidden: {
        message:
          '{{file}} is a hidden file the server reads from !includedir {{directory}}; expected it removed or renamed not to end in .cnf',
        detail: 'the server reads every name ending in .cnf, dot-files included',
      },
      backup: {
        message: '{{file}} looks like a copy and is read from !includedir {{directory}}; expected it removed or renamed not to end in .cnf',
        detail: 'the server reads every name ending in .cnf',
      },
      relative: {
        message: "!{{kind}} {{path}} is relative to the server's working directory; expected an absolute path",
        detail: 'not to the directory of {{including}}',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    return {
      end() {
        const missing = new Set(
          mycnf.problems.filter((problem) => problem.ruleId === 'TL0002').map((problem) => `${problem.file.path}\0${problem.range[0]}`),
        );
        const seen = new Set<string>();
        for (const entry of mycnf.files) {
          const from = entry.includedFrom;
          if (from !== undefined && entry.via === 'includedir') {
            const name = path.posix.basename(entry.source.displayPath);
            const messageId = name.startsWith('.') ? 'hidden' : BACKUP_NAME.test(name) ? 'backup' : undefined;
            if (messageId !== undefined) {
              ctx.report({
                at: { file: from.file, range: from.directive.range },
                messageId,
                data: { file: entry.source.displayPath, directory: from.directive.path },
              });
            }
          }
          if (seen.has(entry.source.path)) continue;
          seen.add(entry.source.path);
          for (const line of entry.document.lines) {
            if ((line.kind !== 'include' && line.kind !== 'includedir') || line.path === '' || line.path.startsWith('/')) continue;
            // A relative include that finds nothing is TL0002's, which says how the path was resolved.
            if (missing.has(`${entry.source.path}\0${line.range[0]}`)) continue;
            ctx.report({
              at: { file: entry.source, range: line.range },
              messageId: 'relative',
              data: { kind: line.kind, path: line.path, including: entry.source.displayPath },
            });
          }
        }
      },
    };
  },
});
