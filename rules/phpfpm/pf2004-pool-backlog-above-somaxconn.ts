import { defineRule } from '../../src/engine/define-rule.js';

export default defineRule('phpfpm', {
  meta: {
    id: 'PF2004',
    name: 'pool-backlog-above-somaxconn',
    category: 'performance',
    description: "A pool's listen.backlog asks for a longer queue than the kernel allows",
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      capped: {
        message:
          '[{{pool}}] listen.backlog {{backlog}} exceeds net.core.somaxconn {{somaxconn}}; expected `sysctl -w net.core.somaxconn={{backlog}}`, or listen.backlog {{somaxconn}}',
        detail:
          'somaxconn from {{source}}; the kernel silently caps the queue of requests waiting for a free child at {{somaxconn}}; -1, the default on Linux, means somaxconn itself',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const somaxconn = ctx.host.somaxconn;
        if (somaxconn === undefined) return;
        for (const pool of ctx.config.pools) {
          const use = pool.effective('listen.backlog');
          const backlog = use === undefined ? Number.NaN : Number(use.value);
          if (use === undefined || !Number.isSafeInteger(backlog) || backlog <= somaxconn.value) continue;
          ctx.report({
            at: use,
            messageId: 'capped',
            data: { pool: pool.name, backlog, somaxconn: somaxconn.value, source: somaxconn.source },
          });
        }
      },
    };
  },
});
