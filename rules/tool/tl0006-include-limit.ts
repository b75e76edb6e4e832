import { defineRule } from '../../src/engine/define-rule.js';

/** Reported by the include resolvers: an include cycle, the depth limit of the server, or tune-lint's own file-count limit. */
export default defineRule({
  meta: {
    id: 'TL0006',
    name: 'include-limit',
    language: 'tool',
    category: 'correctness',
    description: 'Includes loop or exceed a limit',
    defaultSeverity: 'error',
    recommended: true,
    messages: { problem: '{{message}}' },
  },
  defaultOptions: {},
  create: () => ({}),
});
