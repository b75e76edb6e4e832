import { defineRule } from '../../src/engine/define-rule.js';
import type { DatabaseTarget } from '../../src/core/targets.js';
import { groupKey } from '../../src/languages/mycnf/groups.js';
import type { MycnfOptionUse } from '../../src/languages/mycnf/model.js';
import { parseServerSize } from '../../src/languages/mycnf/sizes.js';
import { shownLine, writtenKey } from './support/intent.js';
import { optionType } from '../../src/languages/mycnf/option-types.js';
import { isClientOnlyOption, isServerOnlyOption } from './support/ownership.js';
import { removedOption } from '../../src/languages/mycnf/removed-options.js';
import { printedArgument } from '../../src/languages/mycnf/parser.js';

/** Groups the client programs read: [client] always, and MariaDB's clients also [client-server] and [client-mariadb]. */
const CLIENT_GROUPS = ['client', 'client-server', 'client-mariadb'];

export default defineRule('mycnf', {
  meta: {
    id: 'MY1007',
    name: 'client-group-leak',
    category: 'correctness',
    description:
      'A client option in a group the server reads, or a server option in a group the clients read, stops the program that does not know it',
    defaultSeverity: 'error',
    recommended: true,
    messages: {
      clientInServer: {
        message: '{{written}} in [{{group}}] is a client option, so the server refuses to start; expected it in [client]',
        detail: '{{name}} is an option of the client programs, not of the server: "{{wording}}"',
      },
      clientAbbreviation: {
        message: '{{written}} in [{{group}}] is a client option the server reads as {{full}}; expected it in [client]',
        detail: '{{name}} is an option of the client programs; the server takes it for the beginning of {{full}}{{consequence}}',
      },
      serverInClient: {
        message: '{{written}} in [{{group}}] is a server option, so the clients refuse to start; expected it in [mysqld]',
        detail:
          'no client program knows {{name}}; those reading [{{group}}] (mariadb, mariadb-dump, ...) say "mariadb: unknown variable \'{{argument}}\'"',
      },
    },
  },
  create(ctx) {
    const mycnf = ctx.config;
    const target = ctx.targets.db;
    const clientGroups = new Set(target.product === 'mariadb' ? CLIENT_GROUPS : ['client']);
    return {
      end() {
        const serverUses = new Set(mycnf.uses);
        for (const use of [...mycnf.uses, ...mycnf.otherOptions].sort((a, b) => a.order - b.order)) {
          if (use.name.loose) continue;
          const group = groupKey(use.group);
          const written = writtenKey(use.name);
          const argument = printedArgument(use.line, use.file.encoding);
          const data = { written: shownLine(use), group: use.group, name: use.file.slice(use.line.nameRange), argument };
          const readByServer = serverUses.has(use);
          // A removed server option that clients also know (default-character-set) is MY4002's in the server's own groups.
          if (
            readByServer &&
            use.status !== 'exact' &&
            isClientOnlyOption(written) &&
            (removedOption(written) === undefined || group === 'client-server')
          ) {
            if (use.status === 'abbreviation') {
              ctx.report({
                at: use,
                messageId: 'clientAbbreviation',
                data: { ...data, full: use.name.key, consequence: abbreviationConsequence(use, target) },
              });
              continue;
            }
            const wording = use.line.hasEquals ? `unknown variable '${argument}'` : `unknown option '--${argument}'`;
            ctx.report({ at: use, messageId: 'clientInServer', data: { ...data, wording } });
            continue;
          }
          if (clientGroups.has(group) && isServerOnlyOption(use)) ctx.report({ at: use, messageId: 'serverInClient', data });
        }
      },
    };
  },
});

/** What the server does with a client option it expands to one of its own: refuses the value, or sets its option to it. */
function abbreviationConsequence(use: MycnfOptionUse, target: DatabaseTarget): string {
  if (use.value !== undefined && optionType(use.name.key) === 'integer') {
    const parsed = parseServerSize(use.value, target, use.name.key);
    if ('error' in parsed) return `, so it refuses to start: "${parsed.error}"`;
  }
  return use.value === undefined ? `, so it turns ${use.name.key} on` : `, so it sets ${use.name.key} to ${use.value}`;
}
