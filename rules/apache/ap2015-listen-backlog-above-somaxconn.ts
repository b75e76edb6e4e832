import { defineRule } from '../../src/engine/define-rule.js';
import { atoi } from '../../src/languages/apache/mpm.js';
import { effectiveSetting } from '../../src/languages/apache/settings.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2015',
    name: 'listen-backlog-above-somaxconn',
    category: 'performance',
    description: 'ListenBacklog asks for a longer accept queue than the kernel allows',
    defaultSeverity: 'info',
    recommended: true,
    messages: {
      capped: {
        message:
          'ListenBacklog {{backlog}} exceeds net.core.somaxconn {{somaxconn}}; expected `sysctl -w net.core.somaxconn={{backlog}}`, or ListenBacklog {{somaxconn}}',
        detail:
          'somaxconn from {{source}}; the kernel silently caps the queue of connections waiting for a free worker at {{somaxconn}}; keep a raised value with a file in /etc/sysctl.d/',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const somaxconn = ctx.host.somaxconn;
        if (somaxconn === undefined) return;
        const use = effectiveSetting(apache, 'listenbacklog').use;
        if (use === undefined) return;
        const backlog = atoi(use.args[0]);
        if (backlog <= somaxconn.value) return;
        ctx.report({ at: use, messageId: 'capped', data: { backlog, somaxconn: somaxconn.value, source: somaxconn.source } });
      },
    };
  },
});
