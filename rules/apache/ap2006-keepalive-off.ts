import { defineRule } from '../../src/engine/define-rule.js';
import { inCaseOf, replaceApacheArg } from '../../src/languages/apache/edits.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import { keepsAlive, perServer } from '../../src/languages/apache/vhosts.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2006',
    name: 'keepalive-off',
    category: 'performance',
    description: 'KeepAlive Off makes every request of a page pay for a new connection',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      perWorker: {
        message: 'KeepAlive Off under {{mpm}} opens a new connection for every asset of a page',
        detail:
          'a page with many images, scripts and stylesheets opens a new TCP connection for each, and over HTTPS does a new TLS handshake each time; if you turn it On, keep KeepAliveTimeout at 2-5 s, since each idle connection holds a whole {{holder}} for that long',
      },
      event: {
        message: 'KeepAlive Off under event costs a new connection per request and saves nothing; expected KeepAlive On',
        detail:
          'event parks idle keep-alive connections in its listener thread without holding a worker; Off only costs a new TCP connection, and over HTTPS a TLS handshake, per request',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mpm = apache.mpm?.name;
        if (mpm === undefined) return;
        const reported = new Set<ApacheDirectiveUse>();
        for (const server of perServer(apache, 'keepalive')) {
          const use = server.setting.use;
          if (use === undefined || keepsAlive(apache, server.setting.args) || reported.has(use)) continue;
          reported.add(use);
          const value = use.args[0] ?? '';
          if (mpm === 'event') {
            ctx.report({ at: use, messageId: 'event', fix: () => replaceApacheArg(use, 0, inCaseOf(value, 'On')) });
          } else {
            ctx.report({
              at: use,
              messageId: 'perWorker',
              severity: 'info',
              data: { mpm, holder: mpm === 'prefork' ? 'process' : 'thread' },
            });
          }
        }
      },
    };
  },
});
