import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported by the Apache reader for <IfDirective> and <IfSection>, which depend on the modules compiled into the binary; the section is assumed true. */
export default defineToolRule({
  meta: {
    id: 'TL0007',
    name: 'condition-assumed',
    category: 'correctness',
    description: 'A conditional section cannot be evaluated statically',
    defaultSeverity: 'info',
    recommended: true,
    messages: { problem: '{{message}}' },
  },
});
