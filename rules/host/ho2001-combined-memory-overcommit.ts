import { reachedSoFar } from '../../src/analysis/mysql-live.js';
import { defineRule } from '../../src/engine/define-rule.js';
import type { Sizing } from '../../src/analysis/sizing.js';
import type { MysqlUsage } from '../../src/languages/mycnf/consumption.js';
import type { TextEdit } from '../../src/engine/types.js';
import { planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import type { MycnfConfig } from '../../src/languages/mycnf/model.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';
import { formatBytes, MIB } from '../../src/util/units.js';

/**
 * MySQL's caches that can give way, largest saving first, with the size below
 * which tune-lint does not shrink them (heuristic floors, named in the doc):
 * Aria's page cache (MariaDB's internal temporary tables), MyISAM's key
 * cache, then InnoDB's buffer pool, each kept in whole 8 MiB steps.
 */
const SHRINKABLE = [
  { name: 'aria_pagecache_buffer_size', floor: 16 * MIB, step: 8 * MIB, mariadbOnly: true },
  { name: 'key_buffer_size', floor: 8 * MIB, step: 8 * MIB, mariadbOnly: false },
  { name: 'innodb_buffer_pool_size', floor: 32 * MIB, step: 8 * MIB, mariadbOnly: false },
] as const;

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
    options: {
      warnShare: { type: 'share', default: 0.95, description: 'share of RAM above which the sum is reported as a warning' },
    },
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
      near: {
        message:
          '{{web}} {{apache}} + MySQL {{mysql}} + OS {{reserve}} = {{total}} is {{share}} of {{ram}} RAM: little room for the page cache',
        detail: '{{web}}: {{apacheReason}}; MySQL at its worst case; RAM {{ramSource}}{{reached}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const { ram, mysql, osReserve } = ctx.sizing;
        const mycnf = ctx.configs.first('mycnf');
        const webTier = ctx.sizing.apache.length + ctx.sizing.pools.length;
        if (ram === undefined || mysql === undefined || osReserve === undefined || mycnf === undefined || webTier === 0) return;
        // Apache counted as its sizing fix leaves it, so this rule reports what remains after AP2001, not the same excess twice.
        const apache = plannedApache(ctx.sizing);
        const committed = apache.bytes + mysql.globalBytes + osReserve;
        const total = apache.bytes + mysql.peak + osReserve;
        const at = mycnf.effective('max_connections') ??
          mycnf.effective('innodb_buffer_pool_size') ?? { file: mycnf.root, range: [0, 0] as const };
        const data = {
          web: ctx.sizing.pools.length === 0 ? 'Apache' : ctx.sizing.apache.length === 0 ? 'php-fpm' : 'Apache and php-fpm',
          apache: formatBytes(apache.bytes),
          apacheReason: apache.reason,
          mysql: formatBytes(mysql.peak),
          globals: formatBytes(mysql.globalBytes),
          globalTerms: mysql.globals.map((term) => `${term.name} ${formatBytes(term.bytes)}`).join(', '),
          connections: mysql.maxConnections.value,
          perConnection: formatBytes(mysql.perConnectionBytes),
          reserve: formatBytes(osReserve),
          committed: formatBytes(committed),
          total: formatBytes(total),
          ram: formatBytes(ram.value),
          ramSource: ram.source,
          reached: reachedSoFar(mysql, ctx.host),
        };
        if (total > ram.value) {
          const plan = shrinkGlobals(mycnf, mysql, total - ram.value);
          // The global buffers fill as data is read and stay full; the per-connection ones come and go with queries.
          ctx.report({
            at,
            messageId: committed > ram.value ? 'buffers' : 'connections',
            severity: committed > ram.value ? 'error' : 'warn',
            data: { ...data, advice: plan.advice },
            fix: () => (plan.edits.length === 0 ? null : plan.edits),
            // Other fixes (the query cache, set-variable rewrites) change the totals this plan is computed from.
            deferFix: true,
          });
        } else if (total > ram.value * ctx.options.warnShare) {
          ctx.report({ at, messageId: 'near', severity: 'warn', data: { ...data, share: `${Math.round((total / ram.value) * 100)}%` } });
        }
      },
    };
  },
});

