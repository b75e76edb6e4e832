import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { lineOrTop } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2020',
    name: 'slow-query-log-off',
    category: 'performance',
    description: 'The running server does not log its slow queries',
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      off: {
        message:
          'the slow query log is off; expected slow_query_log = ON with long_query_time {{suggested}}, to name the queries behind the runtime findings',
        detail:
          'the counters say how many joins scanned, sorts merged and temporary tables went to disk (MY2010, MY2013, MY2016), the slow log says which queries did; long_query_time is {{longQueryTime}} s on the running server ({{source}}; MySQLTuner and tuning-primer ask for it too)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        if (fact === undefined) return;
        const { variables } = fact.value;
        // MariaDB 10.11 names it log_slow_query too; slow_query_log is the name both products have.
        const value = (variables.slow_query_log ?? variables.log_slow_query ?? '').toUpperCase();
        if (value !== 'OFF' && value !== '0') return;
        const longQueryTime = Number(variables.long_query_time ?? '10');
        ctx.report({
          at: lineOrTop(ctx.config, 'slow_query_log'),
          messageId: 'off',
          data: {
            suggested: longQueryTime > 2 ? '1 or 2 (it is 10 by default)' : String(longQueryTime),
            longQueryTime: String(longQueryTime),
            source: liveSource(fact.source),
          },
        });
      },
    };
  },
});
