import { defineRule } from '../../src/engine/define-rule.js';
import { counter, percent, runtimeCounters, variableNumber } from '../../src/analysis/mysql-live.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOrTop, MIN_UPTIME_OPTION, earlyVerdict } from './support/runtime.js';

/** MySQLTuner's threshold: a cache that answers fewer SELECTs than this costs more in locking than it saves. */
const POOR_EFFICIENCY = 0.2;

export default defineRule('mycnf', {
  meta: {
    id: 'MY2008',
    name: 'query-cache-runtime',
    category: 'performance',
    description: "The running server's query cache answers few SELECTs, or prunes results for want of memory",
    defaultSeverity: 'warn',
    recommended: true,
    options: {
      minUptime: MIN_UPTIME_OPTION,
      minSelects: {
        type: 'integer',
        default: 1_000,
        description: 'fewer SELECTs (cache hits included) than this give no verdict on the cache',
      },
    },
    messages: {
      inefficient: {
        message: 'the query cache answered {{efficiency}} of SELECTs; expected it off (MY2005 writes the patch)',
        detail:
          'Qcache_hits {{hits}} against Com_select {{selects}} in {{span}}; below {{threshold}} the global lock every write takes costs more than the hits save',
      },
      pruned: {
        message:
          'the query cache pruned {{prunes}} results for want of memory with {{free}} of its {{size}} free; expected query_cache_size raised slightly, to {{suggested}}',
        detail:
          'Qcache_lowmem_prunes {{prunes}}, Qcache_free_memory {{freeBytes}}, Qcache_hits {{hits}} ({{efficiency}} of SELECTs) in {{span}}; when much of it is free the cache is fragmented rather than small (FLUSH QUERY CACHE defragments it)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime, { early: true });
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const size = variableNumber(live, 'query_cache_size') ?? 0;
        const type = live.variables.query_cache_type?.toUpperCase();
        if (size === 0 || type === 'OFF' || type === '0') return;
        const hits = counter(live, 'Qcache_hits') ?? 0;
        const selects = counter(live, 'Com_select') ?? 0;
        if (hits + selects < ctx.options.minSelects) return;
        const efficiency = hits / (hits + selects);
        const at = lineOrTop(ctx.config, 'query_cache_size');
        const data = { hits, selects, span, efficiency: percent(hits, hits + selects), threshold: percent(POOR_EFFICIENCY, 1) };
        if (efficiency < POOR_EFFICIENCY) {
          ctx.report(earlyVerdict(runtime, { at, messageId: 'inefficient', data }));
          return;
        }
        const prunes = counter(live, 'Qcache_lowmem_prunes') ?? 0;
        const free = counter(live, 'Qcache_free_memory') ?? 0;
        if (prunes === 0) return;
        const suggested = Math.ceil((size * 1.25) / 1_048_576) * 1_048_576;
        ctx.report(
          earlyVerdict(runtime, {
            at,
            messageId: 'pruned',
            severity: 'info',
            data: {
              ...data,
              prunes,
              free: percent(free, size),
              freeBytes: formatBytes(free),
              size: formatBytes(size),
              suggested: formatBytes(suggested),
            },
          }),
        );
      },
    };
  },
});
