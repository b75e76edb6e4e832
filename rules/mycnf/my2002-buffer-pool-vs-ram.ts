import { defineRule } from '../../src/engine/define-rule.js';
import { formatBytes, formatPercent } from '../../src/util/units.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';
import type { HostFacts } from '../../src/core/host-facts.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2002',
    name: 'buffer-pool-vs-ram',
    category: 'performance',
    description:
      'The InnoDB buffer pool is a small fraction of the RAM of a host that runs only the database, smaller than the data it caches, or far larger',
    defaultSeverity: 'info',
    recommended: true,
    needsHost: true,
    fix: 'tune',
    messages: {
      small: {
        message:
          'innodb_buffer_pool_size {{pool}} is {{share}} of {{ram}} RAM on a host that runs only the database; expected {{suggested}}{{where}}',
        detail: 'pool {{from}}; RAM {{ramSource}}; {{why}}',
      },
      belowData: {
        message: 'innodb_buffer_pool_size {{pool}} cannot hold the {{data}} of InnoDB data and indexes; expected {{suggested}}{{where}}',
        detail:
          'InnoDB {{tables}} tables from information_schema.TABLES ({{source}}); {{why}}; every page that does not fit is read from disk again when it is needed',
      },
      aboveData: {
        message:
          'innodb_buffer_pool_size {{pool}} caches {{data}} of InnoDB data and indexes; expected {{suggested}}, the data and room for growth',
        detail:
          'InnoDB {{tables}} tables from information_schema.TABLES ({{source}}); {{why}}; a pool larger than the data never fills, and the rest of {{pool}} is memory the page cache, the web tier and the connections could use; raise it again as the data grows',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    return {
      end() {
        const memory = ctx.sizing.plan.memory;
        const cache = ctx.sizing.plan.mysql?.caches.find((candidate) => candidate.name === 'innodb_buffer_pool_size');
        const decision = cache?.decision;
        const pool = mycnf.size('innodb_buffer_pool_size');
        if (memory === undefined || decision === undefined || pool === undefined) return;
        if (decision.reason !== 'data' && decision.reason !== 'dedicated') return;
        const edit = planMycnfSetting(mycnf, 'innodb_buffer_pool_size', { bytes: decision.planned });
        const where = edit !== null && pool.from === 'default' ? `; to be added at ${edit.where}` : '';
        const at = pool.from === 'default' ? { file: mycnf.root, range: [0, 0] as const } : pool.from;
        const common = {
          pool: formatBytes(pool.bytes),
          from: pool.from === 'default' ? `default for ${mycnf.target.product} ${mycnf.target.version}` : 'set here',
          suggested: formatServerSize(decision.planned, mycnf.target),
          why: decision.why,
          where,
        };
        const fix = () => edit?.edit ?? null;
        if (decision.reason === 'dedicated') {
          ctx.report({
            at,
            messageId: 'small',
            data: {
              ...common,
              share: formatPercent(Math.round((pool.bytes / memory.ram.value) * 1000) / 1000),
              ram: formatBytes(memory.ram.value),
              ramSource: memory.ram.source,
            },
            fix,
          });
          return;
        }
        const raise = decision.planned > decision.current;
        ctx.report({
          at,
          messageId: raise ? 'belowData' : 'aboveData',
          // A pool that cannot hold the data reads from disk on every miss: worth a warning.
          severity: raise ? 'warn' : 'info',
          data: { ...common, ...innodbData(ctx.host) },
          fix,
        });
      },
    };
  },
});

/** The InnoDB data the live server reported, for the messages. */
function innodbData(host: HostFacts): { data: string; tables: number; source: string } {
  const innodb = host.mysqlLive?.value.engines?.find((engine) => engine.engine.toLowerCase() === 'innodb');
  return {
    data: formatBytes(innodb === undefined ? 0 : innodb.dataBytes + innodb.indexBytes),
    tables: innodb?.tables ?? 0,
    source: liveSource(host.mysqlLive?.source ?? ''),
  };
}
