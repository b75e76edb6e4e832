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
      skipped: {
        message: 'sizing rules skipped: RAM is unknown; expected --host-ram, --profile, --facts or host: in .tune-lint.yaml',
        detail: 'skipped: {{rules}}; on the host itself, run without --no-probe',
      },
    },
  },
});
