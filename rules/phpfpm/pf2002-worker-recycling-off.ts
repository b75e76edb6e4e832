import { defineRule } from '../../src/engine/define-rule.js';
import { insertPhpFpmEntry, replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';

export default defineRule('phpfpm', {
  meta: {
    id: 'PF2002',
    name: 'worker-recycling-off',
    category: 'performance',
    description: 'pm.max_requests = 0 keeps every php-fpm child for ever, so memory that PHP code leaks is never given back',
    defaultSeverity: 'info',
    recommended: true,
    fix: 'tune',
    options: {
      requests: { type: 'integer', default: 500, description: 'the pm.max_requests the fix writes' },
    },
    messages: {
      unlimited: {
        message: '[{{pool}}] {{how}}: a child serves requests until php-fpm stops; expected pm.max_requests {{requests}}',
        detail:
          'a child that grows with each request (leaks in extensions or application code, caches that never shrink) keeps what it took; recycling after {{requests}} requests bounds that at the cost of one fork per {{requests}} requests, as MaxConnectionsPerChild does for mod_php (AP2005)',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        for (const pool of ctx.config.pools) {
          const use = pool.effective('pm.max_requests');
          if (use !== undefined && use.value.trim() !== '0') continue;
          const requests = ctx.options.requests;
          ctx.report({
            at: use ?? pool.header,
            messageId: 'unlimited',
            data: { pool: pool.name, how: use === undefined ? 'pm.max_requests is not set (0)' : 'pm.max_requests = 0', requests },
            fix: () =>
              use === undefined ? insertPhpFpmEntry(pool, 'pm.max_requests', String(requests)) : replacePhpFpmValue(use, String(requests)),
          });
        }
      },
    };
  },
});
