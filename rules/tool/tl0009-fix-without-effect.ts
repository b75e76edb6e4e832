import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported by the fix passes (src/lint.ts) for a fix whose finding survives it: the patch leaves that fix out. */
export default defineToolRule({
  meta: {
    id: 'TL0009',
    name: 'fix-without-effect',
    category: 'correctness',
    description: 'A fix was left out of the patch because its finding was still there once the fix was in',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      dropped: {
        message: 'the fix of {{rule}} here is left out of the patch: it does not take effect',
        detail: 'the finding was still there once the fix was in; this is a tune-lint bug: please report it with this configuration',
      },
    },
  },
});
