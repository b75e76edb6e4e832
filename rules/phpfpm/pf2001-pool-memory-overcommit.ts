import { defineRule } from '../../src/engine/define-rule.js';
import type { TextEdit } from '../../src/core/types.js';
import { plannedApachePeak } from '../../src/analysis/sizing.js';
import type { PhpFpmPool } from '../../src/languages/phpfpm/model.js';
import { replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';
import { formatBytes } from '../../src/util/units.js';

export default defineRule('phpfpm', {
  meta: {
    id: 'PF2001',
    name: 'pool-memory-overcommit',
    category: 'performance',
    description: "The php-fpm pools can start more children than the web tier's memory budget holds next to Apache",
    defaultSeverity: 'error',
    recommended: true,
    fix: 'tune',
    needsHost: true,
    messages: {
      overcommit: {
        message:
          '[{{pool}}] pm.max_children {{children}} x {{perChild}} = {{peak}}; the pools together ({{pools}}) exceed the {{room}} the web tier leaves for PHP; expected pm.max_children {{suggested}}',
        detail:
          'web tier budget: {{budgetReason}}{{apacheShare}}; one child: {{perChildSource}}; every pool is cut by the same share{{alongside}}',
      },
      noRoom: {
        message:
          "[{{pool}}] the web tier budget of {{budget}} leaves no room for php-fpm beside Apache's {{apache}}; expected a smaller Apache or more memory",
        detail: 'web tier budget: {{budgetReason}}; AP2001 sizes Apache first',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const budget = ctx.sizing.apacheBudget;
        const pools = ctx.sizing.pools;
        const total = pools.reduce((sum, pool) => sum + pool.peak, 0);
        if (budget === undefined || total === 0) return;
        const apache = plannedApachePeak(ctx.sizing);
        const room = budget - apache;
        if (total <= room) return;
        const common = {
          budgetReason: ctx.sizing.apacheBudgetReason,
          apache: formatBytes(apache),
          apacheShare: ctx.sizing.apache.length === 0 ? '' : `; Apache takes ${formatBytes(apache)} of it at its limit`,
          budget: formatBytes(budget),
        };
        for (const pool of pools.filter((entry) => entry.config === ctx.config)) {
          const use = pool.maxChildrenUse;
          if (use === undefined || pool.maxChildren === undefined || pool.maxChildren === 0) continue;
          if (room <= 0) {
            ctx.report({ at: use, messageId: 'noRoom', data: { ...common, pool: pool.pool.name } });
            continue;
          }
          const suggested = Math.max(1, Math.floor((pool.maxChildren * room) / total));
          const companions = spareEdits(pool.pool, suggested);
          ctx.report({
            at: use,
            messageId: 'overcommit',
            data: {
              ...common,
              pool: pool.pool.name,
              children: pool.maxChildren,
              perChild: formatBytes(pool.perChild.value),
              peak: formatBytes(pool.peak),
              pools: formatBytes(total),
              room: formatBytes(room),
              suggested,
              perChildSource: pool.perChild.source,
              alongside:
                companions.length === 0
                  ? ''
                  : `; with it ${companions.map((entry) => entry.change).join(', ')}, which php-fpm would refuse above the new limit`,
            },
            fix: () => {
              const main = replacePhpFpmValue(use, String(suggested));
              return main === null ? null : [main, ...companions.map((entry) => entry.edit)];
            },
          });
        }
      },
    };
  },
});

/**
 * The spare and start values a lower pm.max_children would leave above it,
 * which php-fpm refuses (PF1001): brought down with it, keeping their order.
 */
function spareEdits(pool: PhpFpmPool, children: number): { change: string; edit: TextEdit }[] {
  const value = (key: string): number | undefined => {
    const text = pool.effective(key)?.value;
    return text === undefined || !/^\d+$/.test(text.trim()) ? undefined : Number(text);
  };
  const max = value('pm.max_spare_servers');
  const min = value('pm.min_spare_servers');
  const start = value('pm.start_servers');
  const newMax = max === undefined ? undefined : Math.min(max, children);
  const newMin = min === undefined ? undefined : Math.min(min, newMax ?? children);
  const newStart = start === undefined ? undefined : Math.min(Math.max(start, newMin ?? 1), newMax ?? children);
  const out: { change: string; edit: TextEdit }[] = [];
  for (const [key, before, after] of [
    ['pm.max_spare_servers', max, newMax],
    ['pm.min_spare_servers', min, newMin],
    ['pm.start_servers', start, newStart],
  ] as const) {
    const use = pool.effective(key);
    if (use === undefined || before === undefined || after === undefined || before === after) continue;
    const edit = replacePhpFpmValue(use, String(after));
    if (edit !== null) out.push({ change: `${key} ${after}`, edit });
  }
  return out;
}
