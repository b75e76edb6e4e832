import { defineRule } from '../../src/engine/define-rule.js';
import { combinedEdits, planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';
import { formatBytes, formatPercent } from '../../src/util/units.js';
import { intendedOptions } from './support/intent.js';
import { reachedSoFar } from '../../src/analysis/mysql-live.js';

/**
 * The worst case of MySQL's memory (global buffers plus
 * the per-connection buffers times max_connections) against 85 % of RAM.
 * Only when no Apache config is linted with the my.cnf: with one, the
 * database has to share RAM with Apache, and HO2001 compares the sum of both
 * (with the OS reserve) with RAM; reporting the MySQL half here as well would
 * report the same excess twice.
 */
export default defineRule('mycnf', {
  meta: {
    id: 'MY2001',
    name: 'mysql-memory-overcommit',
    category: 'performance',
    description: "MySQL's worst-case memory use exceeds the share of RAM it may take",
    defaultSeverity: 'error',
    recommended: true,
    fix: 'tune',
    needsHost: true,
    messages: {
      overcommit: {
        message: 'MySQL worst case {{peak}} exceeds {{share}} of {{ram}} RAM = {{limit}}; {{advice}}',
        detail:
          '{{peak}} = globals {{globals}} ({{globalTerms}}) + {{connections}} connections ({{connectionsFrom}}) x {{perConnection}} ({{perConnectionTerms}}); RAM {{ramSource}}{{reached}}',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    return {
      end() {
        const plan = ctx.sizing.plan;
        const memory = plan.memory;
        const mysql = plan.mysql;
        const space = mysql?.space;
        if (memory === undefined || mysql === undefined || space === undefined || plan.apache.length > 0 || plan.pools.length > 0) return;
        const usage = mysql.usage;
        // A set-variable line that sets a term counts only once MY4001 has rewritten it: judged on the next pass.
        const terms = new Set([
          'max_connections',
          'tmp_table_size',
          'max_heap_table_size',
          ...usage.globals.map((term) => term.name),
          ...usage.perConnection.map((term) => term.name),
        ]);
        if (intendedOptions(mycnf).some((option) => option.viaSetVariable && terms.has(option.name.key))) return;
        const limit = space.bytes;
        if (usage.peak <= limit) return;
        const cuts = mysql.caches.filter((cache) => cache.decision.reason === 'memory');
        // The per-connection buffers as MY2003 lowers them make it fit: that fix is the one to make.
        if (cuts.length === 0 && mysql.fits) return;
        const edits = cuts.map((cache) => planMycnfSetting(mycnf, cache.name, { bytes: cache.decision.planned }));
        const connectionsBytes = mysql.perConnection * mysql.maxConnections.planned;
        const advice =
          !mysql.fits || cuts.length === 0
            ? `the connections alone take ${formatBytes(connectionsBytes)}: lower max_connections or the per-connection buffers`
            : `expected ${cuts
                .map((cache, index) => {
                  const added =
                    edits[index] !== null && mycnf.effective(cache.name) === undefined
                      ? ` (to be added at ${edits[index]?.where ?? ''})`
                      : '';
                  return `${cache.name} at most ${formatServerSize(cache.decision.planned, mycnf.target)}${added}`;
                })
                .join(', ')}`;
        const at = mycnf.effective('innodb_buffer_pool_size') ??
          mycnf.effective('max_connections') ?? { file: mycnf.root, range: [0, 0] as const };
        ctx.report({
          at,
          messageId: 'overcommit',
          data: {
            peak: formatBytes(usage.peak),
            globals: formatBytes(usage.globalBytes),
            globalTerms: usage.globals.map((term) => `${term.name} ${formatBytes(term.bytes)}`).join(', '),
            connections: usage.maxConnections.value,
            connectionsFrom: usage.maxConnections.from,
            perConnection: formatBytes(usage.perConnectionBytes),
            perConnectionTerms: usage.perConnection.map((term) => `${term.name} ${formatBytes(term.bytes)}`).join(' + '),
            share: formatPercent(ctx.sizing.budget.mysqlMaxShare),
            ram: formatBytes(memory.ram.value),
            ramSource: memory.ram.source,
            limit: formatBytes(limit),
            advice,
            reached: reachedSoFar(usage, ctx.host),
          },
          fix: () => (edits.length === 0 ? null : combinedEdits(edits)),
          // The per-connection buffers' fix (MY2003) changes the worst case this is computed from.
          deferFix: true,
        });
      },
    };
  },
});
