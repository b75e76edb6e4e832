import { defineRule } from '../../src/engine/define-rule.js';
import type { ApacheUsage } from '../../src/languages/apache/consumption.js';
import { replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOf } from '../../src/core/located.js';

export default defineRule('host', {
  meta: {
    id: 'HO2003',
    name: 'php-children-vs-workers',
    category: 'performance',
    description:
      'A php-fpm pool has more children than the Apache workers that hand requests to it can keep busy, or far fewer than the CPUs and workers can use while memory holds more',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      unreachable: {
        message:
          '[{{pool}}] pm.max_children {{children}} is above the {{workers}} Apache workers that hand requests to it; expected pm.max_children {{suggested}}',
        detail:
          '{{apache}} passes requests to {{listen}}; a worker waits for its PHP request, so no more than {{workers}} children are ever busy; the other {{unreachable}} still count in the memory budget (PF2001) and against max_connections (HO1001)',
      },
      starved: {
        message:
          '[{{pool}}] pm.max_children {{children}} runs fewer PHP requests at once than the host can, and memory holds more; expected pm.max_children {{suggested}}',
        detail:
          '{{feeders}}past {{children}} busy children the rest wait in the socket backlog; {{why}}; one child {{perChild}} ({{perChildSource}}); max_connections follows (HO1001)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const plan = ctx.sizing.plan;
        for (const entry of plan.pools) {
          const pool = entry.usage;
          const decision = entry.maxChildren;
          const use = pool.maxChildrenUse;
          if (use === undefined || (decision.reason !== 'workers' && decision.reason !== 'room')) continue;
          const workers = entry.feeders.reduce((sum, apache) => sum + apache.maxRequestWorkers, 0);
          const data = {
            pool: pool.pool.name,
            children: decision.current,
            suggested: decision.planned,
            workers,
            listen: pool.listen ?? '',
            apache: limitsOf(entry.feeders),
            why: decision.why,
          };
          const fix = () => replacePhpFpmValue(use, String(decision.planned));
          if (decision.reason === 'workers') {
            ctx.report({ at: use, messageId: 'unreachable', data: { ...data, unreachable: decision.current - decision.planned }, fix });
            continue;
          }
          ctx.report({
            at: use,
            messageId: 'starved',
            severity: 'info',
            data: {
              ...data,
              perChild: formatBytes(pool.perChild.value),
              perChildSource: pool.perChild.source,
              feeders: entry.feeders.length === 0 ? '' : `${limitsOf(entry.feeders)} passes requests to ${pool.listen ?? 'it'}; `,
            },
            fix,
          });
        }
      },
    };
  },
});

/** `MaxRequestWorkers 150 (mpm_event.conf:7)` for each server that hands requests to the pool. */
function limitsOf(senders: readonly ApacheUsage[]): string {
  return senders
    .map((apache) => {
      const use = apache.config.mpm?.values.MaxRequestWorkers.use;
      return `${apache.limitName} ${apache.maxRequestWorkers} (${use === undefined ? `default, ${apache.config.root.displayPath}` : lineOf(use)})`;
    })
    .join(' and ');
}
