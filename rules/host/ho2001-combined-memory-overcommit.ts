import { reachedSoFar } from '../../src/analysis/mysql-live.js';
import { defineRule } from '../../src/engine/define-rule.js';
import type { HostPlan, MysqlPlan } from '../../src/analysis/plan.js';
import { plannedChildSize } from '../../src/core/host-facts.js';
import type { TextEdit } from '../../src/engine/types.js';
import { combinedEdits, planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import type { MycnfConfig } from '../../src/languages/mycnf/model.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';
import { formatBytes } from '../../src/util/units.js';

export default defineRule('host', {
  meta: {
    id: 'HO2001',
    name: 'combined-memory-overcommit',
    category: 'performance',
    description: "Apache's peak, MySQL's worst case and the OS reserve together exceed the host's RAM",
    defaultSeverity: 'error',
    recommended: true,
    fix: 'tune',
    needsHost: true,
    messages: {
      buffers: {
        message:
          '{{web}} {{apache}} + MySQL buffers {{globals}} + OS {{reserve}} = {{committed}} exceed {{ram}} RAM before a single connection; {{advice}}',
        detail: '{{web}}: {{apacheReason}}; MySQL global buffers: {{globalTerms}}; RAM {{ramSource}}',
      },
      connections: {
        message: '{{web}} {{apache}} + MySQL {{mysql}} + OS {{reserve}} = {{total}} exceed {{ram}} RAM at full load; {{advice}}',
        detail:
          '{{web}}: {{apacheReason}}; MySQL worst case: globals {{globals}} + {{connections}} connections x {{perConnection}}, every connection allocating its buffers; RAM {{ramSource}}{{reached}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const plan = ctx.sizing.plan;
        const memory = plan.memory;
        const mysql = plan.mysql;
        const webTier = plan.apache.length + plan.pools.length;
        if (memory === undefined || mysql === undefined || webTier === 0) return;
        const mycnf = mysql.config;
        const usage = mysql.usage;
        const ram = memory.ram;
        // The web tier counted as the plan leaves it, so this rule reports what remains after AP2001 and PF2001, not the same excess twice.
        const web = plannedWeb(plan);
        const committed = web.bytes + usage.globalBytes + memory.osReserve;
        const total = web.bytes + usage.peak + memory.osReserve;
        if (total <= ram.value) return;
        const at = mycnf.effective('max_connections') ??
          mycnf.effective('innodb_buffer_pool_size') ?? { file: mycnf.root, range: [0, 0] as const };
        const shrink = shrinkEdits(mycnf, mysql);
        const data = {
          web: plan.pools.length === 0 ? 'Apache' : plan.apache.length === 0 ? 'php-fpm' : 'Apache and php-fpm',
          apache: formatBytes(web.bytes),
          apacheReason: web.reason,
          mysql: formatBytes(usage.peak),
          globals: formatBytes(usage.globalBytes),
          globalTerms: usage.globals.map((term) => `${term.name} ${formatBytes(term.bytes)}`).join(', '),
          connections: usage.maxConnections.value,
          perConnection: formatBytes(usage.perConnectionBytes),
          reserve: formatBytes(memory.osReserve),
          committed: formatBytes(committed),
          total: formatBytes(total),
          ram: formatBytes(ram.value),
          ramSource: ram.source,
          reached: reachedSoFar(usage, ctx.host),
          advice: shrink.advice,
        };
        // The global buffers fill as data is read and stay full; the per-connection ones come and go with queries.
        const buffers = committed > ram.value;
        // Nothing of HO2001's to cut: the per-connection buffers as MY2003 lowers them make it fit.
        if (shrink.edits.length === 0 && mysql.fits && !buffers) return;
        ctx.report({
          at,
          messageId: buffers ? 'buffers' : 'connections',
          severity: buffers ? 'error' : 'warn',
          data,
          fix: () => (shrink.edits.length === 0 ? null : shrink.edits),
          // Other fixes (per-connection buffers, the query cache, set-variable rewrites) change the totals this plan is computed from.
          deferFix: true,
        });
      },
    };
  },
});

function plannedWeb(plan: HostPlan): { bytes: number; reason: string } {
  const parts = plan.apache.map((entry) => ({
    bytes: entry.peak,
    reason: `${entry.processes} processes x ${formatBytes(plannedChildSize(entry.usage.perChild.value))}`,
  }));
  // The php-fpm pools are the rest of the web tier: PHP's processes, wherever Apache hands requests to them.
  for (const pool of plan.pools) {
    if (pool.peak > 0)
      parts.push({
        bytes: pool.peak,
        reason: `php-fpm [${pool.usage.pool.name}] ${pool.maxChildren.planned} x ${formatBytes(pool.usage.perChild.value)}`,
      });
  }
  return { bytes: parts.reduce((sum, part) => sum + part.bytes, 0), reason: parts.map((part) => part.reason).join(' + ') };
}

/**
 * The plan's cuts of MySQL's caches as edits; when the floors leave too
 * much, nothing is changed and the advice says what else must give.
 */
function shrinkEdits(mycnf: MycnfConfig, mysql: MysqlPlan): { edits: TextEdit[]; advice: string } {
  const connections = `max_connections ${mysql.maxConnections.planned} x ${formatBytes(mysql.perConnection)} per connection`;
  if (!mysql.fits) {
    return {
      edits: [],
      advice: `even MySQL's caches at their floors leave ${formatBytes(Math.max(mysql.peak - (mysql.space?.bytes ?? mysql.peak), 0))} too much: lower ${connections} or Apache's MaxRequestWorkers, or give the host more RAM`,
    };
  }
  const changes = mysql.caches.filter((cache) => cache.decision.reason === 'memory');
  const planned = changes.map((change) => planMycnfSetting(mycnf, change.name, { bytes: change.decision.planned }));
  const failed = changes.find((_, index) => planned[index] === null);
  if (failed !== undefined) {
    const to = formatServerSize(failed.decision.planned, mycnf.target);
    return {
      edits: [],
      advice:
        mycnf.effective(failed.name) === undefined
          ? `set ${failed.name} = ${to} in [mysqld] by hand (no file sets it, and no group the server reads takes a new line safely)`
          : `lower ${failed.name} to ${to} by hand (its line cannot be edited safely)`,
    };
  }
  const edits = combinedEdits(planned) ?? [];
  const list = changes
    .map(
      (change) =>
        `${change.name} ${formatServerSize(change.decision.current, mycnf.target)} -> ${formatServerSize(change.decision.planned, mycnf.target)}`,
    )
    .join(', ');
  return { edits, advice: `expected ${list}, so MySQL fits in what the web tier and the OS leave` };
}
