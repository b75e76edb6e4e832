import { defineRule } from '../../src/engine/define-rule.js';
import type { TextEdit } from '../../src/core/types.js';
import type { PhpFpmPool } from '../../src/languages/phpfpm/model.js';
import { replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';
import { formatBytes } from '../../src/util/units.js';

export default defineRule('phpfpm', {
  meta: {
    id: 'PF2001',
    name: 'pool-memory-overcommit',
    category: 'performance',
    description:
      "The php-fpm pools can start more children than the web tier's memory budget holds next to Apache, or far more than the CPUs run",
    defaultSeverity: 'error',
    recommended: true,
    fix: 'tune',
    needsHost: true,
    messages: {
      overcommit: {
        message:
          '[{{pool}}] pm.max_children {{children}} x {{perChild}} = {{peak}}; the pools together ({{pools}}) exceed the {{room}} the web tier leaves for PHP; expected pm.max_children {{suggested}}',
        detail:
          'web tier budget: {{budgetReason}}{{apacheShare}}; one child: {{perChildSource}}; every PHP runner is cut by the same share{{alongside}}',
      },
      cpus: {
        message:
          '[{{pool}}] pm.max_children {{children}} is far above the PHP requests the CPUs run at once; expected pm.max_children {{suggested}}',
        detail:
          '{{why}} (budget phpChildrenPerCpu); past that, more children only share the same CPUs, each request slower, and take memory the host could cache with{{memory}}{{alongside}}',
      },
      noRoom: {
        message:
          "[{{pool}}] the web tier budget of {{budget}} leaves no room for php-fpm beside Apache's {{apache}}; expected a smaller Apache or more memory",
        detail: 'web tier budget: {{budgetReason}}; Apache at one process each is already past it',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const plan = ctx.sizing.plan;
        const memory = plan.memory;
        if (memory === undefined) return;
        const pools = plan.pools;
        const apache = plan.apache.reduce((sum, entry) => sum + entry.peak, 0);
        const total = pools.reduce((sum, entry) => sum + entry.usage.peak, 0);
        const room = memory.webBudget.bytes - apache;
        const common = {
          budgetReason: memory.webBudget.reason,
          apache: formatBytes(apache),
          apacheShare: plan.apache.length === 0 ? '' : `; Apache takes ${formatBytes(apache)} of it at its planned limit`,
          budget: formatBytes(memory.webBudget.bytes),
        };
        for (const entry of pools.filter((candidate) => candidate.usage.config === ctx.config)) {
          const pool = entry.usage;
          const use = pool.maxChildrenUse;
          const decision = entry.maxChildren;
          if (use === undefined || (decision.reason !== 'memory' && decision.reason !== 'cpu')) continue;
          if (decision.reason === 'memory' && room <= 0) {
            ctx.report({ at: use, messageId: 'noRoom', data: { ...common, pool: pool.pool.name } });
            continue;
          }
          const suggested = decision.planned;
          const companions = spareEdits(pool.pool, suggested);
          const alongside =
            companions.length === 0
              ? ''
              : `; with it ${companions.map((companion) => companion.change).join(', ')}, which php-fpm would refuse above the new limit`;
          const fix = () => {
            const main = replacePhpFpmValue(use, String(suggested));
            return main === null ? null : [main, ...companions.map((companion) => companion.edit)];
          };
          if (decision.reason === 'cpu') {
            ctx.report({
              at: use,
              messageId: 'cpus',
              severity: memory.overcommitted ? 'error' : 'warn',
              data: {
                pool: pool.pool.name,
                children: decision.current,
                suggested,
                why: decision.why,
                alongside,
                memory: memory.overcommitted
                  ? `; at ${decision.current} x ${formatBytes(pool.perChild.value)} = ${formatBytes(pool.peak)} the pool is past the web tier's ${formatBytes(memory.webBudget.bytes)} too`
                  : '',
              },
              fix,
            });
            continue;
          }
          ctx.report({
            at: use,
            messageId: 'overcommit',
            severity: memory.overcommitted ? 'error' : 'warn',
            data: {
              ...common,
              pool: pool.pool.name,
              children: decision.current,
              perChild: formatBytes(pool.perChild.value),
              peak: formatBytes(pool.peak),
              pools: formatBytes(total),
              room: formatBytes(room),
              suggested,
              perChildSource: pool.perChild.source,
              alongside,
            },
            fix,
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
