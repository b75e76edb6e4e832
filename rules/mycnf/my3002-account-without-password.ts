import { defineRule } from '../../src/engine/define-rule.js';
import { liveSource } from '../../src/analysis/mysql-live.js';
import { accountName, lineOrTop, someOf } from './support/runtime.js';

export default defineRule('mycnf', {
  meta: {
    id: 'MY3002',
    name: 'account-without-password',
    category: 'security',
    description: 'An account of the running server logs in with an empty password',
    defaultSeverity: 'warn',
    recommended: true,
    messages: {
      passwordless: {
        message:
          '{{accounts}} {{verb}} in with an empty password{{anyHost}}; expected a password: ALTER USER {{first}} IDENTIFIED BY <new password>',
        detail:
          'the account stores an empty password for a password plugin ({{plugins}}), so its name is all a client needs; an account meant for local root logins only is better IDENTIFIED VIA unix_socket (MariaDB) or WITH auth_socket (MySQL) ({{source}})',
      },
    },
  },
  create(ctx) {
    return {
      end() {
        const fact = ctx.host.mysqlLive;
        const open = fact?.value.accounts?.filter((account) => account.user !== '' && account.passwordless && !account.locked) ?? [];
        if (fact === undefined || open.length === 0) return;
        const fromAnywhere = open.filter((account) => account.host === '%').map(accountName);
        ctx.report({
          at: lineOrTop(ctx.config, 'bind_address'),
          messageId: 'passwordless',
          data: {
            accounts: `${open.length === 1 ? 'account' : `${open.length} accounts:`} ${someOf(open.map(accountName))}`,
            verb: open.length === 1 ? 'logs' : 'log',
            anyHost:
              fromAnywhere.length === 0
                ? ''
                : fromAnywhere.length === open.length
                  ? ' from any host'
                  : ` (from any host: ${someOf(fromAnywhere)})`,
            first: accountName(open[0] as { user: string; host: string }),
            plugins: [...new Set(open.map((account) => account.plugin))].join(', '),
            source: liveSource(fact.source),
          },
        });
      },
    };
  },
});
