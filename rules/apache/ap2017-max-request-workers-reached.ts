import { defineRule } from '../../src/engine/define-rule.js';
import type { ApacheStatus, LogEvidence } from '../../src/host/facts.js';
import { formatBytes } from '../../src/util/units.js';
import { oomEvidence } from '../../src/analysis/mysql-live.js';
import { apacheRoom } from '../../src/analysis/plan.js';
import { plannedChildSize } from '../../src/core/host-facts.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2017',
    name: 'max-request-workers-reached',
    category: 'performance',
    description: 'The running Apache has run out of workers: its error log says it reached MaxRequestWorkers, or every worker is busy',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      roomToGrow: {
        message: '{{evidence}}; expected {{directive}} up to {{fits}}, which the memory budget holds',
        detail:
          '{{source}}; the web tier budget of {{budget}} holds {{fits}} x {{perChild}} beside the rest of the web tier ({{budgetReason}}); clients wait in the listen queue meanwhile',
      },
      killed: {
        message:
          '{{evidence}}, and the kernel has killed Apache children for want of memory; expected no higher {{directive}} before memory is found: shorter KeepAliveTimeout and Timeout, smaller children, or more RAM',
        detail:
          '{{source}}{{killed}}; the arithmetic (a budget of {{budget}} for {{fits}} x {{perChild}}) counts a typical child, and the kills say the real ones are larger or more memory is taken elsewhere',
      },
      noRoom: {
        message:
          '{{evidence}}, and the memory budget holds no more than {{directive}} {{limit}}; expected shorter KeepAliveTimeout and Timeout, smaller children, or more memory',
        detail:
          '{{source}}; the budget of {{budget}} holds {{fits}} x {{perChild}} ({{budgetReason}}); a higher limit would swap or meet the OOM killer',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const live = ctx.host.apacheLive;
        const mpm = ctx.config.mpm;
        const plan = ctx.sizing.plan;
        const entry = plan.apache.find((candidate) => candidate.usage.config === ctx.config);
        if (live === undefined || mpm === undefined || entry === undefined) return;
        const sizing = entry.usage;
        const { status, maxWorkersReached } = live.value;
        const allBusy = status !== undefined && status.busyWorkers >= sizing.maxRequestWorkers;
        if (maxWorkersReached === undefined && !allBusy) return;
        const evidence = evidenceText(maxWorkersReached, status);
        const directive = mpm.values.MaxRequestWorkers.use?.node.name ?? 'MaxRequestWorkers';
        const room = apacheRoom(plan, entry);
        const fits = (room ?? 0) * sizing.threadsPerChild;
        const data = {
          evidence,
          directive,
          limit: sizing.maxRequestWorkers,
          fits,
          source: live.source,
          budget: formatBytes(plan.memory?.webBudget.bytes ?? 0),
          perChild: formatBytes(plannedChildSize(sizing.perChild.value)),
          budgetReason: plan.memory?.webBudget.reason ?? 'unknown RAM',
          killed: oomEvidence(ctx.host, /^(apache2|httpd)/),
        };
        const at = mpm.values.MaxRequestWorkers.use ?? mpm.module?.use ?? { file: ctx.config.root, range: [0, 0] as const };
        // Children killed for want of memory say the budget is not there, whatever the arithmetic says.
        if (data.killed !== '') ctx.report({ at, messageId: 'killed', data });
        else if (room !== undefined && fits > sizing.maxRequestWorkers) ctx.report({ at, messageId: 'roomToGrow', data });
        else ctx.report({ at, messageId: 'noRoom', severity: 'info', data });
      },
    };
  },
});

/** What says the workers ran out: the error log's lines when there are any, else the scoreboard. */
function evidenceText(logged: LogEvidence | undefined, status: ApacheStatus | undefined): string {
  if (logged === undefined) return `all ${status?.busyWorkers ?? 0} workers were busy when the status page was read`;
  const times = logged.count === 1 ? 'once' : `${logged.count} times`;
  const when = logged.count === 1 ? logged.first : `${logged.first} to ${logged.last}`;
  return `the error log says ${times} that the server reached MaxRequestWorkers (${when})`;
}
