import { defineRule } from '../../src/engine/define-rule.js';
import { formatBytes, formatPercent, GIB, MIB } from '../../src/util/units.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import type { EngineUse } from '../../src/host/facts.js';
import { replaceMycnfSize } from '../../src/languages/mycnf/edits.js';
import type { MycnfSize } from '../../src/languages/mycnf/model.js';
import { formatServerSize } from '../../src/languages/mycnf/sizes.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2002',
    name: 'buffer-pool-vs-ram',
    category: 'performance',
    description:
      'The InnoDB buffer pool is a small fraction of the RAM of a host that runs only the database, or far larger than the data it caches',
    defaultSeverity: 'info',
    recommended: true,
    needsHost: true,
    fix: 'tune',
    options: {
      minRam: { type: 'size', default: '4G', description: 'hosts with less RAM are not checked (the default pool is left alone)' },
      minShare: { type: 'share', default: 0.25, description: 'a pool below this share of RAM is reported' },
    },
    messages: {
      small: {
        message:
          'innodb_buffer_pool_size {{pool}} is {{share}} of {{ram}} RAM; expected about {{dedicated}} on a host that runs only the database',
        detail:
          "pool {{from}}; RAM {{ramSource}}; {{dedicated}} is what MySQL's own innodb_dedicated_server sizing gives ({{rule}}) (heuristic)",
      },
      aboveData: {
        message:
          'innodb_buffer_pool_size {{pool}} caches {{data}} of InnoDB data and indexes; expected {{suggested}}, the data and half again for growth',
        detail:
          'InnoDB {{tables}} tables from information_schema.TABLES ({{source}}); a pool larger than the data never fills, and the rest of {{pool}} is memory the page cache, the web tier and the connections could use; raise it again as the data grows',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    /** With the server's own InnoDB sizes there is nothing to guess from RAM: a pool far above the data is the finding. */
    const reportAgainstData = (pool: MycnfSize, innodb: EngineUse): void => {
      const data = innodb.dataBytes + innodb.indexBytes;
      const suggested = Math.max(128 * MIB, Math.ceil((data * 1.5) / (128 * MIB)) * 128 * MIB);
      if (pool.from === 'default' || pool.bytes <= Math.max(2 * data, data + GIB) || suggested >= pool.bytes) return;
      const use = pool.from;
      ctx.report({
        at: use,
        messageId: 'aboveData',
        data: {
          pool: formatBytes(pool.bytes),
          data: formatBytes(data),
          suggested: formatServerSize(suggested, mycnf.target),
          tables: innodb.tables,
          source: liveSource(ctx.host.mysqlLive?.source ?? ''),
        },
        fix: () => replaceMycnfSize(use, suggested, mycnf.target),
      });
    };
    return {
      end() {
        const ram = ctx.sizing.ram;
        const pool = mycnf.size('innodb_buffer_pool_size');
        const innodb = ctx.host.mysqlLive?.value.engines?.find((engine) => engine.engine.toLowerCase() === 'innodb');
        if (pool !== undefined && innodb !== undefined) {
          reportAgainstData(pool, innodb);
          return;
        }
        // With Apache linted, or running here by the probe, the host is shared: the web tier's budget comes first (AP2001, HO2001).
        const shared = ctx.sizing.apache.length > 0 || ctx.host.apacheRunning?.value === true;
        if (ram === undefined || shared || ram.value < ctx.options.minRam) return;
        if (pool === undefined || pool.bytes >= ram.value * ctx.options.minShare) return;
        // innodb_dedicated_server (MySQL 8.0): 50 % of RAM from 1 to 4 GiB, 75 % above 4 GiB.
        const share = ram.value > 4 * GIB ? 0.75 : 0.5;
        const dedicated = Math.floor((ram.value * share) / (128 * MIB)) * 128 * MIB;
        ctx.report({
          at: pool.from === 'default' ? { file: mycnf.root, range: [0, 0] } : pool.from,
          messageId: 'small',
          data: {
            pool: formatBytes(pool.bytes),
            from: pool.from === 'default' ? `default for ${mycnf.target.product} ${mycnf.target.version}` : 'set here',
            share: formatPercent(Math.round((pool.bytes / ram.value) * 1000) / 1000),
            ram: formatBytes(ram.value),
            ramSource: ram.source,
            dedicated: formatBytes(dedicated),
            rule: `${formatPercent(share)} of RAM ${ram.value > 4 * GIB ? 'above 4 GiB' : 'up to 4 GiB'}`,
          },
        });
      },
    };
  },
});
