import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { lineOrTop, someOf } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2018',
    name: 'myisam-tables',
    category: 'performance',
    description: "The running server's application tables include MyISAM tables",
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      myisam: {
        message: '{{count}} MyISAM {{tables}}: {{names}}; expected InnoDB: ALTER TABLE {{first}} ENGINE=InnoDB',
        detail:
          "MyISAM locks the whole table for every write, is not crash-safe (a table can need REPAIR after a power cut) and caches only its indexes, in key_buffer_size, beside the buffer pool; the server's own mysql schema is left out ({{source}})",
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        const myisam = fact?.value.tables?.myisam;
        if (fact === undefined || myisam === undefined || myisam.count === 0) return;
        ctx.report({
          at: lineOrTop(ctx.config, 'default_storage_engine'),
          messageId: 'myisam',
          data: {
            count: myisam.count,
            tables: myisam.count === 1 ? 'table' : 'tables',
            names: someOf(myisam.names, myisam.count),
            first: myisam.names[0] ?? '',
            source: liveSource(fact.source),
          },
        });
      },
    };
  },
});
