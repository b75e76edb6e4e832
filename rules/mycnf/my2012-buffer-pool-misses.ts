import { defineRule } from '../../src/engine/define-rule.js';
import { counter, percent, runtimeCounters, variableNumber } from '../../src/analysis/mysql-live.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOrTop, MIN_UPTIME_WAIT_OPTION } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2012',
    name: 'buffer-pool-misses',
    category: 'performance',
    description: "The running server's InnoDB buffer pool misses reads from disk or waits for free pages, while the data would fit",
    defaultSeverity: 'warn',
    recommended: true,
    options: {
      minUptime: MIN_UPTIME_WAIT_OPTION,
      minReadRequests: {
        type: 'integer',
        default: 10_000,
        description: 'fewer page read requests than this give no verdict on the buffer pool',
      },
      maxMissRate: { type: 'share', default: 0.01, description: 'a share of page reads from disk above this is reported' },
    },
    messages: {
      misses: {
        message:
          'the InnoDB buffer pool read {{missRate}} of pages from disk{{waits}}; expected a pool that holds the {{data}} of InnoDB data and indexes, as far as RAM allows (MY2002, MY2001)',
        detail:
          'Innodb_buffer_pool_reads {{reads}} of Innodb_buffer_pool_read_requests {{requests}}, Innodb_buffer_pool_wait_free {{waitFree}}, in {{span}}; innodb_buffer_pool_size {{size}}; InnoDB data and indexes {{data}} ({{sizeSource}})',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime);
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const requests = counter(live, 'Innodb_buffer_pool_read_requests') ?? 0;
        const reads = counter(live, 'Innodb_buffer_pool_reads') ?? 0;
        const waitFree = counter(live, 'Innodb_buffer_pool_wait_free') ?? 0;
        const size = variableNumber(live, 'innodb_buffer_pool_size');
        if (requests < ctx.options.minReadRequests || size === undefined) return;
        if (reads / requests <= ctx.options.maxMissRate && waitFree === 0) return;
        const innodb = live.engines?.find((engine) => engine.engine.toLowerCase() === 'innodb');
        const data = innodb === undefined ? undefined : innodb.dataBytes + innodb.indexBytes;
        // A pool already larger than the data misses on first reads only: nothing to size.
        if (data !== undefined && size >= data && waitFree === 0) return;
        ctx.report({
          at: lineOrTop(ctx.config, 'innodb_buffer_pool_size'),
          messageId: 'misses',
          data: {
            missRate: percent(reads, requests),
            waits: waitFree > 0 ? ` and waited ${waitFree} times for a free page` : '',
            data: data === undefined ? 'unknown size' : formatBytes(data),
            reads,
            requests,
            waitFree,
            span,
            size: formatBytes(size),
            sizeSource: innodb === undefined ? 'information_schema not read' : `${innodb.tables} tables in information_schema.TABLES`,
          },
        });
      },
    };
  },
});
