import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { lineOrTop, someOf } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2019',
    name: 'tables-without-primary-key',
    category: 'performance',
    description: 'InnoDB tables of the running server have no primary key',
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      noKey: {
        message: '{{count}} InnoDB {{tables}} without a primary key: {{names}}; expected one each',
        detail:
          'InnoDB then clusters the rows on a hidden 6-byte row id that no query can use, a replica applying row-based events scans the whole table for each changed row, and Galera refuses to replicate DELETEs on such tables ({{source}})',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        const tables = fact?.value.tables?.withoutPrimaryKey;
        if (fact === undefined || tables === undefined || tables.count === 0) return;
        ctx.report({
          at: lineOrTop(ctx.config, 'default_storage_engine'),
          messageId: 'noKey',
          data: {
            count: tables.count,
            tables: tables.count === 1 ? 'table' : 'tables',
            names: someOf(tables.names, tables.count),
            source: liveSource(fact.source),
          },
        });
      },
    };
  },
});
