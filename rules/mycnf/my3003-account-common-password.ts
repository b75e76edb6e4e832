import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { accountName, lineOrTop, someOf } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY3003',
    name: 'account-common-password',
    category: 'security',
    description: "An account's password is one of the first a scanner tries, or its own user name",
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      common: {
        message:
          '{{accounts}} {{verb}} a password scanners try first; expected a long random one: ALTER USER {{first}} IDENTIFIED BY <new password>',
        detail:
          'the stored mysql_native_password hash equals that of a common password or of the user name (with 1 or 123 after it); tune-lint compared the hashes on this machine, sent no password to the server and prints neither password nor hash ({{source}})',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        const weak = fact?.value.accounts?.filter((account) => account.commonPassword && !account.locked) ?? [];
        if (fact === undefined || weak.length === 0) return;
        ctx.report({
          at: lineOrTop(ctx.config, 'bind_address'),
          messageId: 'common',
          data: {
            accounts: `${weak.length === 1 ? 'account' : `${weak.length} accounts:`} ${someOf(weak.map(accountName))}`,
            verb: weak.length === 1 ? 'has' : 'have',
            first: accountName(weak[0] as { user: string; host: string }),
            source: liveSource(fact.source),
          },
        });
      },
    };
  },
});
