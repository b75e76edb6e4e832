import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { TextEdit } from '../../src/core/types.js';
import type { ApacheConfig } from '../../src/languages/apache/model.js';
import type { MpmDirective, MpmSettings } from '../../src/languages/apache/mpm.js';
import { planMpmSetting } from '../../src/languages/apache/mpm-edits.js';
import type { ApacheSizing } from '../../src/analysis/sizing.js';
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
          '{{limit}} x {{perChild}} = {{peak}} exceeds the Apache budget of {{budget}}; expected {{directive}} at most {{suggested}}',
        detail: 'budget: {{budgetReason}}; {{perChildSource}}{{where}}{{alongside}}{{killed}}',
      },
      nearBudget: {
        message: '{{limit}} x {{perChild}} = {{peak}} is {{share}} of the Apache budget of {{budget}}',
        detail: 'budget: {{budgetReason}}; at the largest process ({{largest}}) it would be {{peakAtMax}}; {{perChildSource}}',
      },
      cannotFit: {
        message:
          'the Apache budget of {{budget}} holds no {{mpm}} process of {{perChild}}; expected PHP under php-fpm with the event MPM, or more memory for Apache',
        detail: 'budget: {{budgetReason}}; {{perChildSource}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const sizing = ctx.sizing.apache.find((entry) => entry.config === apache);
        const budget = ctx.sizing.apacheBudget;
        const mpm = apache.mpm;
        if (sizing === undefined || budget === undefined || mpm === undefined) return;
        // An MPM compiled in (httpd 2.2's prefork) has no LoadModule line: then the start of the main file.
        const at = mpm.values.MaxRequestWorkers.use ?? mpm.module?.use ?? { file: apache.root, range: [0, 0] as const };
        const perChild = sizing.perChild.value;
        const threaded = sizing.mpm !== 'prefork';
        // The target's name for the limit: httpd 2.2 knows only MaxClients.
        const directive = versionAtLeast(apache.httpd, '2.4') ? 'MaxRequestWorkers' : 'MaxClients';
        const limit = limitText(sizing, mpm, directive);
        const common = {
          limit,
          perChild: formatBytes(perChild.median),
          peak: formatBytes(sizing.peak),
          budget: formatBytes(budget),
          budgetReason: ctx.sizing.apacheBudgetReason,
          perChildSource: perChildSource(sizing.perChild),
          killed: oomEvidence(ctx.host, APACHE_PROCESS),
        };
        const processesThatFit = sizing.processesThatFit ?? 0;
        if (sizing.overcommitted) {
          if (processesThatFit < 1) {
            ctx.report({ at, messageId: 'cannotFit', data: { ...common, mpm: sizing.mpm } });
            return;
          }
          const suggested = sizing.plannedMaxRequestWorkers;
          const plan = planMpmSetting(apache, mpm, 'MaxRequestWorkers', suggested);
          const where =
            plan === null || mpm.values.MaxRequestWorkers.use !== undefined
              ? ''
              : `; ${directive} ${suggested} to be added at ${plan.where}`;
          const companions = plan === null ? [] : companionsOf(apache, mpm, suggested);
          const alongside =
            companions.length === 0
              ? ''
              : `; with it ${companions.map((companion) => companion.change).join(', ')}, which the lower limit leaves no room for`;
          ctx.report({
            at,
            messageId: 'overcommit',
            data: {
              ...common,
              directive,
              suggested: threaded ? `${suggested} (${processesThatFit} processes)` : suggested,
              where,
              alongside,
            },
            fix: () => (plan === null ? null : [plan.edit, ...companions.map((companion) => companion.edit)]),
          });
          return;
        }
        if (sizing.peak > budget || sizing.peakAtMax > budget * (1 + ctx.sizing.budget.overcommitTolerance)) {
          ctx.report({
            at,
            messageId: 'nearBudget',
            severity: 'info',
            data: {
              ...common,
              share: formatPercent(Math.round((sizing.peak / budget) * 100) / 100),
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
function limitText(sizing: ApacheSizing, mpm: MpmSettings, directive: string): string {
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

/** `per process: median PSS of 9 apache2 processes (probe)`, `per process from flag --per-child`. */
function perChildSource(fact: { readonly value: { readonly count: number; readonly metric: string }; readonly source: string }): string {
  if (fact.value.count === 0) return `per process from ${fact.source}`;
  return `per process: median ${fact.value.metric.toUpperCase()} of ${fact.value.count} measured, ${fact.source}`;
}
