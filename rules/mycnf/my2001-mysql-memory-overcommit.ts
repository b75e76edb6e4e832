import { defineRule } from '../../src/engine/define-rule.js';
import { planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';
import { formatBytes, formatPercent, MIB } from '../../src/util/units.js';
import { intendedOptions } from './support/intent.js';
import { reachedSoFar } from '../../src/analysis/mysql-live.js';

/** The buffer pool is sized in chunks of 128 MiB (innodb_buffer_pool_chunk_size's default); the fix keeps to whole chunks. */
const POOL_STEP = 128 * MIB;

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
        const { ram, mysql, budget } = ctx.sizing;
        if (ram === undefined || mysql === undefined || ctx.sizing.apache.length > 0 || ctx.sizing.pools.length > 0) return;
        // A set-variable line that sets a term counts only once MY4001 has rewritten it: judged on the next pass.
        const terms = new Set([
          'max_connections',
          'tmp_table_size',
          'max_heap_table_size',
          ...mysql.globals.map((term) => term.name),
          ...mysql.perConnection.map((term) => term.name),
        ]);
        if (intendedOptions(mycnf).some((option) => option.viaSetVariable && terms.has(option.name.key))) return;
        const limit = Math.floor(ram.value * budget.mysqlMaxShare);
        if (mysql.peak <= limit) return;
        const pool = mysql.globals.find((term) => term.name === 'innodb_buffer_pool_size');
        const connectionsBytes = mysql.perConnectionBytes * mysql.maxConnections.value;
        const others = mysql.peak - (pool?.bytes ?? 0);
        const fitting = Math.floor((limit - others) / POOL_STEP) * POOL_STEP;
        const poolFix = pool !== undefined && fitting >= POOL_STEP && fitting < pool.bytes;
        const plan = poolFix ? planMycnfSetting(mycnf, 'innodb_buffer_pool_size', { bytes: fitting }) : null;
        const advice = poolFix
          ? `expected innodb_buffer_pool_size at most ${formatServerSize(fitting, mycnf.target)}${plan !== null && mycnf.effective('innodb_buffer_pool_size') === undefined ? ` (to be added at ${plan.where})` : ''}`
          : `the connections alone take ${formatBytes(connectionsBytes)}: lower max_connections or the per-connection buffers`;
        const at = mycnf.effective('innodb_buffer_pool_size') ??
          mycnf.effective('max_connections') ?? { file: mycnf.root, range: [0, 0] as const };
        ctx.report({
          at,
          messageId: 'overcommit',
          data: {
            peak: formatBytes(mysql.peak),
            globals: formatBytes(mysql.globalBytes),
            globalTerms: mysql.globals.map((term) => `${term.name} ${formatBytes(term.bytes)}`).join(', '),
            connections: mysql.maxConnections.value,
            connectionsFrom: mysql.maxConnections.from,
            perConnection: formatBytes(mysql.perConnectionBytes),
            perConnectionTerms: mysql.perConnection.map((term) => `${term.name} ${formatBytes(term.bytes)}`).join(' + '),
            share: formatPercent(budget.mysqlMaxShare),
            ram: formatBytes(ram.value),
            ramSource: ram.source,
            limit: formatBytes(limit),
            advice,
            reached: reachedSoFar(mysql, ctx.host),
          },
          fix: () => plan?.edit ?? null,
        });
      },
    };
  },
});
