import { defineRule } from '../../src/engine/define-rule.js';
import { replaceApacheArg } from '../../src/languages/apache/edits.js';
import { atoi } from '../../src/languages/apache/mpm.js';
import { keepAliveLines } from '../../src/languages/apache/vhosts.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2008',
    name: 'max-keepalive-requests-low',
    category: 'performance',
    description: 'MaxKeepAliveRequests closes persistent connections after too few requests',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'tune',
    options: {
      minimum: {
        type: 'integer',
        default: 100,
        description: "values from 1 up to this (exclusive) are reported; the fix writes it (httpd's default)",
      },
    },
    messages: {
      low: {
        message:
          'MaxKeepAliveRequests {{value}} closes a connection after {{value}} {{requests}}; expected MaxKeepAliveRequests {{minimum}}, or 0 for unlimited',
        detail: 'below {{minimum}}: a page with more assets than that opens new connections, and over HTTPS new TLS handshakes',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const { minimum } = ctx.options;
        for (const use of keepAliveLines(apache, 'maxkeepaliverequests')) {
          const value = atoi(use.args[0]);
          if (value < 1 || value >= minimum) continue;
          ctx.report({
            at: use,
            messageId: 'low',
            data: { value, requests: value === 1 ? 'request' : 'requests', minimum },
            fix: () => replaceApacheArg(use, 0, String(minimum)),
          });
        }
      },
    };
  },
});
