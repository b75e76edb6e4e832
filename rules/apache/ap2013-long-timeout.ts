import { defineRule } from '../../src/engine/define-rule.js';
import { replaceApacheArg } from '../../src/languages/apache/edits.js';
import { atoi } from '../../src/languages/apache/mpm.js';
import { decidingLines, perServer } from '../../src/languages/apache/vhosts.js';
import type { ApacheConfig } from '../../src/languages/apache/model.js';

export default defineRule('apache', {
  meta: {
    id: 'AP2013',
    name: 'long-timeout',
    category: 'performance',
    description: 'Timeout lets a slow or stalled client hold a worker for minutes',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    options: {
      warnAt: { type: 'seconds', default: 300, description: "at or above this a warning (Debian ships 300, httpd 2.2's default)" },
      infoAbove: { type: 'seconds', default: 60, description: 'above this a note' },
      fixTo: { type: 'seconds', default: 60, description: "the value the fix writes (httpd 2.4's default)" },
    },
    messages: {
      long: {
        message: "Timeout {{value}} is {{times}} httpd 2.4's default of 60 s; expected Timeout {{suggested}}",
        detail: 'a slow or stalled client holds a {{holder}} for up to {{value}} s on each read or write{{reqtimeout}}{{proxy}}',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const apache = ctx.config;
        const { warnAt, infoAbove, fixTo } = ctx.options;
        const mpm = apache.mpm?.name;
        const holder = mpm === undefined ? 'worker' : mpm === 'prefork' ? 'whole process' : 'worker thread';
        const reqtimeout = apache.hasModule('reqtimeout_module')
          ? ' (mod_reqtimeout is loaded and limits how long request headers and bodies may take; Timeout still bounds every other read and write)'
          : ' (load mod_reqtimeout as well, to limit how long request headers and bodies may take to arrive)';
        // Without ProxyTimeout, mod_proxy waits for a backend (php-fpm) as long as Timeout: a shorter Timeout cuts long PHP requests too.
        const proxy = proxiesWithoutOwnTimeout(apache)
          ? `; mod_proxy waits for its backends (php-fpm) as long as Timeout when no ProxyTimeout is set, so with Timeout ${fixTo} a PHP request longer than ${fixTo} s ends in a 504: keep ProxyTimeout at what the slowest page needs`
          : '';
        for (const use of decidingLines(perServer(apache, 'timeout'))) {
          const value = atoi(use.args[0]);
          if (value <= infoAbove) continue;
          ctx.report({
            at: use,
            messageId: 'long',
            severity: value >= warnAt ? 'warn' : 'info',
            data: {
              value,
              holder,
              times: value % 60 === 0 ? `${value / 60}x` : `${Math.round((value / 60) * 10) / 10}x`,
              reqtimeout,
              proxy,
              suggested: fixTo,
            },
            fix: () => replaceApacheArg(use, 0, String(fixTo)),
          });
        }
      },
    };
  },
});

/** Whether the config proxies requests (to php-fpm or elsewhere) and sets no ProxyTimeout of its own. */
function proxiesWithoutOwnTimeout(apache: ApacheConfig): boolean {
  if (!apache.hasModule('proxy_module') || apache.named('proxytimeout').length > 0) return false;
  const handsOff = apache.named('sethandler').some((use) => use.args.some((arg) => /^proxy:/i.test(arg)));
  return handsOff || apache.named('proxypass').length + apache.named('proxypassmatch').length > 0;
}
