import { defineRule } from '../../src/engine/define-rule.js';
import type { OomKill } from '../../src/host/facts.js';
import { formatUptime } from '../../src/host/format.js';

const SERVERS: readonly { readonly label: string; readonly pattern: RegExp }[] = [
  { label: 'Apache', pattern: /^(apache2|httpd)/ },
  { label: 'php-fpm', pattern: /^php/ },
  { label: 'the database server', pattern: /^(mysqld|mariadbd)/ },
];

export default defineRule('host', {
  meta: {
    id: 'HO2002',
    name: 'oom-kills',
    category: 'performance',
    description: 'The kernel has killed server processes for want of memory since the host booted',
    defaultSeverity: 'error',
    recommended: true,
    options: {
      within: {
        type: 'seconds',
        default: 604_800,
        description: 'only kills this recent count: older ones may describe limits changed since',
      },
    },
    messages: {
      killed: {
        message:
          'the kernel killed {{kills}} for want of memory in the last {{within}}; expected limits the memory holds (the budget below shows where it goes)',
        detail:
          '{{source}}; the last: {{last}} ago; a killed Apache child drops its requests, a killed database server restarts and loses its caches; AP2001, MY2001 and HO2001 size the limits to RAM',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.oomKills;
        const recent = fact?.value.filter((kill) => kill.secondsAgo <= ctx.options.within) ?? [];
        if (fact === undefined || recent.length === 0) return;
        const counts = SERVERS.map(({ label, pattern }) => ({ label, count: recent.filter((kill) => pattern.test(kill.process)).length }))
          .filter(({ count }) => count > 0)
          .map(({ label, count }) => `${label} ${count === 1 ? 'once' : `${count} times`}`);
        const at = ctx.configs.of('apache')[0]?.root ?? ctx.configs.first('mycnf')?.root;
        if (at === undefined) return;
        const last = recent[recent.length - 1] as OomKill;
        ctx.report({
          at: { file: at, range: [0, 0] as const },
          messageId: 'killed',
          data: {
            kills: counts.join(', '),
            within: formatUptime(ctx.options.within),
            source: fact.source,
            last: `${last.process} PID ${last.pid}, ${formatUptime(last.secondsAgo)}`,
          },
        });
      },
    };
  },
});
