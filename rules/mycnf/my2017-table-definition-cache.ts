import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import { lineOrTop, settingToJudge } from './support/runtime.js';

/** The upper bound of table_definition_cache: MariaDB's and MySQL's. */
const MAXIMUM = { mariadb: 2_097_152, mysql: 524_288 } as const;

export default defineRule('mycnf', {
  meta: {
    id: 'MY2017',
    name: 'table-definition-cache',
    category: 'performance',
    description: "The running server's table_definition_cache holds fewer definitions than it has tables",
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      headroom: { type: 'number', default: 1.1, description: 'the value expected is the table count times this, rounded up to a hundred' },
    },
    messages: {
      small: {
        message:
          'table_definition_cache {{size}} holds fewer definitions than the {{tables}} tables; expected table_definition_cache {{suggested}}',
        detail:
          'every table used after the cache is full evicts a definition, which the next use reads again from the data dictionary ({{tables}} base tables{{unread}} against table_definition_cache {{size}}, table_open_cache {{openCache}}, open_files_limit {{filesLimit}}; {{source}}); a definition takes a few KiB, so the cache costs little (MySQLTuner asks for more definitions than tables too)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        const tables = fact?.value.tables;
        if (fact === undefined || tables === undefined) return;
        const size = settingToJudge(ctx.config, fact.value, 'table_definition_cache');
        if (size === undefined || size >= tables.total) return;
        const product = fact.value.server.startsWith('mysql=') ? 'mysql' : 'mariadb';
        const suggested = Math.min(Math.ceil((tables.total * ctx.options.headroom) / 100) * 100, MAXIMUM[product]);
        const plan = planMycnfSetting(ctx.config, 'table_definition_cache', String(suggested));
        ctx.report({
          at: lineOrTop(ctx.config, 'table_definition_cache'),
          messageId: 'small',
          data: {
            size,
            tables: tables.total,
            suggested,
            unread: tables.unread.length === 0 ? '' : `, schemas ${tables.unread.join(', ')} not counted`,
            openCache: fact.value.variables.table_open_cache ?? 'unknown',
            filesLimit: fact.value.variables.open_files_limit ?? 'unknown',
            source: liveSource(fact.source),
          },
          fix: () => plan?.edit ?? null,
        });
      },
    };
  },
});
