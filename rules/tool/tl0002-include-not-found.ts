import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported by the include resolvers: httpd refuses to start when an Include matches nothing or cannot be read; the MySQL reader ignores a missing !include but refuses a missing !includedir. */
export default defineToolRule({
  meta: {
    id: 'TL0002',
    name: 'include-not-found',
    category: 'correctness',
    description: 'An included file or pattern cannot be read',
    defaultSeverity: 'error',
    recommended: true,
    messages: { problem: '{{message}}' },
  },
});
