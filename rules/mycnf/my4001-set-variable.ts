import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { legacySetVariable } from '../../src/languages/mycnf/names.js';
import { rewriteSetVariable } from '../../src/languages/mycnf/edits.js';
import { shownLine } from './support/intent.js';
import { printedArgument } from '../../src/languages/mycnf/parser.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY4001',
    name: 'set-variable',
    category: 'deprecation',
    description: 'set-variable = name=value is the pre-5.5 way to set a variable, which no current server accepts',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      removed: {
        message: '{{written}}: set-variable makes {{product}} refuse to start; expected {{expected}}',
        detail: 'set-variable was removed in MySQL 5.5: "unknown variable \'{{argument}}\'"',
      },
      loose: {
        message: '{{written}}: loose-set-variable is skipped, so {{inner}} is not set; expected {{expected}}',
        detail: 'set-variable was removed in MySQL 5.5; with loose- the server skips the line with a warning',
      },
      deprecated: {
        message: '{{written}}: set-variable is deprecated; expected {{expected}}',
        detail: 'deprecated since MySQL 5.0 and removed in 5.5',
      },
    },
  },
  create(ctx) {
    const target = ctx.targets.db;
    const removed = target.product === 'mariadb' || versionAtLeast(target.version, '5.5');
    const check = (use: MycnfOptionUse): void => {
      const legacy = legacySetVariable(use.name, use.value);
      const expected = legacy === undefined ? 'name = value' : `${legacy.name.raw} = ${legacy.value}`;
      const messageId = !removed ? 'deprecated' : use.name.loose ? 'loose' : 'removed';
      ctx.report({
        at: use,
        messageId,
        data: {
          written: shownLine(use),
          product: target.product === 'mysql' ? `MySQL ${target.version}` : `MariaDB ${target.version}`,
          argument: printedArgument(use.line, use.file.encoding),
          inner: legacy?.name.raw ?? 'nothing',
          expected,
        },
        ...(messageId === 'loose' ? { severity: 'warn' as const } : messageId === 'deprecated' ? { severity: 'warn' as const } : {}),
        fix: () => (legacy === undefined ? null : rewriteSetVariable(use, legacy.name.raw, legacy.value)),
      });
    };
    return { option: { set_variable: check } };
  },
});
