import { defineApacheRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { contextError, directiveSpec } from '../../src/languages/apache/directives.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';

/** Sections inside which AllowOverride is read and ignored (core.c `set_override`, AH00114/AH00115). */
const USELESS_FOR_OVERRIDES: ReadonlyMap<string, string> = new Map(
  ['Location', 'LocationMatch', 'Files', 'FilesMatch', 'If', 'ElseIf', 'Else'].map((name) => [name.toLowerCase(), name]),
);

export default defineApacheRule({
  meta: {
    id: 'AP1009',
    name: 'misplaced-directive',
    category: 'correctness',
    description:
      'A directive placed where httpd does not take it: server-wide settings inside <VirtualHost> or a directory section, AllowOverride outside <Directory>',
    defaultSeverity: 'error',
    recommended: true,
    messages: {
      refused: { message: '{{name}} cannot be set {{where}}, so httpd refuses to start; expected it {{expected}}', detail: '"{{error}}"' },
      uselessOverride: {
        message: '{{name}} inside <{{section}}> is ignored; expected it in the <Directory> of the files concerned',
        detail: 'httpd honours it only in <Directory>: {{code}}: "{{warning}}"',
      },
    },
  },
  create(ctx) {
    const apache = ctx.apache;
    // The wording quoted is httpd 2.4.71's ("not allowed in <Directory> context"; older releases say "not allowed here").
    if (!versionAtLeast(ctx.targets.httpd, '2.4')) return {};
    const mpm = apache.mpm?.name;

    const checkOverride = (use: ApacheDirectiveUse): void => {
      const container = apache.container(use);
      const name = use.node.name;
      if (container === undefined || container.name === 'virtualhost') {
        const canonical = use.name === 'allowoverride' ? 'AllowOverride' : 'AllowOverrideList';
        const error = container === undefined ? `${canonical} not allowed here` : `${canonical} not allowed in <VirtualHost> context`;
        ctx.report({
          at: use,
          messageId: 'refused',
          data: {
            name,
            where: container === undefined ? 'at server level' : 'in <VirtualHost>',
            error,
            expected: 'inside a <Directory> section',
          },
        });
        return;
      }
      const section = USELESS_FOR_OVERRIDES.get(container.name);
      if (section === undefined) return;
      ctx.report({
        at: use,
        messageId: 'uselessOverride',
        severity: 'warn',
        data: { name, section, ...uselessWarning(use) },
      });
    };

    return {
      directive: {
        '*': (use) => {
          if (use.name === 'allowoverride' || use.name === 'allowoverridelist') {
            checkOverride(use);
            return;
          }
          const spec = directiveSpec(use.name);
          if (spec === undefined || spec.context === 'anywhere') return;
          // Unknown commands (another MPM's, a module not loaded) fail differently: AP1008 and the reader's business.
          if (spec.mpms !== undefined && (mpm === undefined || !spec.mpms.includes(mpm))) return;
          if (spec.module !== undefined && !apache.hasModule(spec.module)) return;
          const container = apache.container(use);
          const error = contextError(spec, container?.name);
          if (error === undefined) return;
          const where = container === undefined ? 'at server level' : `inside <${container.node.name}>`;
          const expected =
            spec.context === 'directory'
              ? 'inside a <Directory>, <Location> or <Files> section'
              : spec.context === 'server'
                ? 'at server level, outside any section'
                : 'at server level or in <VirtualHost>';
          ctx.report({ at: use, messageId: 'refused', data: { name: use.node.name, where, error, expected } });
        },
      },
    };
  },
});

/** httpd's warning, with the file as tune-lint shows it. */
function uselessWarning(use: ApacheDirectiveUse): { code: string; warning: string } {
  const line = use.file.position(use.range[0]).line;
  return use.name === 'allowoverride'
    ? { code: 'AH00114', warning: `Useless use of AllowOverride in line ${line} of ${use.file.displayPath}.` }
    : { code: 'AH00115', warning: `Useless use of AllowOverrideList at ${use.file.displayPath}:${line}` };
}
