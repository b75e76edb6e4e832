import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { lineOrTop } from './support/runtime.js';
import { SUPPORT_TABLE_DATE, supportEnd } from './support/support-dates.js';

const DAY_MS = 86_400_000;

export default defineRule('mycnf', {
  meta: {
    id: 'MY3006',
    name: 'server-support-ended',
    category: 'security',
    description: "The running server's release series is past or near the end of its vendor's support",
    defaultSeverity: 'warn',
    recommended: true,
    options: {
      warnDays: {
        type: 'integer',
        default: 180,
        description: 'a series whose support ends within this many days is reported as a note',
      },
    },
    messages: {
      ended: {
        message: '{{product}} {{series}} reached the end of its support {{end}}; expected a supported series: {{next}}',
        detail:
          "no security fixes since; the dates are the vendors' (MariaDB's maintenance policy, Oracle's lifetime support), in a table shipped with tune-lint and dated {{tableDate}}, never fetched ({{source}} says {{version}})",
      },
      ending: {
        message: '{{product}} {{series}} ends its support {{end}}, in {{days}} days; expected an upgrade plan: {{next}}',
        detail:
          "the dates are the vendors' (MariaDB's maintenance policy, Oracle's lifetime support), in a table shipped with tune-lint and dated {{tableDate}}, never fetched ({{source}} says {{version}})",
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        if (fact === undefined) return;
        const [product = '', version = ''] = fact.value.server.split('=');
        const support = supportEnd(product, version);
        if (support === undefined) return;
        const days = Math.ceil((Date.parse(support.end) - Date.now()) / DAY_MS);
        if (days > ctx.options.warnDays) return;
        ctx.report({
          at: lineOrTop(ctx.config, 'bind_address'),
          messageId: days <= 0 ? 'ended' : 'ending',
          severity: days <= 0 ? 'warn' : 'info',
          data: {
            product: product === 'mysql' ? 'MySQL' : 'MariaDB',
            series: support.series,
            end: support.when,
            days,
            next: support.next,
            tableDate: SUPPORT_TABLE_DATE,
            source: liveSource(fact.source),
            version,
          },
        });
      },
    };
  },
});
