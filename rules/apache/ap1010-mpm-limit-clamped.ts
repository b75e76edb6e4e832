import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';
import type { MpmAdjustment, MpmDirective, MpmSettings } from '../../src/languages/apache/mpm.js';
import { planMpmSetting } from '../../src/languages/apache/mpm-edits.js';

/** Where to point when the adjusted directive is not written: the lines that caused the adjustment. */
const CAUSES: Partial<Record<MpmDirective, readonly MpmDirective[]>> = {
  MaxRequestWorkers: ['ServerLimit', 'ThreadsPerChild'],
  ThreadsPerChild: ['ThreadLimit'],
};

export default defineRule('apache', {
  meta: {
    id: 'AP1010',
    name: 'mpm-limit-clamped',
    category: 'correctness',
    description: 'httpd overrides an MPM limit at every start because it exceeds another limit or a compiled-in bound',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'safe',
    messages: {
      clamped: {
        message: '{{name}} {{from}} is {{changed}} to {{to}} by httpd at every start; expected {{name}} {{final}}{{alternative}}{{where}}',
        detail: '"{{warning}}"',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const mpm = apache.mpm;
        if (mpm === undefined) return;
        const modern = versionAtLeast(apache.httpd, '2.4');
        for (const adjustment of mpm.adjustments) {
          // The run-time adjustments of the spare counts print nothing and are a tuning matter; 2.2's only startup clamp is MaxClients.
          if (modern ? adjustment.code === undefined : adjustment.directive !== 'MaxRequestWorkers') continue;
          // 2.2 checks MaxClients against the ServerLimit read so far: a larger ServerLimit further down is AP4005's finding.
          if (!modern && laterLimitRaises(mpm, adjustment)) continue;
          const entry = mpm.values[adjustment.directive];
          const at = entry.use ?? causeOf(mpm, adjustment.directive) ?? mpm.module?.use;
          if (at === undefined) continue;
          // Writing the value httpd runs with anyway keeps the server as it is and silences the warning.
          const plan = planMpmSetting(apache, mpm, adjustment.directive, entry.value);
          ctx.report({
            at,
            messageId: 'clamped',
            data: {
              name: entry.use?.node.name ?? adjustment.directive,
              from: adjustment.from,
              to: adjustment.to,
              final: entry.value,
              changed: adjustment.to < adjustment.from ? 'lowered' : 'raised',
              warning: adjustment.message,
              alternative: alternative(mpm, adjustment, modern),
              where: entry.use === undefined && plan !== null ? `, to be added at ${plan.where}` : '',
            },
            fix: () => plan?.edit ?? null,
          });
        }
      },
    };
  },
});

function causeOf(mpm: MpmSettings, directive: MpmDirective): ApacheDirectiveUse | undefined {
  for (const cause of CAUSES[directive] ?? []) {
    const use = mpm.values[cause].use;
    if (use !== undefined) return use;
  }
  return undefined;
}

/**
 * What the writer probably meant instead, when the clamp comes from another
 * limit: raising that limit changes what the server does (more processes or
 * threads), so it is named, not applied.
 */
function alternative(mpm: MpmSettings, adjustment: MpmAdjustment, modern: boolean): string {
  const text = adjustment.message;
  if (adjustment.directive === 'ThreadsPerChild' && text.includes('exceeds ThreadLimit'))
    return `, or ThreadLimit ${adjustment.from} to keep ${adjustment.from} threads per process`;
  if (adjustment.directive !== 'MaxRequestWorkers' || !text.includes('ServerLimit')) return '';
  const processes = Math.ceil(adjustment.from / mpm.threadsPerChild);
  const where = modern ? '' : ' above it';
  return `, or ServerLimit ${processes}${where} if the memory budget holds ${processes} processes (AP2001)`;
}

/** 2.2: a ServerLimit after the MaxClients line would allow more than the clamp. */
function laterLimitRaises(mpm: MpmSettings, adjustment: MpmAdjustment): boolean {
  return mpm.values.ServerLimit.value * mpm.threadsPerChild > adjustment.to;
}
