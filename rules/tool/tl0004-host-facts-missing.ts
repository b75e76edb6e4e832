import { defineToolRule } from '../../src/engine/define-rule.js';

/** Reported once per host when rules that need RAM and CPU facts cannot run. */
export default defineToolRule({
  meta: {
    id: 'TL0004',
    name: 'host-facts-missing',
    category: 'correctness',
    description: 'Sizing rules were skipped because the host facts are unknown',
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      skipped:
        'sizing rules skipped ({{rules}}): RAM is unknown; give --host-ram, --profile, --facts or a host: section in .tune-lint.yaml, or run on the host without --no-probe',
    },
  },
});
