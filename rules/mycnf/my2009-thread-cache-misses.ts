import { defineRule } from '../../src/engine/define-rule.js';
import { counter, percent, runtimeCounters, variableNumber } from '../../src/analysis/mysql-live.js';
import { planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import { lineOrTop, MIN_UPTIME_OPTION, earlyVerdict, settingToJudge } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2009',
    name: 'thread-cache-misses',
    category: 'performance',
    description:
      'The running server creates a thread for most connections because its thread cache is smaller than the connections it serves',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      minUptime: MIN_UPTIME_OPTION,
      minConnections: { type: 'integer', default: 100, description: 'fewer connections than this give no verdict on the thread cache' },
      minHitRate: { type: 'share', default: 0.5, description: 'a thread cache hit rate below this is reported (MySQLTuner: 50 %)' },
    },
    messages: {
      misses: {
        message:
          'the thread cache served {{hitRate}} of connections; expected thread_cache_size {{suggested}}, the most connections open at once so far',
        detail:
          'Threads_created {{created}} of Connections {{connections}} in {{span}}; thread_cache_size {{size}} keeps fewer idle threads than the {{maxUsed}} connections (Max_used_connections) the clients have opened at once',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime, { early: true });
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const connections = counter(live, 'Connections') ?? 0;
        const created = counter(live, 'Threads_created') ?? 0;
        const maxUsed = counter(live, 'Max_used_connections') ?? 0;
        const size = settingToJudge(ctx.config, live, 'thread_cache_size');
        const maxConnections = variableNumber(live, 'max_connections');
        if (connections < ctx.options.minConnections || size === undefined || maxConnections === undefined) return;
        if (1 - created / connections >= ctx.options.minHitRate || size >= maxUsed) return;
        // MariaDB and MySQL take at most 16384 cached threads.
        const suggested = Math.min(maxUsed, maxConnections, 16_384);
        const plan = planMycnfSetting(ctx.config, 'thread_cache_size', String(suggested));
        ctx.report(
          earlyVerdict(runtime, {
            at: lineOrTop(ctx.config, 'thread_cache_size'),
            messageId: 'misses',
            data: { hitRate: percent(connections - created, connections), suggested, created, connections, span, size, maxUsed },
            fix: () => plan?.edit ?? null,
          }),
        );
      },
    };
  },
});
