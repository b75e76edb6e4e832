import { defineRule } from '../../src/engine/define-rule.js';
import type { Severity } from '../../src/engine/types.js';
import { replaceApacheArg } from '../../src/languages/apache/edits.js';
import { durationSeconds } from '../../src/languages/apache/settings.js';
import { keepAliveLines } from '../../src/languages/apache/vhosts.js';
import type { Decision, HostPlan } from '../../src/analysis/plan.js';
import type { ApacheConfig } from '../../src/languages/apache/model.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2007',
    name: 'keepalive-timeout-too-long',
    category: 'performance',
    description: 'KeepAliveTimeout keeps idle connections open too long for the MPM',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      warnAbove: { type: 'seconds', default: 5, description: 'heuristic: prefork/worker, above this a warning' },
      errorAbove: {
        type: 'seconds',
        default: 15,
        description: "heuristic: prefork/worker, above this an error (the CIS benchmark's and DISA STIG's 15 s)",
      },
      maxAnyMpm: { type: 'seconds', default: 60, description: 'heuristic: any MPM, above this a warning' },
      fixTo: { type: 'seconds', default: 5, description: "the value the fix writes (httpd's default)" },
      fewWorkers: {
        type: 'integer',
        default: 32,
        description: 'prefork with at most this many workers (as the host plan leaves MaxRequestWorkers) is a small host',
      },
      fewWorkersTimeout: {
        type: 'seconds',
        default: 2,
        description: "on a small prefork host, above this a warning, and the value the fix writes (the tuning story's 2 s)",
      },
    },
    messages: {
      fewWorkers: {
        message:
          'KeepAliveTimeout {{value}} with {{workers}} prefork workers holds one of them per idle connection for {{seconds}} s; expected KeepAliveTimeout {{suggested}}',
        detail:
          'MaxRequestWorkers {{workers}}{{planned}}: a few clients that keep their connections open take every process while others wait in the listen queue; the tuning story ran 15 workers with KeepAlive On and KeepAliveTimeout 2',
      },
      perWorker: {
        message:
          'KeepAliveTimeout {{value}} under {{mpm}} holds a {{holder}} per idle connection for {{seconds}} s; expected KeepAliveTimeout {{suggested}}',
        detail: 'each idle keep-alive connection holds a whole {{holder}} after its last request; more than {{limit}} s (heuristic)',
      },
      excessive: {
        message: 'KeepAliveTimeout {{value}} is more than {{limit}} s; expected KeepAliveTimeout {{suggested}}',
        detail: 'heuristic; connections of clients that have gone stay open that long, each holding a socket and its connection memory',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mpm = apache.mpm?.name;
        if (mpm === undefined) return;
        const { warnAbove, errorAbove, maxAnyMpm, fixTo, fewWorkers, fewWorkersTimeout } = ctx.options;
        const perWorker = mpm === 'prefork' || mpm === 'worker';
        const few = mpm === 'prefork' ? fewPreforkWorkers(ctx.sizing.plan, apache, fewWorkers) : undefined;
        // Each server, name-based vhosts included, waits for its own KeepAliveTimeout (measured on 2.4.71).
        for (const use of keepAliveLines(apache, 'keepalivetimeout')) {
          const seconds = durationSeconds(use.args[0]);
          if (seconds === undefined) continue;
          const common = { value: use.args[0] ?? '', seconds, suggested: fixTo };
          const fix = () => replaceApacheArg(use, 0, String(fixTo));
          if (few !== undefined && seconds > fewWorkersTimeout) {
            const planned = few.planned === few.current ? '' : ` as the host plan leaves it (from ${few.current})`;
            ctx.report({
              at: use,
              messageId: 'fewWorkers',
              severity: seconds > errorAbove ? 'error' : 'warn',
              data: { ...common, workers: few.planned, planned, suggested: fewWorkersTimeout },
              fix: () => replaceApacheArg(use, 0, String(fewWorkersTimeout)),
            });
          } else if (perWorker && seconds > warnAbove) {
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

/** MaxRequestWorkers of a prefork Apache as the host plan leaves it, when it is at most `few`. */
function fewPreforkWorkers(plan: HostPlan, apache: ApacheConfig, few: number): Decision | undefined {
  const workers = plan.apache.find((entry) => entry.usage.config === apache)?.maxRequestWorkers;
  return workers !== undefined && workers.planned <= few ? workers : undefined;
}
