import { defineRule } from '../../src/engine/define-rule.js';
import { planMpmSetting } from '../../src/languages/apache/mpm-edits.js';
import { mpmDefaults } from '../../src/languages/apache/mpm.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2002',
    name: 'oversized-limits',
    category: 'performance',
    description: 'ServerLimit or ThreadLimit is set far above what MaxRequestWorkers and ThreadsPerChild can use',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'safe',
    options: {
      factor: { type: 'number', default: 2, description: 'heuristic: a limit more than this many times what is needed is reported' },
      eventHeadroom: {
        type: 'share',
        default: 0.25,
        description:
          "heuristic: share of processes added to ServerLimit for event's gracefully finishing processes, which also take scoreboard slots",
      },
    },
    messages: {
      serverLimit: {
        message: 'ServerLimit {{limit}} is more than {{factor}}x the {{needed}} processes needed; expected ServerLimit {{suggested}}',
        detail: 'needed: {{reason}} (heuristic); httpd sizes its shared scoreboard for {{limit}} processes and never uses the rest',
      },
      threadLimit: {
        message: 'ThreadLimit {{limit}} is more than {{factor}}x ThreadsPerChild {{threads}}; expected ThreadLimit {{threads}}',
        detail:
          'heuristic; httpd sizes its shared scoreboard for {{limit}} threads in each of ServerLimit {{servers}} processes and uses {{threads}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mpm = apache.mpm;
        if (mpm?.name === undefined) return;
        const { factor, eventHeadroom } = ctx.options;
        const serverLimit = mpm.values.ServerLimit;
        const workers = mpm.values.MaxRequestWorkers;
        const workersName = workers.use?.node.name ?? 'MaxRequestWorkers';
        // Up to httpd's compiled-in limit the scoreboard is what it would be without the line.
        const defaults = mpmDefaults(mpm.name, apache.httpd);
        if (serverLimit.use !== undefined && serverLimit.configured !== undefined && serverLimit.value > defaults.ServerLimit) {
          const processes = mpm.maxProcesses;
          if (serverLimit.value > factor * processes) {
            const event = mpm.name === 'event';
            const suggested = event ? Math.ceil(processes * (1 + eventHeadroom)) : processes;
            const reason =
              mpm.name === 'prefork'
                ? `that ${workersName} ${workers.value} can run`
                : `that ${workersName} ${workers.value} / ThreadsPerChild ${mpm.threadsPerChild} can run${event ? `, ${suggested} with ${Math.round(eventHeadroom * 100)}% for processes finishing gracefully` : ''}`;
            const plan = planMpmSetting(apache, mpm, 'ServerLimit', suggested);
            ctx.report({
              at: serverLimit.use,
              messageId: 'serverLimit',
              data: { limit: serverLimit.configured, factor, needed: processes, reason, suggested },
              // Event's headroom for finishing processes is a policy choice; elsewhere slots past the limit are never used.
              ...(event ? { fixKind: 'tune' as const } : {}),
              fix: () => plan?.edit ?? null,
            });
          }
        }
        const threadLimit = mpm.values.ThreadLimit;
        if (
          mpm.name !== 'prefork' &&
          threadLimit.use !== undefined &&
          threadLimit.configured !== undefined &&
          threadLimit.value > defaults.ThreadLimit &&
          threadLimit.value > factor * mpm.threadsPerChild
        ) {
          const plan = planMpmSetting(apache, mpm, 'ThreadLimit', mpm.threadsPerChild);
          ctx.report({
            at: threadLimit.use,
            messageId: 'threadLimit',
            data: { limit: threadLimit.configured, factor, threads: mpm.threadsPerChild, servers: serverLimit.value },
            fix: () => plan?.edit ?? null,
          });
        }
      },
    };
  },
});
