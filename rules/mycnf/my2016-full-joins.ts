import { defineRule } from '../../src/engine/define-rule.js';
import { counter, runtimeCounters, variableNumber } from '../../src/analysis/mysql-live.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOrTop, MIN_UPTIME_OPTION } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2016',
    name: 'full-joins',
    category: 'performance',
    description: 'The running server joins tables without indexes, which no setting makes cheap',
    defaultSeverity: 'info',
    recommended: false,
    options: {
      minUptime: MIN_UPTIME_OPTION,
      perDay: { type: 'integer', default: 100, description: 'more joins without an index per day of uptime than this are reported' },
    },
    messages: {
      fullJoins: {
        message:
          '{{perDay}} joins a day scanned a table without an index; expected indexes on the join columns, not a larger join_buffer_size',
        detail:
          'Select_full_join {{joins}} in {{span}}; join_buffer_size {{joinBuffer}} is allocated per join and connection, so raising it trades memory for a missing index; the slow query log with log_queries_not_using_indexes names the queries',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime);
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const joins = counter(live, 'Select_full_join') ?? 0;
        const perDay = Math.round((joins * 86_400) / Math.max(live.uptime, 1));
        if (perDay <= ctx.options.perDay) return;
        ctx.report({
          at: lineOrTop(ctx.config, 'join_buffer_size'),
          messageId: 'fullJoins',
          data: { perDay, joins, span, joinBuffer: formatBytes(variableNumber(live, 'join_buffer_size') ?? 0) },
        });
      },
    };
  },
});
