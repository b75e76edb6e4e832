import { defineRule } from '../../src/engine/define-rule.js';
import { planMpmSetting } from '../../src/languages/apache/mpm-edits.js';
import { isPhpModule } from '../../src/languages/apache/names.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2005',
    name: 'child-recycling',
    category: 'performance',
    description: 'MaxConnectionsPerChild never recycles processes that run mod_php, or recycles them so often that httpd keeps forking',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      recycleAfter: {
        type: 'integer',
        default: 10000,
        description: "the value the fix writes: httpd 2.2's compiled-in MaxRequestsPerChild",
      },
      churnBelow: {
        type: 'integer',
        default: 100,
        description: 'heuristic: values from 1 up to this (exclusive) recycle so often that forking costs more than it saves',
      },
    },
    messages: {
      neverWithPhp: {
        message: '{{name}} {{value}} with mod_php never replaces a process; expected {{name}} {{suggested}}{{where}}',
        detail:
          'memory that PHP code or extensions leak stays in a process until httpd restarts; {{suggested}} replaces a process after {{suggested}} connections (heuristic)',
      },
      churn: {
        message: '{{name}} {{value}} replaces every process after {{connections}}; expected {{name}} {{suggested}}',
        detail: 'below {{threshold}} (heuristic), a fork{{php}} that often costs more than any leak it guards against',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mpm = apache.mpm;
        if (mpm?.name === undefined) return;
        const setting = mpm.values.MaxConnectionsPerChild;
        const canonical = 'MaxConnectionsPerChild';
        const name = setting.use?.node.name ?? canonical;
        const php = [...apache.modules.values()].find((module) => isPhpModule(module.identifier));
        const { recycleAfter, churnBelow } = ctx.options;
        const plan = planMpmSetting(apache, mpm, 'MaxConnectionsPerChild', recycleAfter);
        if (setting.value === 0 && php !== undefined) {
          const at = setting.use ?? php.use ?? mpm.module?.use;
          if (at === undefined) return;
          ctx.report({
            at,
            messageId: 'neverWithPhp',
            severity: 'info',
            data: {
              name,
              value: setting.use === undefined ? '0 (default)' : setting.value,
              suggested: recycleAfter,
              where: setting.use === undefined && plan !== null ? `; ${canonical} ${recycleAfter} to be added at ${plan.where}` : '',
            },
            fix: () => plan?.edit ?? null,
          });
          return;
        }
        if (setting.use !== undefined && setting.value > 0 && setting.value < churnBelow) {
          ctx.report({
            at: setting.use,
            messageId: 'churn',
            data: {
              name,
              value: setting.value,
              connections: setting.value === 1 ? '1 connection' : `${setting.value} connections`,
              threshold: churnBelow,
              php: php === undefined ? '' : ' and a fresh PHP interpreter with empty caches',
              suggested: recycleAfter,
            },
            fix: () => plan?.edit ?? null,
          });
        }
      },
    };
  },
});
