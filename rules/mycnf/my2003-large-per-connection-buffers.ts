import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { replaceMycnfSize } from '../../src/languages/mycnf/edits.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { formatBytes, formatPercent } from '../../src/util/units.js';

/** Buffers a connection allocates when a query needs them (sort and join ones more than once per query), with the option holding the threshold. */
const BUFFERS = [
  ['sort_buffer_size', 'sortBuffer'],
  ['join_buffer_size', 'joinBuffer'],
  ['read_buffer_size', 'readBuffer'],
  ['read_rnd_buffer_size', 'readRndBuffer'],
  ['tmp_table_size', 'tmpTable'],
  ['max_heap_table_size', 'tmpTable'],
] as const;

export default defineRule('mycnf', {
  meta: {
    id: 'MY2003',
    name: 'large-per-connection-buffers',
    category: 'performance',
    description: 'A buffer that every connection may allocate is set far above its default',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      sortBuffer: { type: 'size', default: '4M', description: 'sort_buffer_size above this is reported' },
      joinBuffer: { type: 'size', default: '4M', description: 'join_buffer_size above this is reported' },
      readBuffer: { type: 'size', default: '2M', description: 'read_buffer_size above this is reported' },
      readRndBuffer: { type: 'size', default: '4M', description: 'read_rnd_buffer_size above this is reported' },
      tmpTable: { type: 'size', default: '256M', description: 'tmp_table_size or max_heap_table_size above this is reported' },
      budgetShare: {
        type: 'share',
        default: 0.25,
        description: "share of MySQL's memory budget above which one buffer x max_connections is an error",
      },
    },
    messages: {
      large: {
        message:
          '{{name}} {{value}} is above {{threshold}} for a per-connection buffer; expected the default {{default}} and SET SESSION {{key}} where needed',
        detail: 'heuristic; each connection may allocate it per query or more',
      },
      tooMuch: {
        message:
          "{{name}} {{value}} x {{connections}} connections = {{total}}, more than {{share}} of MySQL's {{budget}}; expected the default {{default}} and SET SESSION {{key}} where needed",
        detail: 'connections {{connectionsFrom}}; budget: {{budgetReason}}',
      },
      unequal: {
        message: 'tmp_table_size {{tmp}} and max_heap_table_size {{heap}} differ; expected both equal',
        detail:
          'an in-memory temporary table is limited by the smaller, {{smaller}}, so the larger setting has no effect on temporary tables',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = mycnf.target;
    const reportUnequal = (): void => {
      // MySQL 8.0's TempTable engine limits internal temporary tables by tmp_table_size alone; MEMORY tables (MariaDB, older MySQL) by the smaller of the two.
      if (target.product === 'mysql' && versionAtLeast(target.version, '8.0')) return;
      const tmp = mycnf.size('tmp_table_size');
      const heap = mycnf.size('max_heap_table_size');
      if (tmp === undefined || heap === undefined || tmp.bytes === heap.bytes || (tmp.from === 'default' && heap.from === 'default'))
        return;
      const at = tmp.from !== 'default' ? tmp.from : (heap.from as MycnfOptionUse);
      ctx.report({
        at,
        messageId: 'unequal',
        severity: 'info',
        data: { tmp: formatBytes(tmp.bytes), heap: formatBytes(heap.bytes), smaller: formatBytes(Math.min(tmp.bytes, heap.bytes)) },
      });
    };
    return {
      end() {
        const mysql = ctx.sizing.mysql;
        if (mysql === undefined) return;
        const budget = ctx.sizing.plan.mysql?.space;
        for (const [key, option] of BUFFERS) {
          const size = mycnf.size(key);
          const fallback = mycnf.defaultOf(key);
          if (size === undefined || size.from === 'default' || typeof fallback !== 'number' || size.bytes <= fallback) continue;
          const use: MycnfOptionUse = size.from;
          const threshold = ctx.options[option];
          const total = size.bytes * mysql.maxConnections.value;
          const common = {
            name: use.file.slice(use.line.nameRange),
            key,
            value: use.value ?? '',
            default: formatServerSize(fallback, target),
          };
          const fix = () => replaceMycnfSize(use, fallback, target);
          const share = ctx.options.budgetShare;
          // Temporary tables are counted once, as MY2001 counts them: few queries hold one at the same time.
          if (budget !== undefined && option !== 'tmpTable' && total > budget.bytes * share) {
            ctx.report({
              at: use,
              messageId: 'tooMuch',
              severity: 'error',
              data: {
                ...common,
                connections: mysql.maxConnections.value,
                connectionsFrom: mysql.maxConnections.from,
                total: formatBytes(total),
                share: formatPercent(share),
                budget: formatBytes(budget.bytes),
                budgetReason: budget.reason,
              },
              fix,
            });
          } else if (size.bytes > threshold) {
            ctx.report({ at: use, messageId: 'large', data: { ...common, threshold: formatBytes(threshold) }, fix });
          }
        }
        reportUnequal();
      },
    };
  },
});
