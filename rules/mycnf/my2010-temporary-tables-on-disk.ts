import { defineRule } from '../../src/engine/define-rule.js';
import { counter, percent, runtimeCounters, variableNumber } from '../../src/analysis/mysql-live.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOrTop, MIN_UPTIME_OPTION, earlyVerdict } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2010',
    name: 'temporary-tables-on-disk',
    category: 'performance',
    description: "Many of the running server's internal temporary tables go to disk",
    defaultSeverity: 'info',
    recommended: true,
    options: {
      minUptime: MIN_UPTIME_OPTION,
      minTemporaryTables: { type: 'integer', default: 100, description: 'fewer temporary tables than this give no verdict' },
      maxShare: {
        type: 'share',
        default: 0.25,
        description: 'a share of temporary tables on disk above this is reported (MySQLTuner: 25 %)',
      },
    },
    messages: {
      onDisk: {
        message:
          '{{share}} of temporary tables went to disk; expected fewer: a larger tmp_table_size and max_heap_table_size (now {{limit}}), or queries that need no BLOB/TEXT temporary table',
        detail:
          'Created_tmp_disk_tables {{disk}} of Created_tmp_tables {{all}} in {{span}}; an in-memory temporary table may grow to the smaller of tmp_table_size {{tmpTableSize}} and max_heap_table_size {{maxHeap}}, per query and connection, so raise them only as far as memory allows; results with BLOB or TEXT columns go to disk whatever the sizes',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime, { early: true });
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const all = counter(live, 'Created_tmp_tables') ?? 0;
        const disk = counter(live, 'Created_tmp_disk_tables') ?? 0;
        if (all < ctx.options.minTemporaryTables || disk / all <= ctx.options.maxShare) return;
        const tmpTableSize = variableNumber(live, 'tmp_table_size') ?? 0;
        const maxHeap = variableNumber(live, 'max_heap_table_size') ?? 0;
        ctx.report(
          earlyVerdict(runtime, {
            at: lineOrTop(ctx.config, 'tmp_table_size'),
            messageId: 'onDisk',
            data: {
              share: percent(disk, all),
              disk,
              all,
              span,
              limit: formatBytes(Math.min(tmpTableSize, maxHeap)),
              tmpTableSize: formatBytes(tmpTableSize),
              maxHeap: formatBytes(maxHeap),
            },
          }),
        );
      },
    };
  },
});
