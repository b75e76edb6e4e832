import { defineApacheRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import { directiveOwners, isShippedModule, likelyDirective, MPM_SOURCES } from '../../src/languages/apache/directive-owners.js';
import { DIRECTIVES } from '../../src/languages/apache/directives.js';
import type { ApacheDirectiveUse, ApacheSectionUse } from '../../src/languages/apache/model.js';
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

export default defineApacheRule({
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
    const apache = ctx.apache;
    // The table is httpd 2.4's; 2.2 had other modules and names. Without an MPM the config is a fragment
    // (a file that is included elsewhere) or misses its module includes, and AP1007 says so: which
    // modules the server loads is then unknown.
    if (!versionAtLeast(ctx.targets.httpd, '2.4') || apache.mpm === undefined) return {};
    // A module from elsewhere (mod_php, mod_security...) may define any name: then only names of httpd's own modules are judged.
    const judgesEveryName = [...apache.modules.values()].every(isShippedModule);
    const loaded = new Set([...apache.modules.values()].map((module) => module.sourceName));
    // Lower-case names found to belong to a loaded module: a config repeats a few dozen names, most of them fine.
    const accepted = new Set<string>();
    /** `command` as httpd quotes it (a section's name with its `<`), `name` its lower-case lookup key. */
    const judge = (at: ApacheDirectiveUse | ApacheSectionUse, command: string, name: string): void => {
      const section = command.startsWith('<');
      const written = section ? `${command}>` : command;
      const owners = directiveOwners(name);
      if (owners === undefined) {
        if (!judgesEveryName) return;
        const likely = likelyDirective(name);
        const expected =
          likely === undefined
            ? 'a directive of a loaded module, or the module that defines it loaded'
            : `${section ? `${likely}>` : likely}, the nearest name httpd knows`;
        ctx.report({ at, messageId: 'unknown', data: { written, command, expected } });
        return;
      }
      // Loaded anywhere will do: httpd runs LoadModule as it reads, and the other directives once all is read.
      for (const owner of owners) {
        if (MPM_SOURCES.has(owner) || loaded.has(owner)) {
          accepted.add(name);
          return;
        }
      }
      const module = owners[0] as string;
      const short = module === 'util_ldap.c' ? 'ldap' : module.replace(/^mod_/, '').replace(/\.c$/, '');
      ctx.report({ at, messageId: 'notLoaded', data: { written, command, module, identifier: `${short}_module`, short } });
    };
    return {
      directive: {
        '*': (use) => {
          if (accepted.has(use.name)) return;
          const written = use.node.name;
          // `${NAME}` as a directive name, or a byte order mark in the first word (AP1013), are not names to judge.
          if (!startsWithLetter(written) || written.includes('$') || REPORTED_ELSEWHERE.has(use.name) || REMOVED_IN_24.has(use.name))
            return;
          judge(use, written, use.name);
        },
      },
      section: {
        '*': (section) => {
          const written = section.node.name;
          if (startsWithLetter(written) && !written.includes('$')) judge(section, `<${written}`, `<${section.name}`);
        },
      },
    };
  },
});

/** A plain directive name starts with an ASCII letter. */
function startsWithLetter(name: string): boolean {
  const first = name.charCodeAt(0) | 32;
  return first >= 97 && first <= 122;
}
