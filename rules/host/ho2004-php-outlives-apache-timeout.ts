import { defineRule } from '../../src/engine/define-rule.js';
import { handsOffTo } from '../../src/analysis/php-pools.js';
import { lineOf } from '../../src/core/located.js';
import type { ApacheConfig } from '../../src/languages/apache/model.js';
import { effectiveSetting } from '../../src/languages/apache/settings.js';
import { insertPhpFpmEntry, replacePhpFpmValue } from '../../src/languages/phpfpm/edits.js';
import { fpmSeconds } from '../../src/languages/phpfpm/values.js';

/** How long Apache waits for a FastCGI answer: ProxyTimeout when the server sets one, else Timeout (mod_proxy). */
function apacheWait(config: ApacheConfig): { seconds: number; from: string } | undefined {
  const proxy = config.named('proxytimeout').filter((use) => use.parent === undefined);
  const last = proxy[proxy.length - 1];
  if (last !== undefined) {
    const seconds = Number(last.args[0]);
    return Number.isSafeInteger(seconds) && seconds > 0 ? { seconds, from: `ProxyTimeout ${seconds} (${lineOf(last)})` } : undefined;
  }
  const timeout = effectiveSetting(config, 'timeout');
  const seconds = Number(timeout.args[0]);
  if (!Number.isSafeInteger(seconds) || seconds <= 0) return undefined;
  return { seconds, from: `Timeout ${seconds} (${timeout.use === undefined ? `httpd's default` : lineOf(timeout.use)})` };
}

export default defineRule('host', {
  meta: {
    id: 'HO2004',
    name: 'php-outlives-apache-timeout',
    category: 'performance',
    description: 'A php-fpm child can go on with a request after Apache has given up on it and answered 504',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      outlives: {
        message: '[{{pool}}] {{terminate}}, but Apache waits {{wait}} s; expected request_terminate_timeout = {{wait}}s',
        detail:
          "{{from}}; after it Apache answers 504 and drops the request, while the child keeps running it, busy and holding its memory and database connection, and the client often retries; php-fpm ends a request past request_terminate_timeout, even one PHP's max_execution_time does not see (time in sleep, I/O, database calls)",
      },
    },
  },
  create(ctx) {
    return {
      end() {
        for (const pool of ctx.sizing.pools) {
          const senders = ctx.sizing.apache.flatMap((apache) => {
            const wait = handsOffTo(apache.config, pool) ? apacheWait(apache.config) : undefined;
            return wait === undefined ? [] : [wait];
          });
          const wait = senders.sort((a, b) => b.seconds - a.seconds)[0];
          if (wait === undefined) continue;
          const use = pool.pool.effective('request_terminate_timeout');
          const seconds = use === undefined ? 0 : fpmSeconds(use.value);
          if (seconds === undefined || (seconds > 0 && seconds <= wait.seconds)) continue;
          const value = `${wait.seconds}s`;
          ctx.report({
            at: use ?? pool.pool.header,
            messageId: 'outlives',
            data: {
              pool: pool.pool.name,
              terminate:
                use === undefined
                  ? 'request_terminate_timeout is not set (0: never)'
                  : seconds === 0
                    ? 'request_terminate_timeout = 0 (never)'
                    : `request_terminate_timeout ${use.value} (${seconds} s)`,
              wait: wait.seconds,
              from: wait.from,
            },
            fix: () =>
              use === undefined ? insertPhpFpmEntry(pool.pool, 'request_terminate_timeout', value) : replacePhpFpmValue(use, value),
          });
        }
      },
    };
  },
});
