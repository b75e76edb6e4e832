import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported by --verify when the real server refuses a patched file: that file's fixes are dropped. */
export default defineToolRule({
  meta: {
    id: 'TL0008',
    name: 'fix-rejected-by-server',
    category: 'correctness',
    description: 'A fix was dropped because the real server rejects the patched config',
    defaultSeverity: 'error',
    recommended: true,
    messages: { problem: '{{message}}' },
  },
});
