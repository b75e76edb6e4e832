import * as path from 'node:path';
import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { replaceApacheArg } from '../../src/languages/apache/edits.js';
import { hasWildcard } from '../../src/util/fnmatch.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';

export default defineRule('apache', {
  meta: {
    id: 'AP1003',
    name: 'include-whole-directory',
    category: 'correctness',
    description: 'Include of a directory reads every file in it, backups and hidden files included',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      strayFiles: {
        message: '{{directive}} {{pattern}} reads {{count}} that *.conf would skip; expected {{directive}} {{suggested}}',
        detail: 'it reads every file under {{dir}} ({{files}}); check whether those files are meant to be read before narrowing it',
      },
      wholeDirectory: {
        message: '{{directive}} {{pattern}} reads every file under {{dir}}; expected {{directive}} {{suggested}}',
        detail: '{{count}} now, all *.conf, but a backup or editor file left there later is read too',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    // The directory semantics (every entry, recursively, dotfiles too) are 2.4's, as verified with apache2.
    if (!versionAtLeast(ctx.targets.httpd, '2.4')) return {};
    const check = (use: ApacheDirectiveUse): void => {
      const outcome = use.include;
      if (outcome === undefined || outcome.error !== undefined || outcome.files.length === 0 || hasWildcard(outcome.pattern)) return;
      const dir = path.posix.resolve(apache.serverRoot, outcome.pattern);
      // A plain file, or a ServerRoot that changed after this line: nothing to say.
      if (!outcome.files.every((file) => file.startsWith(`${dir}/`))) return;
      const relative = outcome.files.map((file) => file.slice(dir.length + 1));
      const stray = relative.filter((name) => !matchesConfGlob(name));
      const suggested = `${outcome.pattern.replace(/\/+$/, '')}/*.conf`;
      const data = { directive: use.node.name, pattern: outcome.pattern, dir: apache.fs.display(apache.fs.locate(dir)), suggested };
      if (stray.length > 0) {
        const listed = stray.slice(0, 3).join(', ') + (stray.length > 3 ? ` and ${stray.length - 3} more` : '');
        ctx.report({ at: use, messageId: 'strayFiles', data: { ...data, count: plural(stray.length, 'file'), files: listed } });
        return;
      }
      // Same files in the same order (strcmp in both cases), so the change only guards the future.
      ctx.report({
        at: use,
        messageId: 'wholeDirectory',
        severity: 'info',
        data: { ...data, count: plural(relative.length, 'file') },
        fix: () => replaceApacheArg(use, 0, suggested),
      });
    };
    return { directive: { include: check, includeoptional: check } };
  },
});

/** What `*.conf` matches in the directory itself: no subdirectories, no leading dot (APR_FNM_PERIOD). */
function matchesConfGlob(name: string): boolean {
  return !name.includes('/') && !name.startsWith('.') && name.endsWith('.conf');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
