import { defineHostRule } from '../../src/engine/define-rule.js';
import type { ApacheSizing } from '../../src/analysis/sizing.js';
import { handsOffTo, samePoolSocket } from '../../src/analysis/php-pools.js';
import { lineOf } from '../../src/core/located.js';

export default defineHostRule({
  meta: {
    id: 'HO2003',
    name: 'php-children-vs-workers',
    category: 'performance',
    description: 'A php-fpm pool has more children than the Apache workers that hand requests to it can ever keep busy',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      unreachable: {
        message:
          '[{{pool}}] pm.max_children {{children}} is above the {{workers}} Apache workers that hand requests to it; expected pm.max_children {{workers}} at most',
        detail:
          '{{apache}} passes requests to {{listen}}; a worker waits for its PHP request, so no more than {{workers}} children are ever busy; the other {{unreachable}} still count in the memory budget (PF2001) and against max_connections (HO1001)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        for (const pool of ctx.sizing.pools) {
          if (pool.listen === undefined || pool.maxChildren === undefined || pool.maxChildrenUse === undefined) continue;
          const senders = ctx.sizing.apache.filter((apache) => handsOffTo(apache.config, pool));
          if (senders.length === 0) continue;
          const workers = senders.reduce((sum, apache) => sum + apache.plannedMaxRequestWorkers, 0);
          const reached = ctx.sizing.pools.filter((other) => samePoolSocket(other, pool));
          const children = reached.reduce((sum, other) => sum + (other.maxChildren ?? 0), 0);
          if (children <= workers) continue;
          ctx.report({
            at: pool.maxChildrenUse,
            messageId: 'unreachable',
            data: {
              pool: pool.pool.name,
              children,
              workers,
              listen: pool.listen,
              unreachable: children - workers,
              apache: limitsOf(senders),
            },
          });
        }
      },
    };
  },
});

/** `MaxRequestWorkers 150 (mpm_event.conf:7)` for each server that hands requests to the pool. */
function limitsOf(senders: readonly ApacheSizing[]): string {
  return senders
    .map((apache) => {
      const use = apache.config.mpm?.values.MaxRequestWorkers.use;
      return `${apache.limitName} ${apache.plannedMaxRequestWorkers} (${use === undefined ? `default, ${apache.config.root.displayPath}` : lineOf(use)})`;
    })
    .join(' and ');
}
