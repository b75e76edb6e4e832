import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported by the include resolvers: an include cycle, the depth limit of the server, or tune-lint's own file-count limit. */
export default defineToolRule({
  meta: {
    id: 'TL0006',
    name: 'include-limit',
    category: 'correctness',
    description: 'Includes loop or exceed a limit',
    defaultSeverity: 'error',
    recommended: true,
    messages: { problem: '{{message}}' },
  },
});
