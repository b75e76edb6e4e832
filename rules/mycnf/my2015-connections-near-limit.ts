import { defineRule } from '../../src/engine/define-rule.js';
import { counter, percent, runtimeCounters, variableNumber } from '../../src/analysis/mysql-live.js';
import { lineOrTop, MIN_UPTIME_OPTION, earlyVerdict } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY2015',
    name: 'connections-near-limit',
    category: 'performance',
    description: 'The running server has refused connections at max_connections, or came close to it',
    defaultSeverity: 'warn',
    recommended: true,
    options: {
      minUptime: MIN_UPTIME_OPTION,
      nearShare: { type: 'share', default: 0.85, description: 'Max_used_connections above this share of max_connections is reported' },
    },
    messages: {
      refused: {
        message:
          'the server refused {{refused}} connections with "Too many connections" (max_connections {{max}}); expected a max_connections the clients fit in, as far as memory allows',
        detail:
          'Connection_errors_max_connections {{refused}}, Max_used_connections {{maxUsed}} in {{span}}; each connection may take its per-thread buffers (MY2001 keeps the worst case within RAM); fewer clients (a web tier sized to the database, HO1001) is the other way',
      },
      atLimit: {
        message:
          '{{maxUsed}} connections were open at once, max_connections {{max}} itself; expected a max_connections the clients fit in, as far as memory allows',
        detail:
          'Max_used_connections {{maxUsed}} in {{span}}; at the limit the next client without SUPER gets "Too many connections" (MariaDB counts it in Aborted_connects, not Connection_errors_max_connections); raise it only as far as memory allows (MY2001), or limit the clients (HO1001)',
      },
      near: {
        message: '{{maxUsed}} connections were open at once, {{share}} of max_connections {{max}}; expected headroom for a busier day',
        detail:
          'Max_used_connections {{maxUsed}} in {{span}}; at max_connections the next client gets "Too many connections"; raise it only as far as memory allows (MY2001), or limit the clients (HO1001)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const runtime = runtimeCounters(ctx.host, ctx.options.minUptime, { early: true });
        if (runtime === undefined) return;
        const { live, span } = runtime;
        const max = variableNumber(live, 'max_connections');
        const maxUsed = counter(live, 'Max_used_connections') ?? 0;
        const refused = counter(live, 'Connection_errors_max_connections') ?? 0;
        if (max === undefined || max === 0) return;
        const at = lineOrTop(ctx.config, 'max_connections');
        const data = { max, maxUsed, refused, span, share: percent(maxUsed, max) };
        if (refused > 0) ctx.report({ at, messageId: 'refused', severity: 'error', data });
        else if (maxUsed >= max) ctx.report(earlyVerdict(runtime, { at, messageId: 'atLimit', data }));
        else if (maxUsed > ctx.options.nearShare * max) ctx.report(earlyVerdict(runtime, { at, messageId: 'near', data }));
      },
    };
  },
});
