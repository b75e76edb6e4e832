import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported by the readers: broken structure such as an unclosed or stray section tag. */
export default defineToolRule({
  meta: {
    id: 'TL0001',
    name: 'parse-error',
    category: 'correctness',
    description: 'The file cannot be parsed as the server would read it',
    defaultSeverity: 'error',
    recommended: true,
    messages: { problem: '{{message}}' },
  },
});
