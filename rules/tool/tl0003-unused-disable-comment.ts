import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported by the linter after disable comments are applied. */
export default defineToolRule({
  meta: {
    id: 'TL0003',
    name: 'unused-disable-comment',
    category: 'correctness',
    description: 'A tune-lint-disable comment suppresses nothing',
    defaultSeverity: 'warn',
    recommended: true,
    messages: { unused: 'Unused tune-lint-disable comment for {{rules}}' },
  },
});
