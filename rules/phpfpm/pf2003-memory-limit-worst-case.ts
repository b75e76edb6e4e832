import { defineRule } from '../../src/engine/define-rule.js';
import { formatBytes } from '../../src/util/units.js';

export default defineRule('phpfpm', {
  meta: {
    id: 'PF2003',
    name: 'memory-limit-worst-case',
    category: 'performance',
    description: "Every child of a pool at PHP's memory_limit would take more than the host's RAM",
    defaultSeverity: 'warn',
    recommended: true,
    needsHost: true,
    messages: {
      aboveRam: {
        message:
          '[{{pool}}] pm.max_children {{children}} x memory_limit {{limit}} = {{worst}} is above {{ram}} RAM; expected a memory_limit or pm.max_children whose product fits',
        detail:
          'memory_limit bounds one request, so a pool where every child runs its heaviest request at once can reach {{worst}}; the budget (PF2001) counts the typical child ({{perChild}}), this is the case that meets the OOM killer; RAM {{ramSource}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const ram = ctx.sizing.ram;
        if (ram === undefined) return;
        for (const pool of ctx.sizing.pools.filter((entry) => entry.config === ctx.config)) {
          if (pool.memoryLimit === undefined || pool.maxChildren === undefined) continue;
          const worst = pool.memoryLimit * pool.maxChildren;
          if (worst <= ram.value) continue;
          ctx.report({
            at: pool.pool.effective('php_admin_value[memory_limit]') ?? pool.pool.effective('php_value[memory_limit]') ?? pool.pool.header,
            messageId: 'aboveRam',
            data: {
              pool: pool.pool.name,
              children: pool.maxChildren,
              limit: formatBytes(pool.memoryLimit),
              worst: formatBytes(worst),
              ram: formatBytes(ram.value),
              ramSource: ram.source,
              perChild: formatBytes(pool.perChild.value),
            },
          });
        }
      },
    };
  },
});
