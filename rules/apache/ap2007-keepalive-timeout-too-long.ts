import { defineRule } from '../../src/engine/define-rule.js';
import type { Severity } from '../../src/engine/types.js';
import { replaceApacheArg } from '../../src/languages/apache/edits.js';
import { durationSeconds } from '../../src/languages/apache/settings.js';
import { keepAliveLines } from '../../src/languages/apache/vhosts.js';

export default defineRule({
  meta: {
    id: 'AP2007',
    name: 'keepalive-timeout-too-long',
    language: 'apache',
    category: 'performance',
    description: 'KeepAliveTimeout keeps idle connections open too long for the MPM',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      perWorker:
        'KeepAliveTimeout {{value}} under {{mpm}}: each idle keep-alive connection holds a whole {{holder}} for up to {{seconds}} s after its last request (more than {{limit}} s, heuristic); expected KeepAliveTimeout {{suggested}}',
      excessive:
        'KeepAliveTimeout {{value}} is more than {{limit}} s (heuristic): connections of clients that have gone stay open that long, each holding a socket and its connection memory; expected KeepAliveTimeout {{suggested}}',
    },
  },
  defaultOptions: {
    /** prefork/worker: above this many seconds is a warning. */
    warnAbove: 5,
    /** prefork/worker: above this many seconds is an error (the CIS benchmark's and DISA STIG's 15 s). */
    errorAbove: 15,
    /** Any MPM: above this many seconds is a warning. */
    maxAnyMpm: 60,
    /** The value the fix writes: httpd's default. */
    fixTo: 5,
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.apache;
        const mpm = apache?.mpm?.name;
        if (apache === undefined || mpm === undefined) return;
        const { warnAbove, errorAbove, maxAnyMpm, fixTo } = ctx.options;
        const perWorker = mpm === 'prefork' || mpm === 'worker';
        // Each server, name-based vhosts included, waits for its own KeepAliveTimeout (measured on 2.4.71).
        for (const use of keepAliveLines(apache, 'keepalivetimeout')) {
          const seconds = durationSeconds(use.args[0]);
          if (seconds === undefined) continue;
          const common = { value: use.args[0] ?? '', seconds, suggested: fixTo };
          const fix = () => replaceApacheArg(use, 0, String(fixTo));
          if (perWorker && seconds > warnAbove) {
            const severity: Severity = seconds > errorAbove ? 'error' : 'warn';
            const limit = seconds > errorAbove ? errorAbove : warnAbove;
            ctx.report({
              at: use,
              messageId: 'perWorker',
              severity,
              data: { ...common, mpm, holder: mpm === 'prefork' ? 'process' : 'thread', limit },
              fix,
            });
          } else if (seconds > maxAnyMpm) {
            ctx.report({ at: use, messageId: 'excessive', data: { ...common, limit: maxAnyMpm }, fix });
          }
        }
      },
    };
  },
});
