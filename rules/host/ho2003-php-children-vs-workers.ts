import { defineRule } from '../../src/engine/define-rule.js';
import { plannedApachePeak, type ApacheSizing } from '../../src/analysis/sizing.js';
import { handsOffTo, samePoolSocket } from '../../src/analysis/php-pools.js';
import type { PoolUsage } from '../../src/languages/phpfpm/consumption.js';
import type { HostRuleContext } from '../../src/engine/types.js';
import { replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOf } from '../../src/core/located.js';

export default defineRule('host', {
  meta: {
    id: 'HO2003',
    name: 'php-children-vs-workers',
    category: 'performance',
    description:
      'A php-fpm pool has more children than the Apache workers that hand requests to it can keep busy, or far fewer while memory allows more',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      belowShare: {
        type: 'share',
        default: 0.25,
        description: 'fewer children than this share of the workers, where memory holds more, is reported',
      },
    },
    messages: {
      unreachable: {
        message:
          '[{{pool}}] pm.max_children {{children}} is above the {{workers}} Apache workers that hand requests to it; expected pm.max_children {{workers}} at most',
        detail:
          '{{apache}} passes requests to {{listen}}; a worker waits for its PHP request, so no more than {{workers}} children are ever busy; the other {{unreachable}} still count in the memory budget (PF2001) and against max_connections (HO1001)',
      },
      starved: {
        message:
          '[{{pool}}] pm.max_children {{children}} runs at most {{children}} of the {{workers}} PHP requests Apache can hand it, and memory holds {{fits}}; expected pm.max_children {{suggested}}',
        detail:
          '{{apache}} passes requests to {{listen}}; past {{children}} busy children the rest wait in the socket backlog while their Apache workers wait too; the web tier budget leaves {{room}} for PHP beside Apache ({{budgetReason}}), {{fits}} x {{perChild}} ({{perChildSource}}); raise max_connections with it (HO1001)',
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
          if (children < workers * ctx.options.belowShare) {
            reportStarved(ctx, pool, senders, workers, children);
            continue;
          }
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

/**
 * A pool far below the workers that feed it, when the memory the web tier
 * leaves beside Apache holds more children: the tune fix raises it to what
 * fits, at most the workers (HO2003's other half; PF2001 keeps the ceiling).
 */
function reportStarved(
  ctx: HostRuleContext<{ readonly belowShare: number }, 'unreachable' | 'starved'>,
  pool: PoolUsage,
  senders: readonly ApacheSizing[],
  workers: number,
  children: number,
): void {
  const budget = ctx.sizing.apacheBudget;
  const use = pool.maxChildrenUse;
  if (budget === undefined || use === undefined || pool.perChild.value <= 0) return;
  const apache = plannedApachePeak(ctx.sizing);
  const others = ctx.sizing.pools.filter((other) => other !== pool).reduce((sum, other) => sum + other.peak, 0);
  const room = budget - apache - others;
  const fits = Math.floor(room / pool.perChild.value);
  const suggested = Math.min(workers, fits);
  if (suggested < children * 2) return;
  ctx.report({
    at: use,
    messageId: 'starved',
    severity: 'info',
    data: {
      pool: pool.pool.name,
      children,
      workers,
      fits,
      suggested,
      listen: pool.listen ?? '',
      apache: limitsOf(senders),
      room: formatBytes(room),
      budgetReason: ctx.sizing.apacheBudgetReason,
      perChild: formatBytes(pool.perChild.value),
      perChildSource: pool.perChild.source,
    },
    fix: () => replacePhpFpmValue(use, String(suggested)),
  });
}
