import { defineMycnfRule } from '../../src/engine/define-rule.js';
import { webTierLimit } from '../../src/analysis/sizing.js';
import { planMycnfSetting, replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import { parseServerSize } from '../../src/languages/mycnf/sizes.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOf } from '../../src/core/located.js';
import { intendedEffective } from './support/intent.js';

/** max_connections' upper bound on MySQL and MariaDB: larger values are clamped at start (verified on MariaDB 10.11). */
const MAX_CONNECTIONS_LIMIT = 100000;

export default defineMycnfRule({
  meta: {
    id: 'MY2004',
    name: 'max-connections-far-above-need',
    category: 'performance',
    description: 'max_connections is far above what the clients can open, which inflates the worst-case memory for nothing',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'tune',
    options: {
      factor: { type: 'number', default: 2, description: 'with a web tier: max_connections above factor x web tier + slack is reported' },
      slack: { type: 'integer', default: 50, description: 'connections added to factor x web tier before it is reported' },
      threshold: { type: 'integer', default: 1000, description: 'without a web tier: max_connections above this is reported' },
    },
    messages: {
      clamped:
        'max_connections {{value}} is above the limit of {{limit}}; the server uses {{limit}} ("option \'max_connections\': unsigned value {{value}} adjusted to {{limit}}"); expected {{limit}} at most',
      aboveWebTier:
        'max_connections {{value}} ({{from}}) is far above the {{web}} connections {{webReason}} can open with mod_php (more than {{factor}} x {{web}} + {{slack}}, heuristic); each connection may take {{perConnection}}, so expected {{suggested}} ({{web}} + {{headroom}} for cron, CLI and admin){{where}}',
      huge: 'max_connections {{value}} ({{from}}) with one thread per connection is above {{threshold}} (heuristic): each connection may take {{perConnection}} and a thread of its own; expected a value sized to the clients{{poolAdvice}}',
    },
  },
  create(ctx) {
    const mycnf = ctx.mycnf;
    return {
      end() {
        const mysql = ctx.sizing.mysql;
        if (mysql === undefined) return;
        const intended = intendedEffective(mycnf, 'max_connections');
        const parsed = intended?.value === undefined ? undefined : parseServerSize(intended.value, mycnf.target, 'max_connections');
        if (parsed !== undefined && 'error' in parsed) return;
        const value = parsed?.bytes ?? mysql.maxConnections.value;
        const from =
          intended === undefined
            ? mysql.maxConnections.from
            : `set in ${lineOf(intended.use)}${intended.viaSetVariable ? ' by set-variable' : ''}`;
        // A set-variable line is rewritten by MY4001 first; the value is fixed on the next pass.
        const editable = intended !== undefined && !intended.viaSetVariable ? intended.use : undefined;
        const at = intended?.use ?? { file: mycnf.root, range: [0, 0] as const };
        const perConnection = formatBytes(mysql.perConnectionBytes);
        if (value > MAX_CONNECTIONS_LIMIT) {
          ctx.report({
            at,
            messageId: 'clamped',
            severity: 'warn',
            data: { value, limit: MAX_CONNECTIONS_LIMIT },
            fixKind: 'safe',
            fix: () => (editable === undefined ? null : replaceMycnfValue(editable, String(MAX_CONNECTIONS_LIMIT))),
          });
          return;
        }
        const web = ctx.sizing.plannedWebDbConnections;
        if (web !== undefined) {
          const factor = ctx.options.factor;
          const slack = ctx.options.slack;
          if (value <= factor * web + slack) return;
          const headroom = Math.max(ctx.sizing.budget.adminConnections, Math.ceil(web * 0.1));
          const suggested = web + headroom;
          const plan =
            intended === undefined || editable !== undefined ? planMycnfSetting(mycnf, 'max_connections', String(suggested)) : null;
          const webReason = ctx.sizing.apache
            .filter((sizing) => sizing.php)
            .map(webTierLimit)
            .join(' and ');
          ctx.report({
            at,
            messageId: 'aboveWebTier',
            data: {
              value,
              from,
              web,
              webReason,
              factor,
              slack,
              perConnection,
              suggested,
              headroom,
              where: plan !== null && intended === undefined ? `; to be added at ${plan.where}` : '',
            },
            fix: () => plan?.edit ?? null,
          });
          return;
        }
        const threshold = ctx.options.threshold;
        const handling = mycnf.effective('thread_handling')?.value?.toLowerCase();
        if (value <= threshold || handling === 'pool-of-threads') return;
        ctx.report({
          at,
          messageId: 'huge',
          severity: 'warn',
          data: {
            value,
            from,
            threshold,
            perConnection,
            poolAdvice: mycnf.target.product === 'mariadb' ? ', or thread_handling = pool-of-threads' : '',
          },
        });
      },
    };
  },
});
