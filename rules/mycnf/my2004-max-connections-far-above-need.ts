import { defineRule } from '../../src/engine/define-rule.js';
import { poolLimit, webTierLimit } from '../../src/analysis/sizing.js';
import type { HostPlan } from '../../src/analysis/plan.js';
import { planMycnfSetting, replaceMycnfValue } from '../../src/languages/mycnf/edits.js';
import { parseServerSize } from '../../src/languages/mycnf/sizes.js';
import { formatBytes } from '../../src/util/units.js';
import { lineOf } from '../../src/core/located.js';
import type { LanguageRuleContext, Located } from '../../src/engine/types.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { intendedEffective, type IntendedOption } from './support/intent.js';
import { counter, runtimeCounters } from '../../src/analysis/mysql-live.js';
import { MIN_UPTIME_WAIT_OPTION } from './support/runtime.js';

/** max_connections' upper bound on MySQL and MariaDB: larger values are clamped at start (verified on MariaDB 10.11). */
const MAX_CONNECTIONS_LIMIT = 100000;

export default defineRule('mycnf', {
  meta: {
    id: 'MY2004',
    name: 'max-connections-far-above-need',
    category: 'performance',
    description: 'max_connections is far above what the clients can open, which inflates the worst-case memory for nothing',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'tune',
    options: {
      factor: { type: 'number', default: 2, description: 'with a web tier: max_connections above factor x web tier + slack is reported' },
      slack: { type: 'integer', default: 50, description: 'connections added to factor x web tier before it is reported' },
      threshold: { type: 'integer', default: 1000, description: 'without a web tier: max_connections above this is reported' },
      minUptime: MIN_UPTIME_WAIT_OPTION,
    },
    messages: {
      clamped: {
        message: 'max_connections {{value}} is above the limit of {{limit}}; expected {{limit}} at most',
        detail: 'the server uses {{limit}}: "option \'max_connections\': unsigned value {{value}} adjusted to {{limit}}"',
      },
      aboveWebTier: {
        message: 'max_connections {{value}} is far above the {{web}} connections the web tier can open; expected {{suggested}}{{where}}',
        detail:
          'max_connections {{from}}; {{webReason}} can open {{web}} (one per PHP child); more than {{factor}} x {{web}} + {{slack}} (heuristic); each connection may take {{perConnection}}; {{suggested}}: {{why}}',
      },
      aboveUse: {
        message: 'max_connections {{value}} is far above the {{maxUsed}} connections ever open at once; expected {{suggested}}{{where}}',
        detail:
          'max_connections {{from}}; Max_used_connections {{maxUsed}} in {{span}}; more than {{factor}} x {{maxUsed}} + {{slack}} (heuristic); each connection may take {{perConnection}}; {{suggested}} = {{factor}} x {{maxUsed}} + {{slack}}',
      },
      huge: {
        message:
          'max_connections {{value}} with one thread per connection is above {{threshold}}; expected a value sized to the clients{{poolAdvice}}',
        detail: 'max_connections {{from}}; heuristic; each connection may take {{perConnection}} and a thread of its own',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const setting = maxConnectionsOf(ctx);
        if (setting === undefined) return;
        if (setting.value > MAX_CONNECTIONS_LIMIT) reportClamped(ctx, setting);
        else if (ctx.sizing.plan.phpClients !== undefined) reportAboveWebTier(ctx, setting, ctx.sizing.plan);
        else if (!reportAboveUse(ctx, setting)) reportWithoutWebTier(ctx, setting);
      },
    };
  },
});

type Context = LanguageRuleContext<
  'mycnf',
  {
    readonly factor: number;
    readonly slack: number;
    readonly threshold: number;
    readonly minUptime: number;
  }
>;

/** max_connections as the server takes it, and where it comes from. */
interface MaxConnections {
  readonly value: number;
  readonly from: string;
  readonly intended: IntendedOption | undefined;
  /** The line a fix may change: not a set-variable line, which MY4001 rewrites first (the value is fixed on the next pass). */
  readonly editable: MycnfOptionUse | undefined;
  readonly at: Located;
  readonly perConnection: string;
}

