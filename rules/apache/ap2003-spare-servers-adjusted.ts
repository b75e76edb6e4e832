import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { LanguageRuleContext } from '../../src/engine/types.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import { atoi, C_INT_MAX, mpmDefaults, type MpmDirective, type MpmSettings, type MpmValue } from '../../src/languages/apache/mpm.js';
import { planMpmSetting } from '../../src/languages/apache/mpm-edits.js';
import { formatBytes, formatPercent } from '../../src/util/units.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2003',
    name: 'spare-servers-adjusted',
    category: 'performance',
    description: 'Spare and start values that httpd silently adjusts at run time, or that keep too many idle processes',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    options: {
      minSpareShare: {
        type: 'share',
        default: 0.5,
        description: 'heuristic: MinSpareServers/MinSpareThreads above this share of MaxRequestWorkers is reported as a note',
      },
    },
    messages: {
      maxSpareServers: {
        message: 'MaxSpareServers {{max}} is not above MinSpareServers {{min}}; expected MaxSpareServers {{raised}}',
        detail: 'httpd raises it at run time, without a warning, to MinSpareServers + 1 = {{raised}}',
      },
      maxSpareThreads: {
        message:
          'MaxSpareThreads {{max}} is below MinSpareThreads {{min}} + ThreadsPerChild {{threads}}{{margin}}; expected MaxSpareThreads {{raised}}',
        detail: 'httpd raises it to {{raised}} at run time, without a warning',
      },
      startServers: {
        message: 'StartServers {{start}} exceeds the {{limit}} processes the limit allows; expected StartServers {{limit}}',
        detail: '{{reason}} allows {{limit}}; httpd starts only {{limit}}, without a warning',
      },
      idleServers: {
        message:
          'MinSpareServers {{min}} keeps {{idle}} alive, about {{memory}}; expected at most {{share}} of {{workersName}} {{workers}}',
        detail: 'heuristic; {{perChild}} per process ({{source}})',
      },
      idleThreads: {
        message:
          'MinSpareThreads {{min}} keeps {{processes}} processes alive for idle threads, about {{memory}}; expected at most {{share}} of {{workersName}} {{workers}}',
        detail: 'heuristic; ThreadsPerChild {{threads}}, {{perChild}} per process ({{source}})',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mpm = apache.mpm;
        if (mpm?.name === undefined) return;
        // With listener buckets (ListenCoresBucketsRatio) httpd scales these bounds by a CPU count the config does not hold.
        const buckets = apache.named('listencoresbucketsratio').some((use) => apache.container(use) === undefined && atoi(use.args[0]) > 0);
        const view: MpmView = { ctx, apache, mpm, name: mpm.name, defaults: mpmDefaults(mpm.name, apache.httpd) };
        if (!buckets) {
          checkStartServers(view);
          if (view.name === 'prefork') checkSpareServers(view);
          else checkSpareThreads(view);
        }
        checkIdleMemory(view);
      },
    };
  },
});

type Context = LanguageRuleContext<'apache', { readonly minSpareShare: number }>;

/** What the checks share: the rule's context, the config, its MPM and the MPM's defaults. */
interface MpmView {
  readonly ctx: Context;
  readonly apache: ApacheConfig;
  readonly mpm: MpmSettings;
  readonly name: NonNullable<MpmSettings['name']>;
  readonly defaults: ReturnType<typeof mpmDefaults>;
}

function workersName(view: MpmView): string {
  return view.mpm.values.MaxRequestWorkers.use?.node.name ?? 'MaxRequestWorkers';
}

/** A value as set, or httpd's default for it. */
function shown(view: MpmView, directive: MpmDirective, value: MpmValue): string {
  return value.configured === undefined ? `${view.defaults[directive]} (default)` : String(value.configured);
}

function firstUse(...values: MpmValue[]): ApacheDirectiveUse | undefined {
  return values.find((value) => value.use !== undefined)?.use;
}

/** StartServers above the processes MaxRequestWorkers allows: httpd starts only those. */
function checkStartServers(view: MpmView): void {
  const { ctx, apache, mpm } = view;
  const v = mpm.values;
  const start = v.StartServers;
  const limit = mpm.maxProcesses;
  if (start.use === undefined || start.value <= limit) return;
  const plan = planMpmSetting(apache, mpm, 'StartServers', limit);
  const reason =
    view.name === 'prefork'
      ? `${workersName(view)} ${v.MaxRequestWorkers.value}`
      : `${workersName(view)} ${v.MaxRequestWorkers.value} / ThreadsPerChild ${mpm.threadsPerChild}`;
  ctx.report({ at: start.use, messageId: 'startServers', data: { start: start.value, limit, reason }, fix: () => plan?.edit ?? null });
}

