import { defineRule } from '../../src/engine/define-rule.js';

/**
 * Reported by the option-file reader (src/languages/mycnf/model.ts): an option
 * before any group, `[group` without `]`, `!include`/`!includedir` without a
 * path. In the file the server is given these stop it from starting; in an
 * included file they end that file.
 */
export default defineRule('mycnf', {
  meta: {
    id: 'MY1001',
    name: 'reader-fatal',
    category: 'correctness',
    description: 'A line the option-file reader cannot read stops the server, or the rest of an included file, from being read',
    defaultSeverity: 'error',
    recommended: true,
    messages: { problem: '{{message}}' },
  },
  create: () => ({}),
});
