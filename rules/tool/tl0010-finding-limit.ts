import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported by the engine (src/engine/linter.ts) when one rule finds more in one file than it lists. */
export default defineToolRule({
  meta: {
    id: 'TL0010',
    name: 'finding-limit',
    category: 'correctness',
    description: 'One rule found more problems in one file than tune-lint lists',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      more: {
        message: '{{rule}} found {{count}} more problems in this file than the {{limit}} listed',
        detail:
          'tune-lint lists at most {{limit}} findings of one rule in one file, so that a file of a million lines lints in bounded memory; the fixes of those not listed are not in the patch: fix the ones listed and run again',
      },
    },
  },
});
