import { defineRule } from '../../src/engine/define-rule.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { clientVerdict, programsReading, type ClientProgram } from '../../src/languages/mycnf/client-programs.js';
import { rewriteSetVariable } from '../../src/languages/mycnf/edits.js';
import { groupKey } from '../../src/languages/mycnf/groups.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { legacySetVariable } from '../../src/languages/mycnf/names.js';
import { shownLine } from './support/intent.js';
import { isServerOnlyOption } from './support/ownership.js';
import { printedArgument } from '../../src/languages/mycnf/parser.js';

/** The programs a failure of which is an error: the ones scripts, backups and package upgrades run. */
const ROUTINE_PROGRAMS = new Set(['mariadb', 'mariadb-dump', 'mariadb-admin', 'mariadb-check', 'mariadb-upgrade']);

/** The groups MY1007 reports a server option in. */
const MY1007_GROUPS = new Set(['client', 'client-server', 'client-mariadb']);

export default defineRule('mycnf', {
  meta: {
    id: 'MY1009',
    name: 'client-option-unknown',
    category: 'correctness',
    description: 'An option in a group the client programs read that one of them does not take stops that program',
    defaultSeverity: 'error',
    recommended: true,
    fix: 'safe',
    messages: {
      setVariable: {
        message: '{{written}} in [{{group}}] stops {{programs}}; expected {{expected}}',
        detail: 'set-variable was removed in MySQL 5.5 from the clients as from the server: "{{program}}: {{wording}}"',
      },
      unknown: {
        message: '{{written}} in [{{group}}]: {{programs}} {{verb}} no such option and stop; expected {{expected}}',
        detail: '"{{program}}: {{wording}}"{{knownBy}}',
      },
      ambiguous: {
        message: '{{written}} in [{{group}}]: {{programs}} take "{{name}}" for the beginning of several options and stop',
        detail: '"{{program}}: ambiguous option \'--{{argument}}\'"; expected the full name',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const serverUses = new Set(mycnf.uses);
    const check = (use: MycnfOptionUse): void => {
      if (!judged(use, mycnf.target, serverUses)) return;
      const readers = programsReading(use.group);
      const rawName = use.file.slice(use.line.nameRange);
      const verdicts = readers.map((program) => ({ program, verdict: clientVerdict(program, rawName) }));
      const failing = verdicts.filter(({ verdict }) => verdict !== 'known').map(({ program }) => program);
      if (failing.length === 0) return;
      const shown = (programs: readonly ClientProgram[]): string => listed(programs.map((program) => nameOn(program, mycnf.target)));
      const argument = printedArgument(use.line, use.file.encoding);
      const data = {
        written: shownLine(use),
        group: use.group,
        programs: shown(failing),
        program: nameOn(failing[0] as ClientProgram, mycnf.target),
        argument,
        wording: use.line.hasEquals ? `unknown variable '${argument}'` : `unknown option '--${argument}'`,
      };
      const severity = failing.some((program) => ROUTINE_PROGRAMS.has(program.program)) ? 'error' : 'warn';
      if (use.name.key === 'set_variable') {
        const legacy = legacySetVariable(use.name, use.value);
        const innerKnown = legacy !== undefined && readers.every((program) => clientVerdict(program, legacy.name.raw) === 'known');
        ctx.report({
          at: use,
          messageId: 'setVariable',
          severity,
          data: { ...data, expected: legacy === undefined ? 'name = value' : `${legacy.name.raw} = ${legacy.value}` },
          fix: () => (innerKnown ? rewriteSetVariable(use, legacy.name.raw, legacy.value) : null),
        });
        return;
      }
      if (verdicts.some(({ verdict }) => verdict === 'ambiguous')) {
        ctx.report({ at: use, messageId: 'ambiguous', severity, data: { ...data, name: use.name.raw } });
        return;
      }
      const knowing = verdicts.filter(({ verdict }) => verdict === 'known').map(({ program }) => program);
      // Where most readers take it, loose- keeps it for them and lets the others skip it with a warning.
      const loose = knowing.length > 0 && knowing.length >= failing.length;
      ctx.report({
        at: use,
        messageId: 'unknown',
        severity,
        data: {
          ...data,
          verb: failing.length === 1 ? 'has' : 'have',
          expected: expectedInstead(knowing, loose, rawName),
          knownBy:
            knowing.length === 0 ? '; no client program takes it' : `; ${shown(knowing)} ${knowing.length === 1 ? 'takes' : 'take'} it`,
        },
        ...(loose ? { fix: () => ({ file: use.file, range: [use.line.nameRange[0], use.line.nameRange[0]], text: 'loose-' }) } : {}),
      });
    };
    return {
      end() {
        for (const use of [...mycnf.uses, ...mycnf.otherOptions].sort((a, b) => a.order - b.order)) check(use);
      },
    };
  },
});

/** Whether the line is this rule's: in a group client programs read, not loose-, not a finding another rule owns. */
function judged(use: MycnfOptionUse, target: DatabaseTarget, serverUses: ReadonlySet<MycnfOptionUse>): boolean {
  if (programsReading(use.group).length === 0 || use.name.loose) return false;
  // In [client-server] the server reads the line too: a name it refuses is MY1006's, MY4001's or MY4002's to report.
  if (serverUses.has(use) && (use.status === 'unknown' || use.status === 'ambiguous')) return false;
  // MySQL's clients are not the MariaDB ones the table holds: only set-variable, gone from both, is judged there.
  if (target.product === 'mysql' && use.name.key !== 'set_variable') return false;
  return !(MY1007_GROUPS.has(groupKey(use.group)) && isServerOnlyOption(use));
}

function expectedInstead(knowing: readonly ClientProgram[], loose: boolean, rawName: string): string {
  if (knowing.length === 0) return 'an option the programs take';
  return loose ? `loose-${rawName}, which they skip with a warning` : `it in ${listed(knowing.map(ownGroup))}`;
}

/** The group a program reads that no other program does: [mysql] for mariadb, [mysqldump] for mariadb-dump. */
function ownGroup(program: ClientProgram): string {
  return `[${[...program.groups].find((group) => !group.startsWith('client')) ?? program.program}]`;
}

/** A program by the name the target's package gives it: MySQL's clients are mysql, mysqldump, mysql_upgrade. */
function nameOn(program: ClientProgram, target: DatabaseTarget): string {
  if (target.product !== 'mysql') return program.program;
  return [...program.groups].find((group) => !group.startsWith('client') && !group.startsWith('mariadb')) ?? program.program;
}

function listed(names: readonly string[]): string {
  if (names.length <= 2) return names.join(' and ');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] as string}`;
}