/** prefork raises MaxSpareServers to MinSpareServers + 1. */
function checkSpareServers(view: MpmView): void {
  const { ctx, apache, mpm } = view;
  const v = mpm.values;
  const min = v.MinSpareServers.value;
  const max = v.MaxSpareServers.configured ?? view.defaults.MaxSpareServers;
  const at = firstUse(v.MaxSpareServers, v.MinSpareServers);
  if (max >= min + 1 || at === undefined) return;
  // A value no int holds is read as the largest one, which is still too low: no fix then.
  const plan = min + 1 > C_INT_MAX ? null : planMpmSetting(apache, mpm, 'MaxSpareServers', min + 1);
  ctx.report({
    at,
    messageId: 'maxSpareServers',
    data: {
      max: shown(view, 'MaxSpareServers', v.MaxSpareServers),
      min: shown(view, 'MinSpareServers', v.MinSpareServers),
      raised: min + 1,
    },
    fix: () => plan?.edit ?? null,
  });
}

/** worker and event raise MaxSpareThreads to MinSpareThreads + ThreadsPerChild (+ 1 since 2.4.21). */
function checkSpareThreads(view: MpmView): void {
  const { ctx, apache, mpm } = view;
  const v = mpm.values;
  // Since 2.4.21 worker and event keep one idle thread per listener bucket above the sum (worker.c/event.c *_run).
  const margin = versionAtLeast(apache.httpd, '2.4.21') ? 1 : 0;
  const min = v.MinSpareThreads.value;
  const raised = min + mpm.threadsPerChild + margin;
  const max = v.MaxSpareThreads.configured ?? view.defaults.MaxSpareThreads;
  const at = firstUse(v.MaxSpareThreads, v.MinSpareThreads, v.ThreadsPerChild);
  if (max >= raised || at === undefined) return;
  const plan = raised > C_INT_MAX ? null : planMpmSetting(apache, mpm, 'MaxSpareThreads', raised);
  ctx.report({
    at,
    messageId: 'maxSpareThreads',
    data: {
      max: shown(view, 'MaxSpareThreads', v.MaxSpareThreads),
      min: shown(view, 'MinSpareThreads', v.MinSpareThreads),
      threads: mpm.threadsPerChild,
      margin: margin === 0 ? '' : ' + 1',
      raised,
    },
    fix: () => plan?.edit ?? null,
  });
}

/** Spare values above a share of the limit keep processes idle whose memory the host pays for. */
function checkIdleMemory(view: MpmView): void {
  const { ctx, apache, mpm } = view;
  const v = mpm.values;
  const perChild = ctx.sizing.apache.find((entry) => entry.config === apache)?.perChild;
  if (perChild === undefined) return;
  const share = ctx.options.minSpareShare;
  const workers = v.MaxRequestWorkers.value;
  const memoryData = (processes: number) => ({
    memory: formatBytes(processes * perChild.value.median),
    perChild: formatBytes(perChild.value.median),
    source: perChild.source,
    share: formatPercent(share),
    workersName: workersName(view),
    workers,
  });
  const min = view.name === 'prefork' ? v.MinSpareServers : v.MinSpareThreads;
  if (min.use === undefined || min.value <= workers * share) return;
  if (view.name === 'prefork') {
    // No more processes than the limit allows, idle or not.
    const idle = Math.min(min.value, mpm.maxProcesses);
    const idleText = idle === min.value ? `${idle} idle processes` : `all the ${idle} processes ${workersName(view)} ${workers} allows`;
    ctx.report({ at: min.use, messageId: 'idleServers', severity: 'info', data: { min: min.value, idle: idleText, ...memoryData(idle) } });
    return;
  }
  const processes = Math.min(Math.ceil(min.value / mpm.threadsPerChild), mpm.maxProcesses);
  ctx.report({
    at: min.use,
    messageId: 'idleThreads',
    severity: 'info',
    data: { min: min.value, processes, threads: mpm.threadsPerChild, ...memoryData(processes) },
  });
}
