import { defineRule } from '../../src/engine/define-rule.js';
import { inCaseOf, replaceApacheArg } from '../../src/languages/apache/edits.js';
import { sectionLabel, type ApacheDirectiveUse, type ApacheSectionUse } from '../../src/languages/apache/model.js';
import { decidingLines, perServer } from '../../src/languages/apache/vhosts.js';

const ON = /^(on|double)$/i;
/** A `Require host` line has the word in its (expanded) arguments' text. */
const MAY_NAME_HOST = /host/i;

export default defineRule('apache', {
  meta: {
    id: 'AP2011',
    name: 'hostname-lookups',
    category: 'performance',
    description: 'HostnameLookups or host-based access rules make requests wait for DNS',
    defaultSeverity: 'warn',
    recommended: true,
    fix: 'tune',
    messages: {
      server: {
        message: 'HostnameLookups {{value}} makes every request wait for DNS; expected HostnameLookups Off',
        detail:
          'a reverse DNS lookup of the client address{{double}} before httpd logs and handles the request; resolve the logs offline with logresolve',
      },
      narrow: {
        message:
          'HostnameLookups {{value}} in {{section}} makes its requests wait for DNS; expected HostnameLookups Off unless the names are needed there',
        detail: 'a reverse DNS lookup of the client address{{double}} on every request',
      },
      hostAccess: {
        message: '{{directive}} {{hosts}} costs a double DNS lookup per request; expected {{instead}} with the client addresses',
        detail:
          'httpd checks a host name with a reverse then a forward lookup for every request this rule is evaluated for, whatever HostnameLookups says',
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    const doubleText = (value: string): string => (/^double$/i.test(value) ? ' and a forward lookup to confirm it' : '');
    const hostAccess = (use: ApacheDirectiveUse, keywords: readonly string[], hosts: readonly string[], instead: string): void => {
      if (hosts.length === 0) return;
      ctx.report({
        at: use,
        messageId: 'hostAccess',
        severity: 'info',
        data: { directive: [use.node.name, ...keywords].join(' '), hosts: hosts.join(' '), instead },
      });
    };
    return {
      directive: {
        require(use) {
          // Most Require lines are `all granted` or `ip ...`: splitting each of them keeps its words for the rest of the run.
          if (!MAY_NAME_HOST.test(use.argsText)) return;
          const words = use.args.map((word) => word.toLowerCase());
          const at = words[0] === 'not' ? 1 : 0;
          if (words[at] === 'host') hostAccess(use, use.args.slice(0, at + 1), use.args.slice(at + 1), 'Require ip');
        },
        allow(use) {
          hostAccess(use, use.args.slice(0, 1), hostNames(use.args), 'Allow from');
        },
        deny(use) {
          hostAccess(use, use.args.slice(0, 1), hostNames(use.args), 'Deny from');
        },
      },
      end() {
        for (const use of decidingLines(perServer(apache, 'hostnamelookups'))) {
          const value = use.args[0] ?? '';
          if (!ON.test(value)) continue;
          ctx.report({
            at: use,
            messageId: 'server',
            data: { value, double: doubleText(value) },
            fix: () => replaceApacheArg(use, 0, inCaseOf(value, 'Off')),
          });
        }
        const lastInSection = new Map<ApacheSectionUse, ApacheDirectiveUse>();
        for (const use of apache.named('hostnamelookups')) {
          const container = apache.container(use);
          if (container !== undefined && container.name !== 'virtualhost') lastInSection.set(container, use);
        }
        for (const [container, use] of lastInSection) {
          const value = use.args[0] ?? '';
          if (!ON.test(value)) continue;
          const section = sectionLabel(container.node);
          ctx.report({ at: use, messageId: 'narrow', severity: 'info', data: { value, section, double: doubleText(value) } });
        }
      },
    };
  },
});

/**
 * The host names among `Allow from` / `Deny from` arguments (expanded as
 * httpd does): not `all`, `env=`, an IPv4/IPv6 address or network, nor a
 * `${NAME}` nothing defines, which is AP1004's and whose value is unknown.
 */
function hostNames(args: readonly string[]): string[] {
  if (args[0]?.toLowerCase() !== 'from') return [];
  return args.slice(1).filter((word) => {
    const lower = word.toLowerCase();
    if (lower === 'all' || lower.startsWith('env=') || word.includes('${')) return false;
    if (word.includes(':')) return false;
    return /[a-z]/i.test(word.replace(/\/.*$/, ''));
  });
}
