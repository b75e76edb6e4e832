import { defineRule } from '../../src/engine/define-rule.js';
import { counter, percent, runtimeCounters } from '../../src/analysis/mysql-live.js';
import { lineOrTop, MIN_UPTIME_OPTION, earlyVerdict } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2014',
    name: 'aborted-connections',
    category: 'performance',
    description: 'Many connection attempts to the running server fail: logins refused, timeouts, or clients that give up',
    defaultSeverity: 'info',
    recommended: true,
    options: {
      minUptime: MIN_UPTIME_OPTION,
      minConnections: { type: 'integer', default: 100, description: 'fewer connection attempts than this give no verdict' },
      maxShare: {
        type: 'share',
        default: 0.03,
        description: 'failed attempts above this share of connections are reported (MySQLTuner: 3 %)',
      },
    },
    messages: {
      aborted: {
        message: '{{share}} of connection attempts failed ({{aborted}} of {{connections}}); expected few: the error log names the clients',
        detail:
          'Aborted_connects {{aborted}} of Connections {{connections}} in {{span}}{{reasons}}; a client that fails to log in or to finish the handshake within connect_timeout ({{connectTimeout}} s) counts here',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime, { early: true });
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const connections = counter(live, 'Connections') ?? 0;
        const aborted = counter(live, 'Aborted_connects') ?? 0;
        if (connections < ctx.options.minConnections || aborted / connections <= ctx.options.maxShare) return;
        const reasons = ['Access_denied_errors', 'Connection_errors_max_connections', 'Connection_errors_internal']
          .map((name) => [name, counter(live, name) ?? 0] as const)
          .filter(([, count]) => count > 0)
          .map(([name, count]) => `${name} ${count}`);
        ctx.report(
          earlyVerdict(runtime, {
            at: lineOrTop(ctx.config, 'connect_timeout'),
            messageId: 'aborted',
            data: {
              share: percent(aborted, connections),
              aborted,
              connections,
              span,
              reasons: reasons.length === 0 ? '' : ` (${reasons.join(', ')})`,
              connectTimeout: live.variables.connect_timeout ?? 'unknown',
            },
          }),
        );
      },
    };
  },
});
