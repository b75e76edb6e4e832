import { defineRule } from '../../src/engine/define-rule.js';
import { poolLimit, webTierLimit } from '../../src/analysis/sizing.js';
import { planMycnfSetting } from '../../src/languages/mycnf/edits.js';

/**
 * With mod_php under prefork every Apache child runs at most one PHP request,
 * and a PHP request holds at most one MySQL connection (a persistent one even
 * while the child idles), so the web tier can open MaxRequestWorkers
 * connections.
 */
export default defineRule('host', {
  meta: {
    id: 'HO1001',
    name: 'max-connections-below-web-tier',
    category: 'correctness',
    description: 'max_connections does not cover the database connections the PHP children (mod_php or php-fpm) can open',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'tune',
    messages: {
      below: {
        message:
          'max_connections {{maxConnections}} is below the {{web}} connections the web tier can open; expected at least {{suggested}}{{where}}',
        detail:
          'max_connections {{from}}; {{webReason}} can open {{web}} (one per PHP child); {{suggested}} = {{web}} + {{headroom}} for cron, CLI and admin',
      },
      noHeadroom: {
        message: 'max_connections {{maxConnections}} leaves {{spare}} of {{headroom}} connections for cron, CLI and admin',
        detail: 'max_connections {{from}}; {{webReason}} can open {{web}} (one per PHP child)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const mycnf = ctx.configs.first('mycnf');
        const plan = ctx.sizing.plan;
        const mysql = ctx.sizing.mysql;
        const web = plan.phpClients;
        const decision = plan.mysql?.maxConnections;
        if (mycnf === undefined || mysql === undefined || web === undefined || decision === undefined) return;
        const at = mycnf.effective('max_connections') ?? { file: mycnf.root, range: [0, 0] as const };
        const phpServers = plan.apache.filter((entry) => entry.role === 'php');
        const fedPools = plan.pools.filter((pool) => !pool.unfed);
        const webReason = [...phpServers.map(webTierLimit), ...fedPools.map(poolLimit)].join(' and ');
        const headroom = Math.max(ctx.sizing.budget.adminConnections, Math.ceil(web * 0.1));
        const maxConnections = decision.current;
        const data = { maxConnections, from: mysql.maxConnections.from, web, webReason, headroom };
        if (decision.planned > decision.current) {
          const suggested = decision.planned;
          const edit = planMycnfSetting(mycnf, 'max_connections', String(suggested));
          const where = edit === null || mycnf.effective('max_connections') !== undefined ? '' : `; to be added at ${edit.where}`;
          ctx.report({ at, messageId: 'below', data: { ...data, suggested, where }, fix: () => edit?.edit ?? null });
        } else if (maxConnections < web + headroom) {
          ctx.report({ at, messageId: 'noHeadroom', severity: 'info', data: { ...data, spare: maxConnections - web } });
        }
      },
    };
  },
});
