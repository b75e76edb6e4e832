import { defineRule } from '../../src/engine/define-rule.js';
import { counter, percent, runtimeCounters, variableNumber } from '../../src/analysis/mysql-live.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOrTop, MIN_UPTIME_OPTION, earlyVerdict } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2013',
    name: 'sort-merge-passes',
    category: 'performance',
    description: "Many of the running server's sorts do not fit sort_buffer_size and merge through temporary files",
    defaultSeverity: 'info',
    recommended: true,
    options: {
      minUptime: MIN_UPTIME_OPTION,
      minSorts: { type: 'integer', default: 1_000, description: 'fewer sorts than this give no verdict' },
      maxShare: { type: 'share', default: 0.1, description: 'merge passes above this share of sorts are reported (MySQLTuner: 10 %)' },
    },
    messages: {
      merges: {
        message:
          '{{share}} of sorts needed merge passes through temporary files; expected fewer: look at the sorting queries before raising sort_buffer_size {{size}}',
        detail:
          'Sort_merge_passes {{passes}} against Sort_scan + Sort_range {{sorts}} in {{span}}; sort_buffer_size is allocated in full by every sort of every connection, so a larger one costs max_connections times over (MY2003)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime, { early: true });
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const passes = counter(live, 'Sort_merge_passes') ?? 0;
        const sorts = (counter(live, 'Sort_scan') ?? 0) + (counter(live, 'Sort_range') ?? 0);
        if (sorts < ctx.options.minSorts || passes / sorts <= ctx.options.maxShare) return;
        ctx.report(
          earlyVerdict(runtime, {
            at: lineOrTop(ctx.config, 'sort_buffer_size'),
            messageId: 'merges',
            data: { share: percent(passes, sorts), passes, sorts, span, size: formatBytes(variableNumber(live, 'sort_buffer_size') ?? 0) },
          }),
        );
      },
    };
  },
});