function maxConnectionsOf(ctx: Context): MaxConnections | undefined {
  const { config: mycnf } = ctx;
  const mysql = ctx.sizing.mysql;
  if (mysql === undefined) return undefined;
  const intended = intendedEffective(mycnf, 'max_connections');
  const parsed = intended?.value === undefined ? undefined : parseServerSize(intended.value, mycnf.target, 'max_connections');
  if (parsed !== undefined && 'error' in parsed) return undefined;
  return {
    value: parsed?.bytes ?? mysql.maxConnections.value,
    from:
      intended === undefined
        ? mysql.maxConnections.from
        : `set in ${lineOf(intended.use)}${intended.viaSetVariable ? ' by set-variable' : ''}`,
    intended,
    editable: intended !== undefined && !intended.viaSetVariable ? intended.use : undefined,
    at: intended?.use ?? { file: mycnf.root, range: [0, 0] as const },
    perConnection: formatBytes(mysql.perConnectionBytes),
  };
}

function reportClamped(ctx: Context, { at, value, editable }: MaxConnections): void {
  ctx.report({
    at,
    messageId: 'clamped',
    severity: 'warn',
    data: { value, limit: MAX_CONNECTIONS_LIMIT },
    fixKind: 'safe',
    fix: () => (editable === undefined ? null : replaceMycnfValue(editable, String(MAX_CONNECTIONS_LIMIT))),
  });
}

function reportAboveWebTier(ctx: Context, setting: MaxConnections, plan: HostPlan): void {
  const decision = plan.mysql?.maxConnections;
  const web = plan.phpClients;
  const { factor, slack } = ctx.options;
  const { value, intended, editable } = setting;
  // The value as intended (a set-variable line MY4001 rewrites first) is the one judged.
  if (decision === undefined || web === undefined || decision.planned >= decision.current || decision.planned >= value) return;
  const suggested = decision.planned;
  const edit = intended === undefined || editable !== undefined ? planMycnfSetting(ctx.config, 'max_connections', String(suggested)) : null;
  const webReason = [...plan.apache.filter((entry) => entry.role === 'php').map(webTierLimit), ...plan.pools.map(poolLimit)].join(' and ');
  ctx.report({
    at: setting.at,
    messageId: 'aboveWebTier',
    data: {
      value,
      from: setting.from,
      web,
      webReason,
      factor,
      slack,
      perConnection: setting.perConnection,
      suggested,
      why: decision.why,
      where: edit !== null && intended === undefined ? `; to be added at ${edit.where}` : '',
    },
    fix: () => edit?.edit ?? null,
  });
}

/**
 * Without a web tier to size from, the running server's Max_used_connections
 * is the need; true when the counters could judge (reported or not).
 */
function reportAboveUse(ctx: Context, setting: MaxConnections): boolean {
  const runtime = runtimeCounters(ctx.host, ctx.options.minUptime);
  const maxUsed = runtime === undefined ? undefined : counter(runtime.live, 'Max_used_connections');
  if (runtime === undefined || maxUsed === undefined) return false;
  const { factor, slack } = ctx.options;
  const suggested = Math.ceil(factor * maxUsed + slack);
  if (setting.value <= suggested) return true;
  const { intended, editable } = setting;
  const plan = intended === undefined || editable !== undefined ? planMycnfSetting(ctx.config, 'max_connections', String(suggested)) : null;
  ctx.report({
    at: setting.at,
    messageId: 'aboveUse',
    data: {
      value: setting.value,
      from: setting.from,
      maxUsed,
      span: runtime.span,
      factor,
      slack,
      perConnection: setting.perConnection,
      suggested,
      where: plan !== null && intended === undefined ? `; to be added at ${plan.where}` : '',
    },
    fix: () => plan?.edit ?? null,
  });
  return true;
}

function reportWithoutWebTier(ctx: Context, setting: MaxConnections): void {
  const { config: mycnf } = ctx;
  const threshold = ctx.options.threshold;
  const handling = mycnf.effective('thread_handling')?.value?.toLowerCase();
  if (setting.value <= threshold || handling === 'pool-of-threads') return;
  ctx.report({
    at: setting.at,
    messageId: 'huge',
    severity: 'warn',
    data: {
      value: setting.value,
      from: setting.from,
      threshold,
      perConnection: setting.perConnection,
      poolAdvice: mycnf.target.product === 'mariadb' ? ', or thread_handling = pool-of-threads' : '',
    },
  });
}
