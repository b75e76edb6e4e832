import { defineRule } from '../../src/engine/define-rule.js';
import { runtimeOnlyValues } from '../../src/analysis/running-values.js';
import { planMycnfSetting } from '../../src/languages/mycnf/edits.js';
import { variableUnit } from '../../src/languages/mycnf/defaults.js';
import { formatBytes } from '../../src/util/units.js';
import { liveSource } from '../../src/analysis/mysql-live.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY1011',
    name: 'runtime-only-value',
    category: 'correctness',
    description: 'The running server has a memory or connection setting no option file holds, which the next restart undoes',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      runtimeOnly: {
        message:
          'the running server has {{name}} = {{running}}, which no option file sets; expected it written down{{where}}, or it is {{atRestart}} after the next restart',
        detail:
          'SHOW GLOBAL VARIABLES of {{source}}; a SET GLOBAL lasts until the server stops; {{atRestart}} is the value the files and the default give',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        if (fact === undefined) return;
        for (const { key, running, atRestart } of runtimeOnlyValues(ctx.config, fact.value)) {
          const plan = planMycnfSetting(ctx.config, key, variableUnit(key) === 'bytes' ? { bytes: Number(running) } : running);
          ctx.report({
            at: { file: ctx.config.root, range: [0, 0] as const },
            messageId: 'runtimeOnly',
            data: {
              name: key,
              running: shown(key, running),
              atRestart: shown(key, atRestart),
              source: liveSource(fact.source),
              where: plan === null ? '' : ` at ${plan.where}`,
            },
            fix: () => plan?.edit ?? null,
          });
        }
      },
    };
  },
});

/** A byte count as people read it (`16 MiB`), other values as the server prints them. */
function shown(key: string, value: string): string {
  return variableUnit(key) === 'bytes' && /^\d+$/.test(value) ? formatBytes(Number(value)) : value;
}
