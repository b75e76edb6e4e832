import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/engine/types.js';
import { removeMycnfLine, renameMycnfOption, replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { printedArgument } from '../../src/languages/mycnf/parser.js';

const DAY = 86400;

export default defineRule('mycnf', {
  meta: {
    id: 'MY4005',
    name: 'expire-logs',
    category: 'deprecation',
    description: 'expire_logs_days is deprecated in MySQL 8.0 and removed in 8.2 in favour of binlog_expire_logs_seconds',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'safe',
    messages: {
      removed: {
        message: '{{name}} = {{value}} makes MySQL {{version}} refuse to start; expected {{expected}}',
        detail: 'removed in MySQL 8.2.0: "unknown variable \'{{argument}}\'"',
      },
      deprecated: { message: '{{name}} = {{value}} is deprecated; expected {{expected}}', detail: 'deprecated since MySQL 8.0.3' },
      ignored: {
        message: '{{name}} = {{value}} is ignored: binlog_expire_logs_seconds wins; expected the line removed',
        detail: 'binlog_expire_logs_seconds is set at {{secondsAt}}',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = mycnf.target;
    // MariaDB accepts both (verified on 10.11); MySQL deprecated expire_logs_days in 8.0.3.
    if (target.product !== 'mysql' || !versionAtLeast(target.version, '8.0.3')) return {};
    return {
      end() {
        const days = mycnf.effective('expire_logs_days');
        if (days === undefined || days.name.loose) return;
        const seconds = mycnf.effective('binlog_expire_logs_seconds');
        const removed = versionAtLeast(target.version, '8.2.0');
        const name = days.file.slice(days.line.nameRange);
        const value = days.value ?? '';
        const argument = printedArgument(days.line, days.file.encoding);
        const all = mycnf.uses.filter((use) => use.name.key === 'expire_logs_days');
        // MySQL 8.0 uses binlog_expire_logs_seconds when both are non-zero; a zero there leaves expire_logs_days in charge.
        if (seconds !== undefined && (seconds.value !== '0' || value === '0')) {
          ctx.report({
            at: days,
            messageId: removed ? 'removed' : 'ignored',
            severity: removed ? 'error' : 'info',
            data: {
              name,
              value,
              version: target.version,
              argument,
              secondsAt: `${seconds.file.displayPath}:${seconds.file.position(seconds.range[0]).line}`,
              expected: 'the line removed, binlog_expire_logs_seconds is set',
            },
            fix: () => removeEvery(all),
          });
          return;
        }
        const whole = /^\d+$/.test(value) ? Number(value) : undefined;
        const expected =
          whole === undefined ? 'binlog_expire_logs_seconds = days x 86400' : `binlog_expire_logs_seconds = ${whole * DAY} (${whole} days)`;
        ctx.report({
          at: days,
          messageId: removed ? 'removed' : 'deprecated',
          severity: removed ? 'error' : 'info',
          data: { name, value, version: target.version, argument, expected },
          fix: () => {
            if (whole === undefined || seconds !== undefined) return null;
            const renamed = renameMycnfOption(days, 'binlog_expire_logs_seconds');
            const revalued = replaceMycnfValue(days, String(whole * DAY));
            const earlier = removeEvery(all.filter((use) => use !== days));
            return renamed === null || revalued === null || earlier === null ? null : [renamed, revalued, ...earlier];
          },
        });
      },
    };
  },
});

function removeEvery(uses: readonly MycnfOptionUse[]): TextEdit[] | null {
  const edits = uses.map(removeMycnfLine);
  return edits.some((edit) => edit === null) ? null : (edits as TextEdit[]);
}