function plannedApache(sizing: Sizing): { bytes: number; reason: string } {
  const parts = sizing.apache.map((entry) => {
    const processes = Math.ceil(entry.plannedMaxRequestWorkers / entry.threadsPerChild);
    return {
      bytes: processes * entry.perChild.value.median,
      reason: `${processes} processes x ${formatBytes(entry.perChild.value.median)}`,
    };
  });
  // The php-fpm pools are the rest of the web tier: PHP's processes, wherever Apache hands requests to them.
  for (const pool of sizing.pools) {
    if (pool.peak > 0)
      parts.push({
        bytes: pool.peak,
        reason: `php-fpm [${pool.pool.name}] ${pool.maxChildren ?? 0} x ${formatBytes(pool.perChild.value)}`,
      });
  }
  return { bytes: parts.reduce((sum, part) => sum + part.bytes, 0), reason: parts.map((part) => part.reason).join(' + ') };
}

/**
 * Lowers MySQL's caches, largest saving first and never below their floors,
 * until the excess is gone; when the floors leave too much, nothing is
 * changed and the advice says what else must give.
 */
function shrinkGlobals(mycnf: MycnfConfig, mysql: MysqlUsage, excess: number): { edits: TextEdit[]; advice: string } {
  let remaining = excess;
  const changes: { name: string; from: number; to: number }[] = [];
  // A line is added only for an option the target product has: MySQL refuses Aria's.
  const mariadbKnown = mycnf.target.product === 'mariadb';
  for (const { name, floor, step, mariadbOnly } of SHRINKABLE) {
    if (remaining <= 0) break;
    const term = mysql.globals.find((candidate) => candidate.name === name);
    if (term === undefined || term.bytes <= floor) continue;
    if (mariadbOnly && !mariadbKnown && mycnf.effective(name) === undefined) continue;
    const to = Math.max(floor, Math.floor((term.bytes - remaining) / step) * step);
    changes.push({ name, from: term.bytes, to });
    remaining -= term.bytes - to;
  }
  const connections = `max_connections ${mysql.maxConnections.value} x ${formatBytes(mysql.perConnectionBytes)} per connection`;
  if (remaining > 0 || changes.length === 0) {
    return {
      edits: [],
      advice: `even MySQL's caches at their floors leave ${formatBytes(Math.max(remaining, 0))} too much: lower ${connections} or Apache's MaxRequestWorkers, or give the host more RAM`,
    };
  }
  const edits: TextEdit[] = [];
  for (const change of changes) {
    const plan = planMycnfSetting(mycnf, change.name, { bytes: change.to });
    if (plan === null)
      return {
        edits: [],
        advice:
          mycnf.effective(change.name) === undefined
            ? `set ${change.name} = ${formatServerSize(change.to, mycnf.target)} in [mysqld] by hand (no file sets it, and no group the server reads takes a new line safely)`
            : `lower ${change.name} to ${formatServerSize(change.to, mycnf.target)} by hand (its line cannot be edited safely)`,
      };
    // Options added to the same group land at the same point: one insertion, in order.
    const previous = edits.find(
      (edit) =>
        edit.file === plan.edit.file &&
        edit.range[0] === plan.edit.range[0] &&
        edit.range[1] === edit.range[0] &&
        plan.edit.range[1] === plan.edit.range[0],
    );
    if (previous === undefined) edits.push(plan.edit);
    else edits[edits.indexOf(previous)] = { ...previous, text: previous.text + plan.edit.text };
  }
  const list = changes
    .map((change) => `${change.name} ${formatServerSize(change.from, mycnf.target)} -> ${formatServerSize(change.to, mycnf.target)}`)
    .join(', ');
  return { edits, advice: `expected ${list}, so MySQL fits in what Apache and the OS leave` };
}
