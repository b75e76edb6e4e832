import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { directiveOwners, isShippedModule, likelyDirective, MPM_SOURCES } from '../../src/languages/apache/directive-owners.js';
import { DIRECTIVES } from '../../src/languages/apache/directives.js';
import type { ApacheDirectiveUse, ApacheSectionUse } from '../../src/languages/apache/model.js';
import { asHttpdLogs } from '../../src/util/ascii.js';
import { remembered } from '../../src/util/remembered.js';
import { REMOVED_IN_24 } from './ap4003-removed-directive.js';

/**
 * Names other rules report with their own advice: the MPMs' directives
 * (AP1008), 2.2 access control (AP4002) and the directives 2.4 removed (AP4003).
 */
const REPORTED_ELSEWHERE: ReadonlySet<string> = new Set([
  ...DIRECTIVES.filter((spec) => spec.mpms !== undefined).map((spec) => spec.name.toLowerCase()),
  'order',
  'allow',
  'deny',
  'satisfy',
]);

const INVALID = "Invalid command '{{command}}', perhaps misspelled or defined by a module not included in the server configuration";

export default defineRule('apache', {
  meta: {
    id: 'AP1015',
    name: 'unknown-directive',
    category: 'correctness',
    description: 'A directive or section no loaded module defines (a typo, or a module not loaded) stops httpd from starting',
    defaultSeverity: 'error',
    recommended: true,
    messages: {
      notLoaded: {
        message:
          '{{written}} needs {{module}}, which is not loaded, so httpd refuses to start; expected LoadModule {{identifier}} (a2enmod {{short}} on Debian), or the line inside <IfModule {{module}}>',
        detail: `"${INVALID}"`,
      },
      unknown: {
        message: '{{written}} is no directive httpd knows, so it refuses to start; expected {{expected}}',
        detail: `not a directive of httpd 2.4 or of a module it ships, and every module this configuration loads is one of those: "${INVALID}"`,
      },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    // The table is httpd 2.4's; 2.2 had other modules and names. Without an MPM the config is a fragment
    // (a file that is included elsewhere) or misses its module includes, and AP1007 says so: which
    // modules the server loads is then unknown.
    if (!versionAtLeast(ctx.targets.httpd, '2.4') || apache.mpm === undefined) return {};
    // A module from elsewhere (mod_php, mod_security...) may define any name: then only names of httpd's own modules are judged.
    const judgesEveryName = [...apache.modules.values()].every(isShippedModule);
    const loaded = new Set([...apache.modules.values()].map((module) => module.sourceName));
    /** What httpd makes of a lower-case name (a section's with its `<`): null when a loaded module, or the MPM, defines it. */
    const verdictOf = (name: string): Verdict | null => {
      const owners = directiveOwners(name);
      if (owners === undefined) return judgesEveryName ? { kind: 'unknown', likely: likelyDirective(name) } : null;
      // Loaded anywhere will do: httpd runs LoadModule as it reads, and the other directives once all is read.
      if (owners.some((owner) => MPM_SOURCES.has(owner) || loaded.has(owner))) return null;
      const module = owners[0] as string;
      const short = module === 'util_ldap.c' ? 'ldap' : module.replace(/^mod_/, '').replace(/\.c$/, '');
      return { kind: 'notLoaded', module, short };
    };
    // A section's name, once: 10,000 vhosts repeat a handful of them.
    const sections = new Map<string, Verdict | null>();
    /** `written` is the name as written (a section's with its `<`); httpd quotes it as its error log escapes it. */
    const report = (at: ApacheDirectiveUse | ApacheSectionUse, written: string, verdict: Verdict): void => {
      const command = asHttpdLogs(written);
      const section = command.startsWith('<');
      const shown = section ? `${command}>` : command;
      if (verdict.kind === 'unknown') {
        const { likely } = verdict;
        const expected =
          likely === undefined
            ? 'a directive of a loaded module, or the module that defines it loaded'
            : `${section ? `${likely}>` : likely}, the nearest name httpd knows`;
        ctx.report({ at, messageId: 'unknown', data: { written: shown, command, expected } });
        return;
      }
      const { module, short } = verdict;
      ctx.report({ at, messageId: 'notLoaded', data: { written: shown, command, module, identifier: `${short}_module`, short } });
    };
    return {
      end() {
        // By name: each is judged once, and only the lines of a name httpd refuses are visited, in read order.
        const refused: { readonly use: ApacheDirectiveUse; readonly verdict: Verdict }[] = [];
        for (const name of apache.directiveNames()) {
          if (!judgedName(name) || REPORTED_ELSEWHERE.has(name) || REMOVED_IN_24.has(name)) continue;
          const verdict = verdictOf(name);
          if (verdict !== null) for (const use of apache.named(name)) refused.push({ use, verdict });
        }
        refused.sort((a, b) => a.use.order - b.use.order);
        for (const { use, verdict } of refused) report(use, use.node.name, verdict);
        for (const section of apache.sections) {
          const verdict = remembered(sections, section.name, () => (judgedName(section.name) ? verdictOf(`<${section.name}`) : null));
          if (verdict !== null) report(section, `<${section.node.name}`, verdict);
        }
      },
    };
  },
});

type Verdict =
  | { readonly kind: 'unknown'; readonly likely: string | undefined }
  | { readonly kind: 'notLoaded'; readonly module: string; readonly short: string };

/**
 * A name to judge: one starting with an ASCII letter, or with a character
 * beyond ASCII (`\u212AeepAlive`, whose KELVIN SIGN httpd does not take for
 * a K); not `${NAME}` as a name, nor a byte order mark in the first word
 * (AP1013's).
 */
function judgedName(name: string): boolean {
  const first = name.charCodeAt(0);
  const letter = (first | 32) >= 97 && (first | 32) <= 122;
  return (letter || (first > 0x7f && first !== BYTE_ORDER_MARK)) && !name.includes('$');
}

const BYTE_ORDER_MARK = 0xfeff;
