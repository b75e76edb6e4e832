import { defineRule } from '../../src/engine/define-rule.js';
import { replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';
import { formatBytes } from '../../src/util/units.js';

export default defineRule('phpfpm', {
  meta: {
    id: 'PF2005',
    name: 'static-pool-small-host',
    category: 'performance',
    description: 'pm = static keeps every child of a pool running on a host whose memory they would be better off sharing',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'tune',
    needsHost: true,
    options: {
      smallRam: { type: 'size', default: '4G', description: 'hosts with less RAM than this are small' },
    },
    messages: {
      static: {
        message: '[{{pool}}] pm = static keeps {{children}} children ({{memory}}) running on a {{ram}} host; expected pm = ondemand',
        detail:
          'a static pool starts pm.max_children at once and keeps them idle between peaks; ondemand starts children as requests come and ends them after pm.process_idle_timeout, leaving the memory to the page cache and the database; the peak is the same; RAM {{ramSource}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const ram = ctx.sizing.ram;
        if (ram === undefined || ram.value >= ctx.options.smallRam) return;
        for (const pool of ctx.sizing.pools.filter((entry) => entry.config === ctx.config)) {
          const use = pool.pool.effective('pm');
          if (use?.value.toLowerCase() !== 'static' || pool.maxChildren === undefined) continue;
          ctx.report({
            at: use,
            messageId: 'static',
            data: {
              pool: pool.pool.name,
              children: pool.maxChildren,
              memory: formatBytes(pool.peak),
              ram: formatBytes(ram.value),
              ramSource: ram.source,
            },
            fix: () => replacePhpFpmValue(use, 'ondemand'),
          });
        }
      },
    };
  },
});
