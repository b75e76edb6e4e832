import { defineRule } from '../../src/engine/define-rule.js';
import { versionAtLeast } from '../../src/core/targets.js';
import {
  argumentCheck,
  argumentsError,
  EXPECTED_ARGUMENTS,
  refusesArguments,
  refusesPlainLine,
} from '../../src/languages/apache/arguments.js';
import type { ArgumentCheck } from '../../src/languages/apache/directive-arguments.js';
import { directiveOwners, directiveSpelling } from '../../src/languages/apache/directive-owners.js';
import type { ApacheDirectiveUse } from '../../src/languages/apache/model.js';

/** KeepAlive's value is AP1012's, with the fix it has. */
const REPORTED_ELSEWHERE: ReadonlySet<string> = new Set(['keepalive']);

export default defineRule('apache', {
  meta: {
    id: 'AP1016',
    name: 'directive-arguments',
    category: 'correctness',
    description: 'A directive with a number of arguments httpd refuses (or a flag that is not On or Off) stops httpd from starting',
    defaultSeverity: 'error',
    recommended: true,
    messages: {
      count: { message: '{{written}} takes {{expected}} and gets {{given}}, so httpd refuses to start', detail: '"{{error}}"' },
      flag: { message: '{{written}} takes On or Off and gets {{given}}, so httpd refuses to start', detail: '"{{error}}"' },
    },
  },
  create(ctx) {
    const apache = ctx.config;
    // The table is httpd 2.4's, and without an MPM the file is a fragment whose modules are unknown (AP1007).
    if (!versionAtLeast(ctx.targets.httpd, '2.4') || apache.mpm === undefined) return {};
    const mpm = apache.mpm.name;
    const sources = new Set([...apache.modules.values()].map((module) => module.sourceName));
    if (mpm !== undefined) sources.add(`${mpm}.c`);
    const checkOf = (name: string): ArgumentCheck | undefined => {
      // A directive of a module that is not loaded is AP1015's, another MPM's AP1008's.
      const loaded = (directiveOwners(name) ?? []).some((owner) => sources.has(owner));
      return loaded && !REPORTED_ELSEWHERE.has(name) ? argumentCheck(name) : undefined;
    };
    return {
      end() {
        // By name: each name's check is looked up once, and the lines of a name without one are not visited.
        const refused: { readonly use: ApacheDirectiveUse; readonly check: ArgumentCheck }[] = [];
        for (const name of apache.directiveNames()) {
          const check = checkOf(name);
          if (check !== undefined)
            for (const use of apache.named(name)) if (refusedArguments(check, use) && judged(use)) refused.push({ use, check });
        }
        refused.sort((a, b) => a.use.order - b.use.order);
        for (const { use, check } of refused) {
          const spelling = directiveSpelling(use.name) ?? use.node.name;
          ctx.report({
            at: use,
            messageId: check === 'FLAG' ? 'flag' : 'count',
            data: {
              written: use.node.name,
              expected: EXPECTED_ARGUMENTS[check],
              given: given(use.args),
              error: argumentsError(spelling, check, mpm),
            },
          });
        }
      },
    };
  },
});

/** Whether httpd refuses the line's arguments; most lines are plain words, counted without making them. */
function refusedArguments(check: ArgumentCheck, use: ApacheDirectiveUse): boolean {
  return (use.variables.length > 0 ? undefined : refusesPlainLine(check, use.node.line.text)) ?? refusesArguments(check, use.args);
}

/**
 * Whether httpd reads this line as it stands here: nothing in it could read
 * differently on the server (a `${VAR}` no Define sets may be set in its
 * environment); it is not inside a `<Macro>`, whose lines run only where a
 * `Use` puts them; and no `#` word is on it, which AP1001 reports with the
 * count httpd then sees.
 */
function judged(use: ApacheDirectiveUse): boolean {
  if (use.unresolved.length > 0) return false;
  for (let section = use.parent; section !== undefined; section = section.parent) if (section.name === 'macro') return false;
  return !use.node.line.text.includes('#') || !use.node.args.some((arg) => arg.quote === undefined && arg.value.startsWith('#'));
}

/** What the line gives, as written after `${VAR}` expansion: `none`, or the count and the words. */
function given(words: readonly string[]): string {
  if (words.length === 0) return 'none';
  const shown = words.map((word) => (word === '' ? '""' : word)).join(' ');
  const empty = words.includes('') ? '; httpd takes "" for no argument' : '';
  return `${words.length} (${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown}${empty})`;
}
