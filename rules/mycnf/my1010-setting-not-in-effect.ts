import { defineRule } from '../../src/engine/define-rule.js';
import { settingsNotInEffect } from '../../src/analysis/running-values.js';
import { liveSource } from '../../src/analysis/mysql-live.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY1010',
    name: 'setting-not-in-effect',
    category: 'correctness',
    description: 'An option file sets a value the running server does not have',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      differs: {
        message:
          '{{name}} = {{written}} here, but the running server has {{running}}; expected a restart, or SET GLOBAL {{name}} = {{written}}',
        detail:
          'SHOW GLOBAL VARIABLES of {{source}}; the file changed after the server started, someone SET GLOBAL another value since, or the server adjusted this one at start (its error log says so)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        if (fact === undefined) return;
        for (const { use, running } of settingsNotInEffect(ctx.config, fact.value)) {
          ctx.report({
            at: use,
            messageId: 'differs',
            data: { name: use.name.key, written: use.value ?? 'ON', running, source: liveSource(fact.source) },
          });
        }
      },
    };
  },
});
