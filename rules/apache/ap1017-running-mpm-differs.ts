import { defineRule } from '../../src/engine/define-rule.js';

export default defineRule('apache', {
  meta: {
    id: 'AP1017',
    name: 'running-mpm-differs',
    category: 'correctness',
    description: 'The running Apache uses another MPM than the config loads, so the config is not what runs',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      differs: {
        message:
          'the config loads the {{configured}} MPM, but the running Apache uses {{running}}; expected a restart, or the config it was started with',
        detail:
          '{{source}}; measurements of the running children describe the {{running}} server, not this config, so the sizing uses them only as a hint',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.perChild;
        const running = fact?.value.measuredOn?.mpm;
        const mpm = ctx.config.mpm;
        const configured = mpm?.name;
        if (fact === undefined || running === undefined || mpm === undefined || configured === undefined || configured === running) return;
        ctx.report({
          at: mpm.module?.use ?? { file: ctx.config.root, range: [0, 0] as const },
          messageId: 'differs',
          data: { configured, running, source: `the children's mapped libraries (${fact.source})` },
        });
      },
    };
  },
});
