import { defineRule } from '../../src/engine/define-rule.js';
import { counter, percent, runtimeCounters } from '../../src/analysis/mysql-live.js';
import { planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import { lineOrTop, MIN_UPTIME_OPTION, earlyVerdict, settingToJudge } from './support/runtime.js';

/** A cache this full is full: the server closes a table for each one it opens. */
const FULL = 0.95;
/** MySQL's and MariaDB's upper bound of table_open_cache. */
const MAX_TABLE_OPEN_CACHE = 1_048_576;

export default defineRule('mycnf', {
  meta: {
    id: 'MY2011',
    name: 'table-cache-misses',
    category: 'performance',
    description: "The running server's table cache is full and it keeps opening tables again",
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      minUptime: MIN_UPTIME_OPTION,
      minHitRate: { type: 'share', default: 0.2, description: 'Open_tables / Opened_tables below this is reported (MySQLTuner: 20 %)' },
    },
    messages: {
      misses: {
        message:
          'the table cache is full ({{open}} of table_open_cache {{size}}) and {{opened}} tables were opened; expected table_open_cache {{suggested}}',
        detail:
          'Open_tables {{open}} is {{hitRate}} of Opened_tables {{opened}} in {{span}}; each miss closes a cached table to open another; raise it in steps and watch open_files_limit ({{filesLimit}}), which each cached table takes a file of',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime, { early: true });
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const open = counter(live, 'Open_tables') ?? 0;
        const opened = counter(live, 'Opened_tables') ?? 0;
        const size = settingToJudge(ctx.config, live, 'table_open_cache');
        if (size === undefined || size === 0 || open < FULL * size || opened === 0 || open / opened >= ctx.options.minHitRate) return;
        const suggested = Math.min(size * 2, MAX_TABLE_OPEN_CACHE);
        const plan = planMycnfSetting(ctx.config, 'table_open_cache', String(suggested));
        ctx.report(
          earlyVerdict(runtime, {
            at: lineOrTop(ctx.config, 'table_open_cache'),
            messageId: 'misses',
            data: {
              open,
              opened,
              size,
              suggested,
              span,
              hitRate: percent(open, opened),
              filesLimit: live.variables.open_files_limit ?? 'unknown',
            },
            fix: () => plan?.edit ?? null,
          }),
        );
      },
    };
  },
});
