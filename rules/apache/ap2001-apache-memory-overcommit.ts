import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/core/types.js';
import type { ApacheConfig } from '../../src/languages/apache/model.js';
import type { MpmDirective, MpmSettings } from '../../src/languages/apache/mpm.js';
import { planMpmSetting } from '../../src/languages/apache/mpm-edits.js';
import type { ApacheUsage } from '../../src/languages/apache/consumption.js';
import { plannedChildSize, type ChildMemory } from '../../src/core/host-facts.js';
import { formatBytes, formatPercent } from '../../src/util/units.js';
import { oomEvidence } from '../../src/analysis/mysql-live.js';

/** The processes of an Apache: Debian's apache2, RHEL's httpd. */
const APACHE_PROCESS = /^(apache2|httpd)/;

export default defineRule('apache', {
  meta: {
    id: 'AP2001',
    name: 'apache-memory-overcommit',
    category: 'performance',
    description: 'MaxRequestWorkers allows more Apache processes than the memory budget holds',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'tune',
    needsHost: true,
    messages: {
      overcommit: {
        message:
          '{{limit}} x {{perChild}} = {{peak}} exceeds the web tier budget of {{budget}}; expected {{directive}} at most {{suggested}}',
        detail: 'budget: {{budgetReason}}; {{perChildSource}}{{where}}{{alongside}}{{killed}}',
      },
      nearBudget: {
        message: '{{limit}} x {{perChild}} = {{peak}} is {{share}} of the web tier budget of {{budget}}',
        detail: 'budget: {{budgetReason}}; at the largest process ({{largest}}) it would be {{peakAtMax}}; {{perChildSource}}',
      },
      front: {
        message:
          '{{limit}} keeps more threads than the PHP children behind them can use; expected {{directive}} {{suggested}}, leaving the memory to php-fpm',
        detail:
          'under the event or worker MPM with php-fpm, threads are cheap and PHP children are the capacity: {{why}}; web tier budget {{budget}} ({{budgetReason}}); {{perChildSource}}{{where}}{{alongside}}',
      },
      notCounted: {
        message: 'Apache is left out of the memory budget: no MPM is loaded, so what its processes take at peak is not known',
        detail:
          'httpd 2.4 loads its MPM with LoadModule mpm_event_module, mpm_worker_module or mpm_prefork_module; openSUSE builds it into the httpd binary APACHE_MPM in /etc/sysconfig/apache2 chooses, which tune-lint reads for /etc/apache2/httpd.conf where the tree has that file or /etc/apache2/sysconfig.d, and RHEL 5/6 into the one HTTPD in /etc/sysconfig/httpd names. The memory picture holds the other servers only',
      },
      cannotFit: {
        message:
          'the web tier budget of {{budget}} holds no {{mpm}} process of {{perChild}}; expected PHP under php-fpm with the event MPM, or more memory for Apache',
        detail: 'budget: {{budgetReason}}; {{perChildSource}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const plan = ctx.sizing.plan;
        const memory = plan.memory;
        const entry = plan.apache.find((candidate) => candidate.usage.config === apache);
        const mpm = apache.mpm;
        // A fragment's MPM is its main config's, and the fragment's report says so.
        if (memory !== undefined && mpm === undefined && apache.fragment === undefined) {
          ctx.report({ at: { file: apache.root, range: [0, 0] }, messageId: 'notCounted', severity: 'info' });
        }
        if (memory === undefined || entry === undefined || mpm === undefined) return;
        const sizing = entry.usage;
        // An MPM compiled in (httpd 2.2's prefork) has no LoadModule line: then the start of the main file.
        const at = mpm.values.MaxRequestWorkers.use ?? mpm.module?.use ?? { file: apache.root, range: [0, 0] as const };
        const perChild = sizing.perChild.value;
        const threaded = sizing.mpm !== 'prefork';
        // The target's name for the limit: httpd 2.2 knows only MaxClients.
        const directive = versionAtLeast(apache.httpd, '2.4') ? 'MaxRequestWorkers' : 'MaxClients';
        const budget = memory.webBudget;
        const common = {
          limit: limitText(sizing, mpm, directive),
          perChild: formatBytes(plannedChildSize(perChild)),
          peak: formatBytes(sizing.peak),
          budget: formatBytes(budget.bytes),
          budgetReason: budget.reason,
          perChildSource: perChildSource(sizing.perChild),
          killed: oomEvidence(ctx.host, APACHE_PROCESS),
        };
        const decision = entry.maxRequestWorkers;
        if (!memory.webFits && entry.role !== 'front') {
          ctx.report({ at, messageId: 'cannotFit', data: { ...common, mpm: sizing.mpm } });
          return;
        }
        if (decision.reason !== undefined) {
          const suggested = decision.planned;
          const { where, alongside, fix } = limitChange(apache, mpm, directive, suggested);
          // Past RAM it is an error; in a host that fits, a rebalancing.
          const severity = memory.overcommitted ? 'error' : 'warn';
          const suggestedText = threaded ? `${suggested} (${entry.processes} processes)` : suggested;
          if (decision.reason === 'front') {
            ctx.report({
              at,
              messageId: 'front',
              severity,
              data: { ...common, directive, suggested: suggestedText, why: decision.why, where, alongside },
              fix,
            });
            return;
          }
          ctx.report({
            at,
            messageId: 'overcommit',
            severity,
            data: { ...common, directive, suggested: suggestedText, where, alongside },
            fix,
          });
          return;
        }
        if (sizing.peak > budget.bytes || sizing.peakAtMax > budget.bytes * (1 + ctx.sizing.budget.overcommitTolerance)) {
          ctx.report({
            at,
            messageId: 'nearBudget',
            severity: 'info',
            data: {
              ...common,
              share: formatPercent(Math.round((sizing.peak / budget.bytes) * 100) / 100),
              largest: formatBytes(perChild.max),
              peakAtMax: formatBytes(sizing.peakAtMax),
            },
          });
        }
      },
    };
  },
});

