import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { contextError, directiveSpec, type DirectiveSpec } from '../../src/languages/apache/directives.js';
import type { ReportDescriptor } from '../../src/engine/types.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';

/** Sections inside which AllowOverride is read and ignored (core.c `set_override`, AH00114/AH00115). */
const USELESS_FOR_OVERRIDES: ReadonlyMap<string, string> = new Map(
  ['Location', 'LocationMatch', 'Files', 'FilesMatch', 'If', 'ElseIf', 'Else'].map((name) => [name.toLowerCase(), name]),
);

export default defineRule('apache', {
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
    const apache = ctx.config;
    // The wording quoted is httpd 2.4.71's ("not allowed in <Directory> context"; older releases say "not allowed here").
    if (!versionAtLeast(ctx.targets.httpd, '2.4')) return {};
    const mpm = apache.mpm?.name;

    /** AllowOverride and AllowOverrideList: refused outside <Directory>, ignored in the sections that are not one. */
    const overrideFinding = (use: ApacheDirectiveUse): Finding | undefined => {
      const container = apache.container(use);
      const name = use.node.name;
      if (container === undefined || container.name === 'virtualhost') {
        const canonical = use.name === 'allowoverride' ? 'AllowOverride' : 'AllowOverrideList';
        const error = container === undefined ? `${canonical} not allowed here` : `${canonical} not allowed in <VirtualHost> context`;
        return {
          at: use,
          messageId: 'refused',
          data: {
            name,
            where: container === undefined ? 'at server level' : 'in <VirtualHost>',
            error,
            expected: 'inside a <Directory> section',
          },
        };
      }
      const section = USELESS_FOR_OVERRIDES.get(container.name);
      if (section === undefined) return undefined;
      return { at: use, messageId: 'uselessOverride', severity: 'warn', data: { name, section, ...uselessWarning(use) } };
    };

    /** The table's entry for a name whose place httpd checks, as this config loads it; undefined for any other name. */
    const placedSpec = (name: string): DirectiveSpec | undefined => {
      const spec = directiveSpec(name);
      if (spec === undefined || spec.context === 'anywhere') return undefined;
      // Unknown commands (another MPM's, a module not loaded) fail differently: AP1008 and the reader's business.
      if (spec.mpms !== undefined && (mpm === undefined || !spec.mpms.includes(mpm))) return undefined;
      if (spec.module !== undefined && !apache.hasModule(spec.module)) return undefined;
      return spec;
    };

    const placeFinding = (use: ApacheDirectiveUse, spec: DirectiveSpec): Finding | undefined => {
      const container = apache.container(use);
      const error = contextError(spec, container?.name);
      if (error === undefined) return undefined;
      const where = container === undefined ? 'at server level' : `inside <${container.node.name}>`;
      const expected =
        spec.context === 'directory'
          ? 'inside a <Directory>, <Location> or <Files> section'
          : spec.context === 'server'
            ? 'at server level, outside any section'
            : 'at server level or in <VirtualHost>';
      return { at: use, messageId: 'refused', data: { name: use.node.name, where, error, expected } };
    };

    return {
      end() {
        // By name: the lines of a name httpd takes anywhere are not visited.
        const findings: Finding[] = [];
        for (const name of apache.directiveNames()) {
          const overrides = name === 'allowoverride' || name === 'allowoverridelist';
          const spec = overrides ? undefined : placedSpec(name);
          if (!overrides && spec === undefined) continue;
          for (const use of apache.named(name)) {
            const finding = spec === undefined ? overrideFinding(use) : placeFinding(use, spec);
            if (finding !== undefined) findings.push(finding);
          }
        }
        // In read order, as the lines were reported one by one.
        findings.sort((a, b) => a.at.order - b.at.order);
        for (const finding of findings) ctx.report(finding);
      },
    };
  },
});

type Finding = ReportDescriptor<'refused' | 'uselessOverride'> & { readonly at: ApacheDirectiveUse };

/** httpd's warning, with the file as tune-lint shows it. */
function uselessWarning(use: ApacheDirectiveUse): { code: string; warning: string } {
  const line = use.file.position(use.range[0]).line;
  return use.name === 'allowoverride'
    ? { code: 'AH00114', warning: `Useless use of AllowOverride in line ${line} of ${use.file.displayPath}.` }
    : { code: 'AH00115', warning: `Useless use of AllowOverrideList at ${use.file.displayPath}:${line}` };
}
