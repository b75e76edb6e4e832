import { defineRule } from '../../src/engine/define-rule.js';
import { counter, runtimeCounters, variableNumber } from '../../src/analysis/mysql-live.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOrTop, MIN_UPTIME_OPTION, earlyVerdict } from './support/runtime.js';

const DAY = 86_400;

const WHY =
  'join_buffer_size {{joinBuffer}} is allocated per join and connection, so raising it trades memory for a missing index; the slow query log with log_queries_not_using_indexes names the queries';

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
        detail: `Select_full_join {{joins}} in {{span}}; ${WHY}`,
      },
      fullJoinsSoFar: {
        message:
          '{{joins}} joins scanned a table without an index in less than a day, past the {{threshold}} a day allowed; expected indexes on the join columns, not a larger join_buffer_size',
        detail: `Select_full_join {{joins}} in {{span}}, counted as they are, not scaled to a day; ${WHY}`,
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime, { early: true });
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const joins = counter(live, 'Select_full_join') ?? 0;
        // A young server's count is not scaled up to a day: minutes of traffic say little of a day's.
        const young = live.uptime < DAY;
        const perDay = young ? joins : Math.round((joins * DAY) / live.uptime);
        if (perDay <= ctx.options.perDay) return;
        ctx.report(
          earlyVerdict(runtime, {
            at: lineOrTop(ctx.config, 'join_buffer_size'),
            messageId: young ? 'fullJoinsSoFar' : 'fullJoins',
            data: {
              perDay,
              joins,
              span,
              threshold: ctx.options.perDay,
              joinBuffer: formatBytes(variableNumber(live, 'join_buffer_size') ?? 0),
            },
          }),
        );
      },
    };
  },
});