/** `MaxClients 150`, or `MaxRequestWorkers 400 / ThreadsPerChild 25 = 16 processes` for a threaded MPM. */

/** The edit that sets the limit, with the spare values it takes along, and how the message says where and what else changes. */
function limitChange(
  apache: ApacheConfig,
  mpm: MpmSettings,
  directive: string,
  suggested: number,
): { where: string; alongside: string; fix: () => TextEdit[] | null } {
  const edit = planMpmSetting(apache, mpm, 'MaxRequestWorkers', suggested);
  const where =
    edit === null || mpm.values.MaxRequestWorkers.use !== undefined ? '' : `; ${directive} ${suggested} to be added at ${edit.where}`;
  const companions = edit === null ? [] : companionsOf(apache, mpm, suggested);
  const alongside =
    companions.length === 0
      ? ''
      : `; with it ${companions.map((companion) => companion.change).join(', ')}, which the lower limit leaves no room for`;
  return { where, alongside, fix: () => (edit === null ? null : [edit.edit, ...companions.map((companion) => companion.edit)]) };
}

function limitText(sizing: ApacheUsage, mpm: MpmSettings, directive: string): string {
  if (sizing.mpm !== 'prefork')
    return `${directive} ${sizing.maxRequestWorkers} / ThreadsPerChild ${sizing.threadsPerChild} = ${sizing.processes} processes`;
  return `${mpm.values.MaxRequestWorkers.use?.node.name ?? directive} ${sizing.maxRequestWorkers}`;
}

/** Above this share of the limit the spare settings keep more idle than AP2003 takes for sound. */
const SPARE_SHARE = 0.5;

/**
 * The settings a lower limit must move with, so the fixed config agrees with
 * itself: StartServers above the processes it allows (httpd starts only
 * those), MinSpareServers or MinSpareThreads above half of it (idle processes
 * the budget no longer has). Only lines the config sets are changed.
 */
function companionsOf(apache: ApacheConfig, mpm: MpmSettings, limit: number): { change: string; edit: TextEdit }[] {
  const processes = mpm.name === 'prefork' ? limit : Math.ceil(limit / mpm.threadsPerChild);
  const spare = Math.max(1, Math.floor(limit * SPARE_SHARE));
  const wanted: [MpmDirective, number][] = [
    ['StartServers', processes],
    [mpm.name === 'prefork' ? 'MinSpareServers' : 'MinSpareThreads', spare],
  ];
  const companions: { change: string; edit: TextEdit }[] = [];
  for (const [directive, ceiling] of wanted) {
    const value = mpm.values[directive];
    if (value.use === undefined || value.value <= ceiling) continue;
    const plan = planMpmSetting(apache, mpm, directive, ceiling);
    if (plan !== null) companions.push({ change: `${value.use.node.name} ${value.value} -> ${ceiling}`, edit: plan.edit });
  }
  return companions;
}

/** `per process: 90th percentile PSS of 9 measured, probe (...)`, `per process from flag --per-child`. */
function perChildSource(fact: { readonly value: ChildMemory; readonly source: string }): string {
  if (fact.value.count === 0) return `per process from ${fact.source}`;
  const statistic = fact.value.p90 === undefined ? 'median' : '90th percentile';
  return `per process: ${statistic} ${fact.value.metric.toUpperCase()} of ${fact.value.count} measured, ${fact.source}`;
}
